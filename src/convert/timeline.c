/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A trace as timelines of slices and instants (see timeline.h), shared
 * by the chrome and perfetto converters. Runs in the qtrace command,
 * on its main thread.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "qtrace/callstack.h"
#include "qtrace/symbols.h"
#include "qtrace/syscall.h"
#include "hex-args.h"
#include "timeline.h"

/* What a shown event becomes. */
enum tl_kind {
    TL_HIDDEN = 0,
    TL_INSTANT,
    TL_FUNC,                        /* func_entry, func_exit */
    TL_SYSCALL,
    TL_SYSCALL_RET,
};

/* Per event id, worked out once from the trace's catalog. */
struct tl_event {
    enum tl_kind kind;
    uint32_t hex;                   /* hex_args_find */
    int pc_arg;                     /* a "pc" argument: named too, or -1 */
    char cat[64];                   /* "event", or a library's name */
};

struct tl_stream {
    uint32_t id;
    uint64_t last_time;             /* of its latest record */
    struct qtrace_callstack cs;
    bool sys_open;                  /* a system call slice is open */
};

/* The last text made for an address, direct mapped by address. */
#define NAME_CACHE_SLOTS 1024u

struct name_slot {
    uint64_t addr;
    bool used;
    bool with_off;
    char text[120];
};

struct timeline {
    struct qtrace_reader *rd;
    const struct timeline_ops *ops;
    void *arg;
    struct tl_event *events;        /* by id, 1..n_events */
    unsigned int n_events;
    struct qtrace_func_events fe;
    const struct qtrace_event_desc *sys, *sys_ret;
    int sys_num, sr_num, sr_ret;    /* argument indexes, -1: absent */
    const struct qtrace_syscall_table *syscalls;    /* NULL: no names */
    struct qtrace_symbols *syms;    /* NULL: no event shown needs them */
    struct name_slot *names;        /* NAME_CACHE_SLOTS, with syms */
    GHashTable *streams;            /* stream id -> struct tl_stream */
    struct tl_stream *cur;
    struct qtrace_func_rec func_rec;    /* the func record being fed */
    bool feeding_exit;
    struct qtrace_err *err;         /* where a callback's failure goes */
    int failed;                     /* its -errno, 0 */
    struct timeline_counts counts;
    bool host;                      /* times are host times (the trace's
                                       clock stamps), not instructions */
    uint64_t latest;                /* the latest host time met */
    char program[256];
    char sys_name[32];              /* "syscall_N" */
};

/* ---- names ---- */

static void fmt_addr(const struct timeline *tl, uint64_t addr,
                     bool with_off, char *buf, size_t len)
{
    uint64_t off = 0;
    const char *name = tl->syms ? qtrace_symbols_lookup(tl->syms, addr, &off)
                                : NULL;
    const char *module;

    if (name) {
        if (off || with_off) {
            snprintf(buf, len, "%s+0x%" PRIx64, name, off);
        } else {
            snprintf(buf, len, "%s", name);
        }
        return;
    }
    module = tl->syms ? qtrace_symbols_module(tl->syms, addr, &off) : NULL;
    if (module) {
        snprintf(buf, len, "%s+0x%" PRIx64, module, off);
    } else {
        snprintf(buf, len, "0x%" PRIx64, addr);
    }
}

/*
 * The guest symbol of addr as qtrace dump shows it ("name", or
 * "name+0xOFF" also when OFF is 0 if with_off; "module+0xELFADDR",
 * "0xADDR"): blocks and functions come again and again, and a lookup
 * costs more than the rest of an event.
 */
static const char *addr_name(struct timeline *tl, uint64_t addr,
                             bool with_off)
{
    struct name_slot *slot;

    if (!tl->names) {
        static char plain[24];

        snprintf(plain, sizeof(plain), "0x%" PRIx64, addr);
        return plain;
    }
    slot = &tl->names[(addr ^ (addr >> 10)) & (NAME_CACHE_SLOTS - 1)];
    if (!slot->used || slot->addr != addr || slot->with_off != with_off) {
        fmt_addr(tl, addr, with_off, slot->text, sizeof(slot->text));
        slot->addr = addr;
        slot->with_off = with_off;
        slot->used = true;
    }
    return slot->text;
}

static const char *syscall_name(struct timeline *tl, int64_t num)
{
    const char *name = qtrace_syscall_name(tl->syscalls, num);

    if (name) {
        return name;
    }
    snprintf(tl->sys_name, sizeof(tl->sys_name), "syscall_%" PRId64, num);
    return tl->sys_name;
}

const char *timeline_track_name(uint32_t stream, uint32_t vcpu, char *buf,
                                size_t len)
{
    snprintf(buf, len, "vCPU %" PRIu32 " (stream %" PRIu32 ")", vcpu,
             stream);
    return buf;
}

/* ---- events ---- */

static void add_arg(struct timeline_event *e, const char *name,
                    enum timeline_arg_type type, uint64_t u)
{
    struct timeline_arg *a;

    if (e->n_args >= TIMELINE_MAX_ARGS) {
        return;
    }
    a = &e->args[e->n_args++];
    memset(a, 0, sizeof(*a));
    a->name = name;
    a->type = type;
    a->u = u;
    a->i = (int64_t)u;
}

static void add_str(struct timeline_event *e, const char *name,
                    const char *s)
{
    if (e->n_args < TIMELINE_MAX_ARGS) {
        add_arg(e, name, TL_ARG_STR, 0);
        e->args[e->n_args - 1].s = s;
        e->args[e->n_args - 1].len = strlen(s);
    }
}

/* Every argument of rec as its catalog declares it. */
static void add_record_args(struct timeline *tl, struct timeline_event *e,
                            const struct qtrace_record *rec)
{
    const struct qtrace_event_desc *ev = rec->ev;
    const struct tl_event *te = &tl->events[ev->id];
    unsigned int i;

    for (i = 0; i < ev->n_args && e->n_args < TIMELINE_MAX_ARGS; i++) {
        const struct qtrace_arg_desc *d = &ev->args[i];
        struct timeline_arg *a;
        size_t len = 0;

        switch (d->type) {
        case QTRACE_ARG_STR:
        case QTRACE_ARG_BYTES:
            add_arg(e, d->name, d->type == QTRACE_ARG_STR ? TL_ARG_STR
                                                          : TL_ARG_BYTES, 0);
            a = &e->args[e->n_args - 1];
            a->s = (const char *)qtrace_record_bytes(rec, i, &len);
            a->len = a->s ? len : 0;
            break;
        case QTRACE_ARG_I8:
        case QTRACE_ARG_I16:
        case QTRACE_ARG_I32:
        case QTRACE_ARG_I64:
            add_arg(e, d->name, TL_ARG_I64, 0);
            e->args[e->n_args - 1].i = qtrace_record_i64(rec, i);
            e->args[e->n_args - 1].u = (uint64_t)e->args[e->n_args - 1].i;
            break;
        case QTRACE_ARG_BOOL:
            add_arg(e, d->name, TL_ARG_BOOL, qtrace_record_u64(rec, i) != 0);
            break;
        default:
            add_arg(e, d->name, i < 32 && (te->hex >> i & 1) ? TL_ARG_HEX
                                                             : TL_ARG_U64,
                    qtrace_record_u64(rec, i));
            break;
        }
    }
}

static void event_init(struct timeline_event *e, uint32_t stream,
                       uint64_t time, const char *name, const char *cat)
{
    e->stream = stream;
    e->time = time;
    e->name = name;
    e->cat = cat;
    e->n_args = 0;
}

/* Record the first failure; later calls do nothing. */
static void emit(struct timeline *tl,
                 int (*op)(void *, const struct timeline_event *,
                           struct qtrace_err *),
                 const struct timeline_event *e)
{
    if (!tl->failed) {
        tl->failed = op(tl->arg, e, tl->err);
    }
}

static void close_syscall(struct timeline *tl, struct tl_stream *st,
                          uint64_t time)
{
    struct timeline_event e;

    if (!st->sys_open) {
        return;
    }
    st->sys_open = false;
    event_init(&e, st->id, time, NULL, "syscall");
    add_str(&e, "returned", "no (no syscall_ret before the next call "
            "record or the end of the stream)");
    emit(tl, tl->ops->end, &e);
}

static const char *const entry_kinds[] = { "call", "tail call",
                                           "synthesized" };
static const char *const exit_kinds[] = { "return", "unwound",
                                          "replaced by a tail call",
                                          "vCPU exit" };

static void on_enter(void *arg, const struct qtrace_frame *f, uint32_t depth)
{
    struct timeline *tl = arg;
    struct timeline_event e;
    const struct qtrace_func_rec *fr = &tl->func_rec;

    event_init(&e, tl->cur->id, f->start, addr_name(tl, f->pc, false),
               "call");
    add_arg(&e, "pc", TL_ARG_HEX, f->pc);
    add_arg(&e, "from", TL_ARG_HEX, f->from);
    add_arg(&e, "depth", TL_ARG_U64, depth);
    if (!tl->feeding_exit && fr->kind < 3) {
        add_str(&e, "entry", entry_kinds[fr->kind]);
    }
    tl->counts.slices++;
    emit(tl, tl->ops->begin, &e);
}

static void on_leave(void *arg, const struct qtrace_frame *f, uint32_t depth,
                     uint64_t time, bool forced)
{
    struct timeline *tl = arg;
    struct timeline_event e;
    const struct qtrace_func_rec *fr = &tl->func_rec;

    (void)f;
    (void)depth;
    event_init(&e, tl->cur->id, time, NULL, "call");
    if (forced) {
        add_str(&e, "exit", "closed (an outer frame's exit, a deeper "
                "entry, or the end of the stream)");
    } else {
        add_arg(&e, "to", TL_ARG_HEX, fr->other);
        add_str(&e, "exit", fr->kind < 4 ? exit_kinds[fr->kind] : "?");
    }
    emit(tl, tl->ops->end, &e);
}

static const struct qtrace_callstack_ops stack_ops = { on_enter, on_leave };

static void do_func(struct timeline *tl, const struct qtrace_record *rec,
                    uint64_t time)
{
    struct qtrace_func_rec fr;
    struct tl_stream *st = tl->cur;

    if (!qtrace_func_events_decode(&tl->fe, rec, &fr)) {
        return;
    }
    close_syscall(tl, st, time);
    tl->func_rec = fr;
    tl->feeding_exit = fr.is_exit;
    if (fr.is_exit) {
        qtrace_callstack_leave(&st->cs, fr.pc, time, &stack_ops, tl);
    } else if (qtrace_callstack_enter(&st->cs, fr.pc, fr.other, fr.depth,
                                      time, &stack_ops, tl) < 0) {
        qtrace_err_set(tl->err, "%s", strerror(ENOMEM));
        tl->failed = -ENOMEM;
    }
}

static void do_syscall(struct timeline *tl, const struct qtrace_record *rec,
                       uint64_t time)
{
    struct tl_stream *st = tl->cur;
    struct timeline_event e;
    int64_t num;

    close_syscall(tl, st, time);
    num = tl->sys_num >= 0 ?
          qtrace_record_i64(rec, (unsigned int)tl->sys_num) : -1;
    event_init(&e, st->id, time, syscall_name(tl, num), "syscall");
    add_record_args(tl, &e, rec);
    st->sys_open = true;
    tl->counts.slices++;
    emit(tl, tl->ops->begin, &e);
}

static void do_syscall_ret(struct timeline *tl,
                           const struct qtrace_record *rec, uint64_t time)
{
    struct tl_stream *st = tl->cur;
    struct timeline_event e;
    int64_t ret = tl->sr_ret >= 0 ?
                  qtrace_record_i64(rec, (unsigned int)tl->sr_ret) : 0;
    const char *ename = ret < 0 && ret >= -4095 ?
                        strerrorname_np((int)-ret) : NULL;

    if (!st->sys_open) {
        /* Its syscall was not recorded: a point with the numbers. */
        event_init(&e, st->id, time, rec->ev->name, "syscall");
        add_record_args(tl, &e, rec);
        if (tl->sr_num >= 0) {
            add_str(&e, "name", syscall_name(tl, qtrace_record_i64(
                        rec, (unsigned int)tl->sr_num)));
        }
        tl->counts.instants++;
        emit(tl, tl->ops->instant, &e);
        return;
    }
    st->sys_open = false;
    event_init(&e, st->id, time, NULL, "syscall");
    add_arg(&e, "ret", TL_ARG_I64, (uint64_t)ret);
    if (ename) {
        add_str(&e, "error", ename);
    }
    emit(tl, tl->ops->end, &e);
}

static void do_instant(struct timeline *tl, const struct qtrace_record *rec,
                       uint32_t stream, uint64_t time)
{
    const struct tl_event *te = &tl->events[rec->ev->id];
    struct timeline_event e;

    event_init(&e, stream, time, rec->ev->name, te->cat);
    add_record_args(tl, &e, rec);
    if (te->pc_arg >= 0 && tl->syms) {
        add_str(&e, "func", addr_name(tl, qtrace_record_u64(
                    rec, (unsigned int)te->pc_arg), true));
    }
    tl->counts.instants++;
    emit(tl, tl->ops->instant, &e);
}

static void free_stream(void *p)
{
    struct tl_stream *st = p;

    qtrace_callstack_fini(&st->cs);
    free(st);
}

/* The stream of rec, told to the converter when first met; NULL: ENOMEM. */
static struct tl_stream *stream_of(struct timeline *tl,
                                   const struct qtrace_record *rec)
{
    struct tl_stream *st;

    if (tl->cur && tl->cur->id == rec->stream) {
        return tl->cur;
    }
    st = g_hash_table_lookup(tl->streams, GUINT_TO_POINTER(rec->stream));
    if (st) {
        return st;
    }
    st = calloc(1, sizeof(*st));
    if (!st) {
        return NULL;
    }
    st->id = rec->stream;
    qtrace_callstack_init(&st->cs);
    g_hash_table_insert(tl->streams, GUINT_TO_POINTER(rec->stream), st);
    tl->counts.tracks++;
    if (!tl->failed) {
        tl->failed = tl->ops->track(tl->arg, rec->stream, rec->vcpu, tl->err);
    }
    return st;
}

int timeline_record(struct timeline *tl, const struct qtrace_record *rec,
                    struct qtrace_err *err)
{
    const struct tl_event *te;
    uint64_t time;

    if (!rec->ev || rec->ev->id > tl->n_events) {
        return 0;
    }
    te = &tl->events[rec->ev->id];
    if (te->kind == TL_HIDDEN) {
        return 0;
    }
    tl->err = err;
    if (rec->vcpu == QTRACE_VCPU_NONE) {
        /* On the host clock, what was met last: when it was written. */
        if (te->kind == TL_INSTANT) {
            do_instant(tl, rec, TIMELINE_GLOBAL,
                       tl->host ? tl->latest : rec->time);
        }
        return tl->failed;
    }
    tl->cur = stream_of(tl, rec);
    if (!tl->cur) {
        qtrace_err_set(err, "%s", strerror(ENOMEM));
        return -ENOMEM;
    }
    time = rec->time;
    if (tl->host && !qtrace_reader_host_time(tl->rd, rec, &time)) {
        time = tl->cur->last_time;
    }
    time = time > tl->cur->last_time ? time : tl->cur->last_time;
    if (time > tl->latest) {
        tl->latest = time;
    }
    tl->cur->last_time = time;
    switch (te->kind) {
    case TL_FUNC:
        do_func(tl, rec, time);
        break;
    case TL_SYSCALL:
        do_syscall(tl, rec, time);
        break;
    case TL_SYSCALL_RET:
        do_syscall_ret(tl, rec, time);
        break;
    default:
        do_instant(tl, rec, tl->cur->id, time);
        break;
    }
    return tl->failed;
}

/* Streams closed in the order of their ids, so the output is stable. */
static gint cmp_id(gconstpointer a, gconstpointer b)
{
    uint32_t x = GPOINTER_TO_UINT(a);
    uint32_t y = GPOINTER_TO_UINT(b);

    return x < y ? -1 : x > y;
}

int timeline_finish(struct timeline *tl, struct qtrace_err *err)
{
    GList *ids = g_hash_table_get_keys(tl->streams);
    GList *l;

    tl->err = err;
    ids = g_list_sort(ids, cmp_id);
    for (l = ids; l && !tl->failed; l = l->next) {
        tl->cur = g_hash_table_lookup(tl->streams, l->data);
        close_syscall(tl, tl->cur, tl->cur->last_time);
        qtrace_callstack_close(&tl->cur->cs, tl->cur->last_time, &stack_ops,
                               tl);
    }
    g_list_free(ids);
    return tl->failed;
}

/* ---- set-up ---- */

static int find_arg(const struct qtrace_event_desc *ev, const char *name)
{
    unsigned int i;

    for (i = 0; ev && i < ev->n_args; i++) {
        if (strcmp(ev->args[i].name, name) == 0) {
            return (int)i;
        }
    }
    return -1;
}

static bool is_int_arg(const struct qtrace_event_desc *ev, int i)
{
    return i >= 0 && ev->args[i].type != QTRACE_ARG_STR &&
           ev->args[i].type != QTRACE_ARG_BYTES;
}

/* What each shown event becomes; whether any needs the symbols. */
static bool classify(struct timeline *tl, const struct qtrace_catalog *cat,
                     const bool *want)
{
    bool need_syms = false;
    unsigned int id;

    for (id = 1; id <= cat->n_events; id++) {
        const struct qtrace_event_desc *ev = &cat->events[id];
        struct tl_event *te = &tl->events[id];
        const char *colon = strchr(ev->name, ':');

        te->pc_arg = -1;
        if (id >= QTRACE_MAX_EVENTS || !want[id]) {
            continue;
        }
        te->hex = hex_args_find(ev);
        snprintf(te->cat, sizeof(te->cat), "%.*s",
                 colon ? (int)(colon - ev->name) : 5,
                 colon ? ev->name : "event");
        if (ev == tl->fe.entry || ev == tl->fe.exit) {
            te->kind = TL_FUNC;
            need_syms = true;
        } else if (ev == tl->sys) {
            te->kind = TL_SYSCALL;
        } else if (ev == tl->sys_ret) {
            te->kind = TL_SYSCALL_RET;
        } else {
            te->kind = TL_INSTANT;
            te->pc_arg = find_arg(ev, "pc");
            if (!is_int_arg(ev, te->pc_arg)) {
                te->pc_arg = -1;
            }
            need_syms |= te->pc_arg >= 0;
        }
    }
    return need_syms;
}

static void warn_symbols(void *arg, const char *msg)
{
    (void)arg;
    fprintf(stderr, "qtrace convert: %s (addresses shown in hex)\n", msg);
}

/* The program's base name, from the header. */
static void set_program(struct timeline *tl)
{
    const char *bin = qtrace_reader_meta(tl->rd, "binary");
    const char *slash = bin ? strrchr(bin, '/') : NULL;

    snprintf(tl->program, sizeof(tl->program), "%s",
             slash && slash[1] ? slash + 1 : bin && *bin ? bin : "guest");
}

/* Read only the chunks of the events shown (and what they need). */
static int select_shown(struct timeline *tl, struct qtrace_err *err)
{
    uint64_t sel[QTRACE_MAX_EVENTS / 64] = { 0 };
    unsigned int id;

    for (id = 1; id <= tl->n_events && id < QTRACE_MAX_EVENTS; id++) {
        if (tl->events[id].kind != TL_HIDDEN) {
            sel[id / 64] |= 1ull << (id % 64);
        }
    }
    return qtrace_reader_select(tl->rd, sel, err);
}

struct timeline *timeline_new(struct qtrace_reader *rd, const bool *want,
                              const struct timeline_ops *ops, void *arg,
                              struct qtrace_err *err)
{
    const struct qtrace_catalog *cat = qtrace_reader_catalog(rd);
    struct timeline *tl = calloc(1, sizeof(*tl));
    const char *arch = qtrace_reader_meta(rd, "arch");

    if (!tl || !(tl->events = calloc(cat->n_events + 1u,
                                     sizeof(*tl->events)))) {
        free(tl);
        qtrace_err_set(err, "%s", strerror(ENOMEM));
        return NULL;
    }
    tl->rd = rd;
    tl->ops = ops;
    tl->arg = arg;
    tl->n_events = cat->n_events;
    tl->streams = g_hash_table_new_full(NULL, NULL, NULL, free_stream);
    qtrace_func_events_find(&tl->fe, cat);
    tl->sys = qtrace_catalog_find(cat, "syscall");
    tl->sys_ret = qtrace_catalog_find(cat, "syscall_ret");
    tl->sys_num = find_arg(tl->sys, "num");
    tl->sr_num = find_arg(tl->sys_ret, "num");
    tl->sr_ret = find_arg(tl->sys_ret, "ret");
    if (!is_int_arg(tl->sys, tl->sys_num)) {
        tl->sys_num = -1;
    }
    if (!is_int_arg(tl->sys_ret, tl->sr_num)) {
        tl->sr_num = -1;
    }
    if (!is_int_arg(tl->sys_ret, tl->sr_ret)) {
        tl->sr_ret = -1;
    }
    tl->syscalls = qtrace_syscall_table_find(arch ? arch : "");
    /* Every stream on the host's clock when the trace has its stamps. */
    tl->host = qtrace_reader_has_timeline(rd) &&
               qtrace_reader_use_timeline(rd, err) == 0;
    set_program(tl);
    if (classify(tl, cat, want)) {
        tl->syms = qtrace_symbols_new();
        tl->names = calloc(NAME_CACHE_SLOTS, sizeof(*tl->names));
        if (!tl->syms || !tl->names ||
            qtrace_symbols_load_trace(tl->syms, rd, warn_symbols,
                                      NULL) < 0) {
            timeline_free(tl);
            qtrace_err_set(err, "guest symbols: %s", strerror(ENOMEM));
            return NULL;
        }
    }
    if (select_shown(tl, err) < 0) {
        timeline_free(tl);
        return NULL;
    }
    return tl;
}

void timeline_free(struct timeline *tl)
{
    if (!tl) {
        return;
    }
    g_hash_table_destroy(tl->streams);
    qtrace_symbols_free(tl->syms);
    free(tl->names);
    free(tl->events);
    free(tl);
}

const struct timeline_counts *timeline_counts(const struct timeline *tl)
{
    return &tl->counts;
}

const char *timeline_program(const struct timeline *tl)
{
    return tl->program;
}

bool timeline_is_host(const struct timeline *tl)
{
    return tl->host;
}

const char *const timeline_default_hidden[] = {
    "exec_tb", "exec_insn", "mem_access", "tb_trans", "tb_count", "order",
    "clock", NULL,
};

int timeline_check_shown(const struct timeline *tl, const char *trace_path,
                         struct qtrace_err *err)
{
    const struct timeline_counts *n = &tl->counts;

    if (n->slices == 0 && n->instants == 0) {
        qtrace_err_set(err, "%s: nothing to show (no record of the events "
                       "selected; blocks, instructions and accesses are "
                       "left out unless -e selects them)", trace_path);
        return -ENODATA;
    }
    if (n->slices == 0) {
        fprintf(stderr, "qtrace convert: %s: no function call or system "
                "call slices, %" PRIu64 " instants only (slices come from "
                "func_* and syscall* records)\n", trace_path, n->instants);
    }
    return 0;
}
