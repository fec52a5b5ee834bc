/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * qtrace report --functions: per guest function, its calls and its total
 * and self time in guest instructions, from func_entry and func_exit
 * records, one call stack per vCPU stream. Total time counts a recursive
 * function's outermost call only (so it never exceeds the run); self
 * time counts every call, its callees excluded.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "cli.h"
#include "guest-syms.h"
#include "qtrace/callstack.h"
#include "report.h"

struct func_stat {
    uint64_t pc;
    uint64_t calls;
    uint64_t total;                 /* outermost calls only */
    uint64_t self;
    char *name;                     /* resolved when printing */
};

struct fstream {
    uint64_t last_time;
    struct qtrace_callstack cs;
    GHashTable *active;             /* pc -> open frames of pc */
};

struct freport {
    GHashTable *funcs;              /* pc -> struct func_stat */
    GHashTable *streams;            /* stream id -> struct fstream */
    struct fstream *cur;
    bool oom;
};

static void free_fstream(void *p)
{
    struct fstream *st = p;

    qtrace_callstack_fini(&st->cs);
    g_hash_table_destroy(st->active);
    free(st);
}

static void free_stat(void *p)
{
    struct func_stat *fs = p;

    free(fs->name);
    free(fs);
}

/* Keys are 64-bit addresses: hashed through a pointer to the value. */
static struct func_stat *stat_of(struct freport *fr, uint64_t pc)
{
    struct func_stat *fs = g_hash_table_lookup(fr->funcs, &pc);

    if (!fs) {
        fs = calloc(1, sizeof(*fs));
        if (!fs) {
            fr->oom = true;
            return NULL;
        }
        fs->pc = pc;
        g_hash_table_insert(fr->funcs, &fs->pc, fs);
    }
    return fs;
}

static void on_enter(void *arg, const struct qtrace_frame *f, uint32_t depth)
{
    struct freport *fr = arg;
    gpointer key = GSIZE_TO_POINTER(f->pc);
    gsize n = GPOINTER_TO_SIZE(g_hash_table_lookup(fr->cur->active, key));

    (void)depth;
    g_hash_table_insert(fr->cur->active, key, GSIZE_TO_POINTER(n + 1));
}

static void on_leave(void *arg, const struct qtrace_frame *f, uint32_t depth,
                     uint64_t time, bool forced)
{
    struct freport *fr = arg;
    struct func_stat *fs = stat_of(fr, f->pc);
    gpointer key = GSIZE_TO_POINTER(f->pc);
    gsize n = GPOINTER_TO_SIZE(g_hash_table_lookup(fr->cur->active, key));
    uint64_t dur = time - f->start;

    (void)depth;
    (void)forced;
    if (n > 1) {
        g_hash_table_insert(fr->cur->active, key, GSIZE_TO_POINTER(n - 1));
    } else {
        g_hash_table_remove(fr->cur->active, key);
    }
    if (!fs) {
        return;
    }
    fs->calls++;
    fs->self += dur > f->child_time ? dur - f->child_time : 0;
    if (n <= 1) {
        fs->total += dur;
    }
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
        st->active = g_hash_table_new(NULL, NULL);
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
static int select_calls(struct qtrace_reader *rd, struct qtrace_err *err)
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

    ret = select_calls(rd, err);
    if (ret < 0) {
        return ret;
    }
    while ((ret = qtrace_reader_next(rd, &rec, err)) > 0) {
        if (rec.vcpu == QTRACE_VCPU_NONE) {
            continue;
        }
        fr->cur = stream_of(fr, rec.stream);
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

static void print_stats(struct freport *fr, struct qtrace_symbols *syms,
                        FILE *out)
{
    GPtrArray *order = g_ptr_array_new();
    GHashTableIter it;
    gpointer key, value;
    char buf[320];
    uint64_t calls = 0;
    guint i;

    g_hash_table_iter_init(&it, fr->funcs);
    while (g_hash_table_iter_next(&it, &key, &value)) {
        struct func_stat *fs = value;

        fs->name = strdup(guest_syms_fmt(syms, fs->pc, false, buf,
                                         sizeof(buf)));
        if (!fs->name) {
            fs->name = strdup("?");
        }
        calls += fs->calls;
        g_ptr_array_add(order, fs);
    }
    g_ptr_array_sort(order, cmp_stat);
    fprintf(out, "functions: %u, calls: %" PRIu64 " (times in guest "
            "instructions)\n", order->len, calls);
    fprintf(out, "%12s %12s %10s  %s\n", "TOTAL", "SELF", "CALLS",
            "FUNCTION");
    for (i = 0; i < order->len; i++) {
        const struct func_stat *fs = g_ptr_array_index(order, i);

        fprintf(out, "%12" PRIu64 " %12" PRIu64 " %10" PRIu64 "  %s\n",
                fs->total, fs->self, fs->calls, fs->name ? fs->name : "?");
    }
    g_ptr_array_free(order, TRUE);
}

static int run_functions(struct qtrace_reader *rd, FILE *out,
                         struct qtrace_err *err)
{
    struct freport fr = { .oom = false };
    struct qtrace_func_events fe;
    struct qtrace_symbols *syms;
    int ret;

    qtrace_func_events_find(&fe, qtrace_reader_catalog(rd));
    if (!fe.entry || !fe.exit) {
        fprintf(out, "functions: none (no func_entry and func_exit events "
                "in the trace's catalog)\n");
        return 0;
    }
    syms = guest_syms_load(rd, "report");
    if (!syms) {
        qtrace_err_set(err, "guest symbols: %s", strerror(ENOMEM));
        return -ENOMEM;
    }
    fr.funcs = g_hash_table_new_full(g_int64_hash, g_int64_equal, NULL,
                                     free_stat);
    fr.streams = g_hash_table_new_full(NULL, NULL, NULL, free_fstream);
    ret = collect(&fr, rd, &fe, err);
    if (ret != -ENOMEM) {
        print_stats(&fr, syms, out);
    }
    g_hash_table_destroy(fr.streams);
    g_hash_table_destroy(fr.funcs);
    qtrace_symbols_free(syms);
    return ret < 0 ? ret : 0;
}

const struct report_section report_functions = {
    .option = "functions",
    .help = "calls, total and self time of each guest function",
    .run = run_functions,
};
