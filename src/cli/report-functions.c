/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * qtrace report --functions: per guest function, its calls and its total
 * and self time in guest instructions, from func_entry and func_exit
 * records, one call stack per vCPU stream. Functions are counted by
 * name, a PLT stub "name@plt" as "name" unless --keep-plt. Total time
 * counts a function's outermost call only (recursion, or a stub and the
 * function it reaches, would count twice; so it never exceeds the run);
 * self time counts every call, its callees excluded.
 *
 * A stub that forwards by a tail call (every PLT stub does: it jumps to
 * what its GOT slot holds) is the first part of one call, not a call of
 * its own: folded, it counts no call and its instructions go to the
 * frame that replaces it (the function, or ld.so's resolver on a first,
 * lazily bound call). Otherwise `name@plt` and `name` would each count
 * every call, twice the calls callgrind or uftrace see.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "cli.h"
#include "guest-syms.h"
#include "qtrace/callstack.h"
#include "report.h"
#include "report-table.h"

struct func_stat {
    uint32_t id;                    /* dense, from 0: index of per-stream
                                       counts */
    const char *name;               /* the key: "NAME\x1fMODULE", owned */
    size_t name_len;                /* NAME's length */
    const char *module;             /* the image's base name, or "" */
    uint64_t calls;
    uint64_t total;                 /* outermost calls only */
    uint64_t self;
};

/* A stub frame just closed, waiting for the frame that replaces it. */
struct stub_carry {
    struct func_stat *fs;           /* the stub's folded stat, or NULL */
    uint64_t dur;                   /* its instructions */
    uint32_t depth;
};

/*
 * Growable arrays of one stream's counts, indexed by a function's id or
 * a frame's depth: a hash table per call and return was most of a
 * report's time.
 */
struct counts {
    uint64_t *v;
    size_t n;
};

struct fstream {
    uint64_t last_time;
    struct qtrace_callstack cs;
    struct counts active;           /* by func_stat id: its open frames */
    struct stub_carry pending;
    struct counts carried;          /* by depth: stub time of that frame */
};

/* The stat of a pc, and whether it is a PLT stub, as last looked up. */
#define PC_CACHE_SLOTS 4096u

struct pc_slot {
    uint64_t pc;
    struct func_stat *fs;           /* NULL: empty */
    bool stub;
};

struct freport {
    const struct qtrace_symbols *syms;
    bool keep_plt;                  /* --keep-plt: stubs apart */
    GHashTable *names;              /* pc -> its name (owned) */
    GHashTable *stubs;              /* pcs whose name ends in "@plt" */
    GHashTable *funcs;              /* name -> struct func_stat */
    GHashTable *streams;            /* stream id -> struct fstream */
    struct fstream *cur;
    uint32_t cur_id;                /* cur's stream id */
    uint32_t n_funcs;               /* func_stat ids given */
    struct pc_slot *pc_cache;       /* PC_CACHE_SLOTS */
    bool oom;
};

/* The count at i, 0 past the end. */
static uint64_t counts_get(const struct counts *c, size_t i)
{
    return i < c->n ? c->v[i] : 0;
}

/* Set the count at i, growing the array; false when out of memory. */
static bool counts_set(struct counts *c, size_t i, uint64_t v)
{
    if (i >= c->n) {
        size_t n = c->n ? c->n : 64;
        uint64_t *bigger;

        if (v == 0) {
            return true;
        }
        while (n <= i) {
            n *= 2;
        }
        bigger = realloc(c->v, n * sizeof(*c->v));
        if (!bigger) {
            return false;
        }
        memset(bigger + c->n, 0, (n - c->n) * sizeof(*c->v));
        c->v = bigger;
        c->n = n;
    }
    c->v[i] = v;
    return true;
}

static void free_fstream(void *p)
{
    struct fstream *st = p;

    qtrace_callstack_fini(&st->cs);
    free(st->active.v);
    free(st->carried.v);
    free(st);
}

static bool is_plt_name(const char *name)
{
    static const char plt[] = "@plt";
    size_t n = strlen(name);

    return n > sizeof(plt) - 1 && strcmp(name + n - (sizeof(plt) - 1),
                                         plt) == 0;
}

/*
 * The stat of the function at pc: its name is looked up once per address
 * (fr->names), and addresses of one name in one image share one stat
 * (fr->funcs): ld.so's private fstat is not libc's.
 */
static struct func_stat *stat_lookup(struct freport *fr, uint64_t pc)
{
    gpointer key = GSIZE_TO_POINTER(pc);
    struct func_stat *fs = g_hash_table_lookup(fr->names, key);
    const char *module;
    char buf[640];
    size_t len;

    if (fs) {
        return fs;
    }
    if (!fr->keep_plt && is_plt_name(guest_syms_fmt(fr->syms, pc, false, buf,
                                                    sizeof(buf)))) {
        g_hash_table_add(fr->stubs, key);
    }
    guest_syms_fn_name(fr->syms, pc, fr->keep_plt, buf, sizeof(buf));
    len = strlen(buf);
    module = qtrace_symbols_module(fr->syms, pc, NULL);
    snprintf(buf + len, sizeof(buf) - len, "\x1f%s", module ? module : "");
    fs = g_hash_table_lookup(fr->funcs, buf);
    if (!fs) {
        char *name = strdup(buf);

        fs = calloc(1, sizeof(*fs));
        if (!fs || !name) {
            free(fs);
            free(name);
            fr->oom = true;
            return NULL;
        }
        fs->id = fr->n_funcs++;
        fs->name = name;
        fs->name_len = len;
        fs->module = name + len + 1;
        g_hash_table_insert(fr->funcs, name, fs);
    }
    g_hash_table_insert(fr->names, key, fs);
    return fs;
}

/* stat_lookup through a cache of recent pcs; *stub: a PLT stub's pc. */
static struct func_stat *stat_of(struct freport *fr, uint64_t pc, bool *stub)
{
    struct pc_slot *slot = &fr->pc_cache[(pc ^ (pc >> 12)) &
                                         (PC_CACHE_SLOTS - 1)];

    if (slot->fs && slot->pc == pc) {
        *stub = slot->stub;
        return slot->fs;
    }
    slot->fs = stat_lookup(fr, pc);
    slot->pc = pc;
    slot->stub = g_hash_table_contains(fr->stubs, GSIZE_TO_POINTER(pc));
    *stub = slot->stub;
    return slot->fs;
}

/* One open frame of fs fewer in st. */
static void count_active_down(struct fstream *st, struct func_stat *fs)
{
    uint64_t n = counts_get(&st->active, fs->id);

    counts_set(&st->active, fs->id, n > 0 ? n - 1 : 0);
}

/* One closed call of fs: dur instructions, child_time of them in callees. */
static void count_call(struct fstream *st, struct func_stat *fs,
                       uint64_t dur, uint64_t child_time)
{
    bool outermost = counts_get(&st->active, fs->id) <= 1;

    count_active_down(st, fs);
    fs->calls++;
    fs->self += dur > child_time ? dur - child_time : 0;
    if (outermost) {
        fs->total += dur;
    }
}

/* A stub that nothing replaced counts as a call of its folded name. */
static void settle_pending(struct fstream *st)
{
    struct stub_carry *p = &st->pending;

    if (p->fs) {
        count_call(st, p->fs, p->dur, 0);
        p->fs = NULL;
    }
}

static void on_enter(void *arg, const struct qtrace_frame *f, uint32_t depth)
{
    struct freport *fr = arg;
    struct fstream *st = fr->cur;
    bool stub;
    struct func_stat *fs = stat_of(fr, f->pc, &stub);

    if (!fs) {
        return;
    }
    if (st->pending.fs && st->pending.depth == depth) {
        /* The stub's successor: its call goes on in this frame. */
        if (!counts_set(&st->carried, depth, st->pending.dur)) {
            fr->oom = true;
        }
        count_active_down(st, st->pending.fs);
        st->pending.fs = NULL;
    }
    settle_pending(st);
    if (!counts_set(&st->active, fs->id,
                    counts_get(&st->active, fs->id) + 1)) {
        fr->oom = true;
    }
}

static void on_leave(void *arg, const struct qtrace_frame *f, uint32_t depth,
                     uint64_t time, bool forced)
{
    struct freport *fr = arg;
    struct fstream *st = fr->cur;
    bool stub;
    struct func_stat *fs = stat_of(fr, f->pc, &stub);
    uint64_t dur = time - f->start;

    (void)forced;
    if (!fs) {
        return;
    }
    settle_pending(st);
    if (depth < st->carried.n) {
        dur += st->carried.v[depth];
        st->carried.v[depth] = 0;
    }
    if (stub && f->child_time == 0) {
        st->pending = (struct stub_carry){ fs, dur, depth };
        return;
    }
    count_call(st, fs, dur, f->child_time);
}

static const struct qtrace_callstack_ops report_ops = { on_enter, on_leave };

static struct fstream *stream_of(struct freport *fr, uint32_t id)
{
    struct fstream *st = g_hash_table_lookup(fr->streams,
                                             GUINT_TO_POINTER(id));

    if (!st) {
        st = calloc(1, sizeof(*st));
        if (!st) {
            return NULL;
        }
        qtrace_callstack_init(&st->cs);
        g_hash_table_insert(fr->streams, GUINT_TO_POINTER(id), st);
    }
    return st;
}

/*
 * Every event but blocks, instructions, accesses and translations: they
 * are most of a trace and carry no call, and a packed stream's blocks
 * then need not be expanded. Frames left open close at the stream's last
 * record of the others (its vcpu_exit, when it exited).
 */
int report_select_calls(struct qtrace_reader *rd, struct qtrace_err *err)
{
    static const char *const unread[] = {
        "exec_tb", "exec_insn", "mem_access", "tb_trans",
    };
    const struct qtrace_catalog *cat = qtrace_reader_catalog(rd);
    uint64_t want[QTRACE_MAX_EVENTS / 64];
    size_t i;

    memset(want, 0xff, sizeof(want));
    for (i = 0; i < sizeof(unread) / sizeof(unread[0]); i++) {
        const struct qtrace_event_desc *ev =
            qtrace_catalog_find(cat, unread[i]);

        if (ev) {
            want[ev->id / 64] &= ~(1ull << (ev->id % 64));
        }
    }
    return qtrace_reader_select(rd, want, err);
}

static int collect(struct freport *fr, struct qtrace_reader *rd,
                   const struct qtrace_func_events *fe,
                   struct qtrace_err *err)
{
    struct qtrace_record rec;
    GHashTableIter it;
    gpointer key, value;
    int ret;

    ret = report_select_calls(rd, err);
    if (ret < 0) {
        return ret;
    }
    while ((ret = qtrace_reader_next(rd, &rec, err)) > 0) {
        if (rec.vcpu == QTRACE_VCPU_NONE) {
            continue;
        }
        if (!fr->cur || fr->cur_id != rec.stream) {
            fr->cur = stream_of(fr, rec.stream);
            fr->cur_id = rec.stream;
        }
        if (!fr->cur ||
            qtrace_callstack_feed(&fr->cur->cs, fe, &rec, &report_ops,
                                  fr) < 0 || fr->oom) {
            qtrace_err_set(err, "%s", strerror(ENOMEM));
            return -ENOMEM;
        }
        fr->cur->last_time = rec.time;
    }
    qtrace_reader_select(rd, NULL, NULL);
    /* Frames left open end with their stream (the trace was cut). */
    g_hash_table_iter_init(&it, fr->streams);
    while (g_hash_table_iter_next(&it, &key, &value)) {
        fr->cur = value;
        qtrace_callstack_close(&fr->cur->cs, fr->cur->last_time,
                               &report_ops, fr);
        settle_pending(fr->cur);
    }
    return ret;
}

/* Most total time first, then most calls, then by name. */
static gint cmp_stat(gconstpointer a, gconstpointer b)
{
    const struct func_stat *x = *(const struct func_stat *const *)a;
    const struct func_stat *y = *(const struct func_stat *const *)b;

    if (x->total != y->total) {
        return x->total > y->total ? -1 : 1;
    }
    if (x->calls != y->calls) {
        return x->calls > y->calls ? -1 : 1;
    }
    return strcmp(x->name, y->name);
}

/* How many images have a function called like fs (names: name -> n). */
static gsize name_count(GHashTable *names, const struct func_stat *fs)
{
    char *name = g_strndup(fs->name, fs->name_len);
    gsize n = GPOINTER_TO_SIZE(g_hash_table_lookup(names, name));

    g_free(name);
    return n;
}

static void name_count_add(GHashTable *names, const struct func_stat *fs)
{
    gsize n = name_count(names, fs);

    g_hash_table_insert(names, g_strndup(fs->name, fs->name_len),
                        GSIZE_TO_POINTER(n + 1));
}

static const struct rt_col fn_cols[] = {
    { "function", RT_STR }, { "module", RT_STR }, { "total", RT_U64 },
    { "self", RT_U64 }, { "calls", RT_U64 },
};

#define N_FN_COLS (sizeof(fn_cols) / sizeof(fn_cols[0]))

/* The rows as a table (--format json, csv): name and image apart. */
static void table_stats(FILE *out, const struct report_flags *flags,
                        GPtrArray *order)
{
    guint i;

    rt_begin(out, flags, "functions", fn_cols, N_FN_COLS);
    for (i = 0; i < order->len; i++) {
        const struct func_stat *fs = g_ptr_array_index(order, i);
        char *name = g_strndup(fs->name, fs->name_len);
        union rt_val v[N_FN_COLS];

        v[0].s = name;
        v[1].s = fs->module;
        v[2].u = fs->total;
        v[3].u = fs->self;
        v[4].u = fs->calls;
        rt_row(out, flags, v);
        g_free(name);
    }
    rt_end(out, flags);
}

/*
 * The table, most total time first. A name that two images define
 * (ld.so's private copies of some of libc's functions) is followed by
 * its image's name in parentheses.
 */
static void print_stats(struct freport *fr, const struct report_flags *flags,
                        FILE *out)
{
    GHashTable *names = g_hash_table_new_full(g_str_hash, g_str_equal,
                                              g_free, NULL);
    GPtrArray *order = g_ptr_array_new();
    GHashTableIter it;
    gpointer key, value;
    uint64_t calls = 0;
    guint i;

    g_hash_table_iter_init(&it, fr->funcs);
    while (g_hash_table_iter_next(&it, &key, &value)) {
        struct func_stat *fs = value;

        /* A stub whose every call went on in the function it reached. */
        if (fs->calls == 0 && fs->total == 0 && fs->self == 0) {
            continue;
        }
        calls += fs->calls;
        g_ptr_array_add(order, fs);
        name_count_add(names, fs);
    }
    g_ptr_array_sort(order, cmp_stat);
    if (flags->format != REPORT_TEXT) {
        table_stats(out, flags, order);
        g_ptr_array_free(order, TRUE);
        g_hash_table_destroy(names);
        return;
    }
    fprintf(out, "functions: %u, calls: %" PRIu64 " (times in guest "
            "instructions)\n", order->len, calls);
    fprintf(out, "%12s %12s %10s  %s\n", "TOTAL", "SELF", "CALLS",
            "FUNCTION");
    for (i = 0; i < order->len; i++) {
        const struct func_stat *fs = g_ptr_array_index(order, i);
        bool shared = name_count(names, fs) > 1 && fs->module[0];

        fprintf(out, "%12" PRIu64 " %12" PRIu64 " %10" PRIu64 "  %.*s%s%s%s\n",
                fs->total, fs->self, fs->calls, (int)fs->name_len, fs->name,
                shared ? " (" : "", shared ? fs->module : "",
                shared ? ")" : "");
    }
    g_ptr_array_free(order, TRUE);
    g_hash_table_destroy(names);
}

static void free_stat(void *p)
{
    struct func_stat *fs = p;

    free((char *)fs->name);
    free(fs);
}

static int run_functions(struct qtrace_reader *rd,
                         const struct report_flags *flags, FILE *out,
                         struct qtrace_err *err)
{
    struct freport fr = { .keep_plt = flags->keep_plt };
    struct qtrace_func_events fe;
    struct qtrace_symbols *syms;
    bool empty;
    int ret;

    qtrace_func_events_find(&fe, qtrace_reader_catalog(rd));
    if (!fe.entry || !fe.exit) {
        return rt_none(out, flags, "functions", fn_cols, N_FN_COLS,
                       "functions: none (no func_entry and func_exit "
                       "events in the trace's catalog)");
    }
    syms = guest_syms_load(rd, "report");
    if (!syms) {
        qtrace_err_set(err, "guest symbols: %s", strerror(ENOMEM));
        return -ENOMEM;
    }
    fr.syms = syms;
    fr.names = g_hash_table_new(NULL, NULL);
    fr.stubs = g_hash_table_new(NULL, NULL);
    fr.funcs = g_hash_table_new_full(g_str_hash, g_str_equal, NULL,
                                     free_stat);
    fr.streams = g_hash_table_new_full(NULL, NULL, NULL, free_fstream);
    fr.pc_cache = calloc(PC_CACHE_SLOTS, sizeof(*fr.pc_cache));
    ret = fr.pc_cache ? collect(&fr, rd, &fe, err) : -ENOMEM;
    if (ret == -ENOMEM && !fr.pc_cache) {
        qtrace_err_set(err, "%s", strerror(ENOMEM));
    }
    empty = g_hash_table_size(fr.funcs) == 0;
    if (ret != -ENOMEM && empty) {
        rt_none(out, flags, "functions", fn_cols, N_FN_COLS,
                "functions: none (no func_entry records; record them with "
                "-e 'func_*')");
    } else if (ret != -ENOMEM) {
        print_stats(&fr, flags, out);
    }
    g_hash_table_destroy(fr.streams);
    g_hash_table_destroy(fr.names);
    g_hash_table_destroy(fr.stubs);
    g_hash_table_destroy(fr.funcs);
    free(fr.pc_cache);
    qtrace_symbols_free(syms);
    if (ret < 0) {
        return ret;
    }
    return empty ? REPORT_EMPTY : 0;
}

const struct report_section report_functions = {
    .option = "functions",
    .help = "calls, total and self time of each guest function",
    .run = run_functions,
};
