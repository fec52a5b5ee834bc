/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * qtrace replay: the guest's call tree from func_entry and func_exit
 * records, indented, with each call's duration in guest instructions, in
 * the layout of `uftrace replay`. One call stack per vCPU stream (its id
 * in the TID column); lines come in file order. Filters by function name
 * (-F, -N) and depth (-D).
 */
#include <errno.h>
#include <fnmatch.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "cli.h"
#include "guest-syms.h"
#include "qtrace/callstack.h"
#include "qtrace/reader.h"
#include "trace-end.h"

#define MAX_PATTERNS 32

struct replay_opts {
    const char *path;               /* trace file, required */
    const char *filter[MAX_PATTERNS];   /* -F: only these subtrees */
    size_t n_filter;
    const char *notrace[MAX_PATTERNS];  /* -N: hide these subtrees */
    size_t n_notrace;
    uint32_t max_depth;             /* -D: 0 = no limit */
    bool keep_plt;                  /* --keep-plt: show "name@plt" */
};

/* What replay decided about one open frame. */
struct frame_view {
    bool hidden;                    /* under a -N function */
    bool inside;                    /* at or under a -F function */
    uint32_t base;                  /* depth of the outermost -F frame */
    bool shown;
    char name[256];                 /* its function, see guest_syms_fmt */
};

/* One vCPU stream. */
struct rstream {
    uint32_t id;
    uint64_t last_time;
    struct qtrace_callstack cs;
    struct frame_view *views;       /* by depth - 1, parallel to cs */
    uint32_t cap_views;
    int32_t pending;                /* depth of a shown frame whose line
                                       waits for its first child, or -1 */
};

struct replay {
    const struct replay_opts *opts;
    struct qtrace_reader *rd;
    struct qtrace_symbols *syms;
    struct qtrace_func_events fe;
    GHashTable *streams;            /* stream id -> struct rstream */
    struct rstream *cur;            /* the stream of the record at hand */
    uint64_t n_func;                /* func_entry and func_exit records */
    uint64_t n_shown;               /* frames shown */
    bool oom;
};

static const char usage[] =
    "usage: qtrace replay [-F NAME]... [-N NAME]... [-D N] [--keep-plt]\n"
    "                     [--symbols FILE[@ADDR]]... FILE\n"
    "\n"
    "Print the guest's call tree from the func_entry and func_exit\n"
    "records of the trace FILE, like 'uftrace replay': one line per\n"
    "call, indented by depth, with its duration in guest instructions;\n"
    "TID is the vCPU stream.\n"
    "\n"
    "Options:\n"
    "  -F, --filter=NAME   only the calls of NAME and what they call\n"
    "                      (glob; repeatable)\n"
    "  -N, --notrace=NAME  hide the calls of NAME and what they call\n"
    "                      (glob; repeatable)\n"
    "  -D, --depth=N       only N levels of calls (below -F functions)\n"
    "      --keep-plt      show a call through a PLT stub as name@plt\n"
    "                      (default: as the function's name)\n"
    GUEST_SYMS_HELP
    "  -h, --help          print this help and exit\n";

enum { OPT_KEEP_PLT = 256, OPT_SYMBOLS };

static const struct option long_opts[] = {
    { "filter", required_argument, NULL, 'F' },
    { "notrace", required_argument, NULL, 'N' },
    { "depth", required_argument, NULL, 'D' },
    { "keep-plt", no_argument, NULL, OPT_KEEP_PLT },
    { "symbols", required_argument, NULL, OPT_SYMBOLS },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 },
};

static int add_pattern(const char **list, size_t *n, const char *p)
{
    if (*n >= MAX_PATTERNS) {
        return cli_usage("replay", "%s: at most %d patterns per option", p,
                         MAX_PATTERNS);
    }
    list[(*n)++] = p;
    return CLI_OK;
}

static int parse_depth(const char *value, uint32_t *out)
{
    char *end;
    unsigned long n;

    errno = 0;
    n = strtoul(value, &end, 10);
    if (value[0] < '0' || value[0] > '9' || *end || errno || n == 0 ||
        n > UINT32_MAX) {
        return cli_usage("replay", "--depth=%s: expected a number from 1",
                         value);
    }
    *out = (uint32_t)n;
    return CLI_OK;
}

static int parse_opts(int argc, char **argv, struct replay_opts *opts)
{
    int c, ret = CLI_OK;

    optind = 1;
    guest_syms_options_reset();
    while (ret == CLI_OK &&
           (c = getopt_long(argc, argv, "+:F:N:D:h", long_opts, NULL)) != -1) {
        switch (c) {
        case 'F':
            ret = add_pattern(opts->filter, &opts->n_filter, optarg);
            break;
        case 'N':
            ret = add_pattern(opts->notrace, &opts->n_notrace, optarg);
            break;
        case 'D':
            ret = parse_depth(optarg, &opts->max_depth);
            break;
        case OPT_KEEP_PLT:
            opts->keep_plt = true;
            break;
        case OPT_SYMBOLS:
            ret = guest_syms_option("replay", optarg);
            break;
        case 'h':
            fputs(usage, stdout);
            return CLI_HELP;
        default:
            return cli_bad_option("replay", c, argv);
        }
    }
    if (ret != CLI_OK) {
        return ret;
    }
    if (argc - optind != 1) {
        return cli_usage("replay", "expected one trace FILE");
    }
    opts->path = argv[optind];
    return CLI_OK;
}

static bool matches(const char *const *pats, size_t n, const char *name)
{
    size_t i;

    for (i = 0; i < n; i++) {
        if (fnmatch(pats[i], name, 0) == 0) {
            return true;
        }
    }
    return false;
}

static void free_stream(void *p)
{
    struct rstream *st = p;

    qtrace_callstack_fini(&st->cs);
    free(st->views);
    free(st);
}

static struct rstream *stream_of(struct replay *r, uint32_t id)
{
    struct rstream *st = g_hash_table_lookup(r->streams,
                                             GUINT_TO_POINTER(id));

    if (st) {
        return st;
    }
    st = calloc(1, sizeof(*st));
    if (!st) {
        return NULL;
    }
    st->id = id;
    st->pending = -1;
    qtrace_callstack_init(&st->cs);
    g_hash_table_insert(r->streams, GUINT_TO_POINTER(id), st);
    return st;
}

/* One output line: duration column (blank if none), tid, indented text. */
static void print_line(const struct rstream *st, const char *dur,
                       uint32_t indent, const char *text, const char *tail)
{
    printf("%10s [%6u] | %*s%s%s\n", dur, st->id, (int)(2 * indent), "",
           text, tail);
}

static uint32_t indent_of(const struct frame_view *v, uint32_t depth)
{
    return depth - 1 - v->base;
}

/* The shown frame waiting for its first child gets its "name() {" line. */
static void flush_pending(struct rstream *st)
{
    const struct frame_view *v;

    if (st->pending < 1) {
        return;
    }
    v = &st->views[st->pending - 1];
    print_line(st, "", indent_of(v, (uint32_t)st->pending), v->name,
               "() {");
    st->pending = -1;
}

/* Decide about the new frame at depth from its parent's view. */
static void view_frame(struct replay *r, struct frame_view *v,
                       const struct frame_view *parent, const char *name,
                       uint32_t depth)
{
    const struct replay_opts *o = r->opts;

    v->hidden = (parent && parent->hidden) ||
                matches(o->notrace, o->n_notrace, name);
    v->inside = o->n_filter == 0 || (parent && parent->inside);
    v->base = parent ? parent->base : 0;
    if (!v->inside && matches(o->filter, o->n_filter, name)) {
        v->inside = true;
        v->base = depth - 1;
    }
    v->shown = !v->hidden && v->inside &&
               (o->max_depth == 0 || indent_of(v, depth) < o->max_depth);
}

static void on_enter(void *arg, const struct qtrace_frame *f, uint32_t depth)
{
    struct replay *r = arg;
    struct rstream *st = r->cur;
    struct frame_view *v;

    if (depth > st->cap_views) {
        uint32_t cap = st->cap_views ? 2 * st->cap_views : 64;
        void *grown = realloc(st->views, cap * sizeof(*st->views));

        if (!grown) {
            r->oom = true;
            return;
        }
        st->views = grown;
        st->cap_views = cap;
    }
    /* One lookup per frame: its lines reuse it. */
    v = &st->views[depth - 1];
    guest_syms_fn_name(r->syms, f->pc, r->opts->keep_plt, v->name,
                       sizeof(v->name));
    view_frame(r, v, depth > 1 ? &st->views[depth - 2] : NULL, v->name,
               depth);
    if (v->shown) {
        /* The header waits for a first line: an empty tree has none. */
        if (r->n_shown++ == 0) {
            printf("#    INSNS     TID     FUNCTION\n");
        }
        flush_pending(st);
        st->pending = (int32_t)depth;
    }
}

static void on_leave(void *arg, const struct qtrace_frame *f, uint32_t depth,
                     uint64_t time, bool forced)
{
    struct replay *r = arg;
    struct rstream *st = r->cur;
    const struct frame_view *v = &st->views[depth - 1];
    char text[300], dur[32];
    const char *name;

    (void)forced;
    if (depth > st->cap_views || !v->shown) {
        return;
    }
    name = v->name;
    snprintf(dur, sizeof(dur), "%" PRIu64, time - f->start);
    if (st->pending == (int32_t)depth) {
        /* No shown child: a leaf, one line. */
        print_line(st, dur, indent_of(v, depth), name, "();");
        st->pending = -1;
        return;
    }
    flush_pending(st);
    snprintf(text, sizeof(text), "} /* %s */", name);
    print_line(st, dur, indent_of(v, depth), text, "");
}

static const struct qtrace_callstack_ops replay_ops = { on_enter, on_leave };

static gint cmp_stream(gconstpointer a, gconstpointer b)
{
    const struct rstream *sa = *(const struct rstream *const *)a;
    const struct rstream *sb = *(const struct rstream *const *)b;

    return sa->id < sb->id ? -1 : sa->id > sb->id;
}

/* Close what each stream left open, at its last record's time. */
static void close_streams(struct replay *r)
{
    GHashTableIter it;
    gpointer key, value;
    GPtrArray *order = g_ptr_array_new();
    guint i;

    g_hash_table_iter_init(&it, r->streams);
    while (g_hash_table_iter_next(&it, &key, &value)) {
        g_ptr_array_add(order, value);
    }
    g_ptr_array_sort(order, cmp_stream);
    for (i = 0; i < order->len; i++) {
        r->cur = g_ptr_array_index(order, i);
        qtrace_callstack_close(&r->cur->cs, r->cur->last_time, &replay_ops,
                               r);
    }
    g_ptr_array_free(order, TRUE);
}

/* The one line of an empty tree, saying why it is empty. */
static void print_none(const struct replay *r)
{
    if (r->n_func == 0) {
        printf("calls: none (no func_entry records; record them with "
               "-e 'func_*')\n");
    } else {
        printf("calls: none (%" PRIu64 " function records, none left by "
               "-F, -N and -D)\n", r->n_func);
    }
}

static int replay_records(struct replay *r, const char *path)
{
    struct qtrace_record rec;
    struct qtrace_err err;
    int ret;

    while ((ret = qtrace_reader_next(r->rd, &rec, &err)) > 0) {
        if (rec.vcpu == QTRACE_VCPU_NONE) {
            continue;
        }
        r->n_func += rec.ev == r->fe.entry || rec.ev == r->fe.exit;
        r->cur = stream_of(r, rec.stream);
        if (!r->cur || qtrace_callstack_feed(&r->cur->cs, &r->fe, &rec,
                                             &replay_ops, r) < 0 || r->oom) {
            cli_error("replay", "%s: out of memory", path);
            return CLI_FAIL;
        }
        r->cur->last_time = rec.time;
    }
    close_streams(r);
    if (r->n_shown == 0) {
        print_none(r);
    }
    if (ret < 0) {
        fflush(stdout);
        cli_error("replay", "%s: %s", path, err.msg);
        return CLI_FAIL;
    }
    ret = trace_end_check("replay", path, r->rd);
    return r->n_shown ? ret : CLI_FAIL;
}

static int run_replay(struct replay *r)
{
    const char *path = r->opts->path;
    struct qtrace_err err;

    if (qtrace_reader_open(path, &r->rd, &err) < 0) {
        cli_error("replay", "%s: %s", path, err.msg);
        return CLI_FAIL;
    }
    qtrace_func_events_find(&r->fe, qtrace_reader_catalog(r->rd));
    if (!r->fe.entry || !r->fe.exit) {
        cli_error("replay", "%s: no func_entry and func_exit events in its "
                  "catalog (recorded by an older qtrace)", path);
        return CLI_FAIL;
    }
    r->syms = guest_syms_load(r->rd, "replay");
    if (!r->syms) {
        return CLI_FAIL;
    }
    r->streams = g_hash_table_new_full(NULL, NULL, NULL, free_stream);
    return replay_records(r, path);
}

int cmd_replay(int argc, char **argv)
{
    struct replay_opts opts;
    struct replay r;
    int ret;

    memset(&opts, 0, sizeof(opts));
    memset(&r, 0, sizeof(r));
    ret = parse_opts(argc, argv, &opts);
    if (ret != CLI_OK) {
        return ret;
    }
    r.opts = &opts;
    ret = run_replay(&r);
    if (r.streams) {
        g_hash_table_destroy(r.streams);
    }
    qtrace_symbols_free(r.syms);
    qtrace_reader_close(r.rd);
    return ret;
}
