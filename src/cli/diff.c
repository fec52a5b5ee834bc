/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * qtrace diff A B: where two traces of the same program first part.
 * The vCPU streams of each trace, in the order they started (stream
 * id), are paired one to one; each pair is read side by side, one
 * reader per trace (diff-stream.c), so that memory stays bounded
 * however long the traces are. For each pair that differs, the first
 * records that differ are printed with the records in common before
 * them, named after the guest's symbols; then how much of each stream
 * the two have in common. Status as cmp's: 0 identical, 1 different,
 * 2 trouble (misuse, a file that cannot be read, a trace that stops
 * inside a chunk).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "cli.h"
#include "diff-stream.h"
#include "guest-syms.h"
#include "progress.h"
#include "qtrace/format.h"
#include "trace-end.h"

#define CONTEXT_DEFAULT 5
#define CONTEXT_MAX 100000

enum { OPT_SYMBOLS = 256 };

struct diff_opts {
    const char *path[2];            /* A and B */
    unsigned long context;          /* -C: records in common shown */
    unsigned int kinds;             /* -c: DIFF_* bits */
    bool kinds_given;               /* -c was given */
    bool quiet;                     /* -q: the status only */
};

/* A vCPU stream of a trace, from its index. */
struct stream_info {
    uint32_t stream, vcpu;
    uint64_t chunks;                /* its DATA chunks */
    uint64_t insns;                 /* instructions it ran, 0: unknown */
};

/* One trace: its reader, streams, symbols, what it recorded. */
struct trace {
    struct diff_side side;
    GArray *streams;                /* struct stream_info, by stream id */
    uint64_t trans_chunks;          /* chunks of the translation stream */
    uint64_t events[QTRACE_MAX_EVENTS / 64];    /* events it holds */
    uint64_t size;                  /* bytes */
    struct qtrace_symbols *syms;
};

/* Chunks read by both readers, for the progress bar. */
static struct {
    uint64_t done, total;
} work;

static void print_usage(void)
{
    printf("usage: qtrace diff [-C N] [-c KINDS] [-q] "
           "[--symbols FILE[@ADDR]]... A B\n"
           "\n"
           "Where the traces A and B of one program first part. Their "
           "vCPU\n"
           "streams are paired in the order they started; for each pair "
           "that\n"
           "differs, the first records that differ ('-' A's, '+' B's) "
           "follow\n"
           "the last records in common, then a summary of what each "
           "stream has\n"
           "in common. Exit status: 0 identical, 1 different, 2 "
           "trouble.\n"
           "\n"
           "Options:\n"
           "  -C, --context=N     records in common shown before a "
           "difference\n"
           "                      (default %d)\n"
           "  -c, --compare=KINDS what to compare, comma separated: "
           "blocks\n"
           "                      (exec_tb), mem (mem_access), syscalls\n"
           "                      (default: each that both traces "
           "recorded)\n"
           "  -q, --quiet         print nothing; the status says it\n"
           GUEST_SYMS_HELP
           "  -h, --help          print this help and exit\n",
           CONTEXT_DEFAULT);
}

/* "blocks,mem,syscalls" into DIFF_* bits; 0 for a bad list. */
static unsigned int parse_kinds(const char *list)
{
    static const struct { const char *name; unsigned int bit; } kinds[] = {
        { "blocks", DIFF_BLOCKS }, { "mem", DIFF_MEM },
        { "syscalls", DIFF_SYSCALLS },
    };
    gchar **words = g_strsplit(list, ",", -1);
    unsigned int bits = 0, i, j;

    for (i = 0; words[i]; i++) {
        for (j = 0; j < 3 && strcmp(words[i], kinds[j].name) != 0; j++) {
        }
        if (j == 3) {
            bits = 0;
            break;
        }
        bits |= kinds[j].bit;
    }
    g_strfreev(words);
    return bits;
}

static int parse_opts(int argc, char **argv, struct diff_opts *opts)
{
    static const struct option long_opts[] = {
        { "context", required_argument, NULL, 'C' },
        { "compare", required_argument, NULL, 'c' },
        { "quiet", no_argument, NULL, 'q' },
        { "symbols", required_argument, NULL, OPT_SYMBOLS },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    char *end;
    int c;

    optind = 1;
    guest_syms_options_reset();
    while ((c = getopt_long(argc, argv, "+:C:c:qh", long_opts, NULL)) != -1) {
        switch (c) {
        case 'C':
            opts->context = strtoul(optarg, &end, 10);
            if (end == optarg || *end || optarg[0] == '-' ||
                opts->context > CONTEXT_MAX) {
                return cli_usage("diff", "-C %s: expected a count from 0 "
                                 "to %d", optarg, CONTEXT_MAX);
            }
            break;
        case 'c':
            opts->kinds = parse_kinds(optarg);
            opts->kinds_given = true;
            if (!opts->kinds) {
                return cli_usage("diff", "-c %s: expected blocks, mem or "
                                 "syscalls, comma separated", optarg);
            }
            break;
        case 'q':
            opts->quiet = true;
            break;
        case OPT_SYMBOLS:
            if (guest_syms_option("diff", optarg) != CLI_OK) {
                return CLI_USAGE;
            }
            break;
        case 'h':
            print_usage();
            return CLI_HELP;
        default:
            return cli_bad_option("diff", c, argv);
        }
    }
    if (argc - optind != 2) {
        return cli_usage("diff", "expected two traces, A and B");
    }
    opts->path[0] = argv[optind];
    opts->path[1] = argv[optind + 1];
    return CLI_OK;
}

static gint cmp_stream(gconstpointer a, gconstpointer b)
{
    const struct stream_info *x = a, *y = b;

    return (x->stream > y->stream) - (x->stream < y->stream);
}

/* Each DATA chunk of the index: its stream's counts, the events held. */
static void note_chunk(void *arg, const struct qtrace_chunk_entry *e)
{
    struct trace *t = arg;
    struct stream_info *si = NULL;
    guint i;

    for (i = 0; i < QTRACE_MAX_EVENTS / 64; i++) {
        t->events[i] |= e->events[i];
    }
    if (e->vcpu == QTRACE_VCPU_NONE) {
        t->trans_chunks++;
        return;
    }
    /* Chunks of a stream come close together: look from the end. */
    for (i = t->streams->len; i-- > 0 && !si;) {
        if (g_array_index(t->streams, struct stream_info, i).stream ==
            e->stream) {
            si = &g_array_index(t->streams, struct stream_info, i);
        }
    }
    if (!si) {
        struct stream_info n = { e->stream, e->vcpu, 0, 0 };

        g_array_append_val(t->streams, n);
        si = &g_array_index(t->streams, struct stream_info,
                            t->streams->len - 1);
    }
    si->chunks++;
    if (e->insns > si->insns) {
        si->insns = e->insns;
    }
}

static void on_chunk(void *arg, uint64_t offset, uint64_t size)
{
    (void)arg;
    if (offset < size && work.done + 1 < work.total) {
        work.done++;
    }
    progress_update(work.done, work.total);
}

/* Open path into t: reader, catalog map, streams, symbols. */
static int open_trace(struct trace *t, const char *path)
{
    struct qtrace_err err = { "" };

    memset(t, 0, sizeof(*t));
    t->side.path = path;
    t->streams = g_array_new(FALSE, TRUE, sizeof(struct stream_info));
    if (qtrace_reader_open(path, &t->side.rd, &err) < 0) {
        cli_error("diff", "%s: %s", path, err.msg);
        return CLI_USAGE;
    }
    diff_side_map(&t->side);
    qtrace_reader_offset(t->side.rd, &t->size);
    if (qtrace_reader_chunks(t->side.rd, note_chunk, t, &err) < 0) {
        cli_error("diff", "%s: %s", path, err.msg);
        return CLI_USAGE;
    }
    g_array_sort(t->streams, cmp_stream);
    t->syms = guest_syms_load(t->side.rd, "diff");
    return t->syms ? CLI_OK : CLI_USAGE;
}

static void close_trace(struct trace *t)
{
    qtrace_symbols_free(t->syms);
    qtrace_reader_close(t->side.rd);
    if (t->streams) {
        g_array_free(t->streams, TRUE);
    }
}

static bool holds(const struct trace *t, uint16_t id)
{
    return id && (t->events[id / 64] >> (id % 64)) & 1;
}

/* The kinds trace t recorded (DIFF_* bits). */
static unsigned int recorded(const struct trace *t)
{
    const struct diff_side *s = &t->side;

    return (holds(t, s->id_tb) ? DIFF_BLOCKS : 0) |
           (holds(t, s->id_mem) ? DIFF_MEM : 0) |
           (holds(t, s->id_sys) || holds(t, s->id_ret) ? DIFF_SYSCALLS : 0);
}

static const char *kind_name(unsigned int bit)
{
    return bit == DIFF_BLOCKS ? "blocks" : bit == DIFF_MEM
           ? "memory accesses" : "system calls";
}

/*
 * What is compared: what was asked (or everything), recorded by both.
 * 0 after saying why when nothing is left.
 */
static unsigned int choose_kinds(const struct diff_opts *opts,
                                 const struct trace t[2])
{
    unsigned int want = opts->kinds_given ? opts->kinds
                        : DIFF_BLOCKS | DIFF_MEM | DIFF_SYSCALLS;
    unsigned int both = recorded(&t[0]) & recorded(&t[1]);
    unsigned int bit;
    int i;

    for (bit = DIFF_BLOCKS; bit <= DIFF_SYSCALLS; bit <<= 1) {
        if (!(want & bit) || (both & bit)) {
            continue;
        }
        for (i = 0; i < 2; i++) {
            if (!(recorded(&t[i]) & bit) &&
                (opts->kinds_given || (recorded(&t[1 - i]) & bit))) {
                cli_error("diff", "%s: no %s recorded, not compared",
                          t[i].side.path, kind_name(bit));
            }
        }
    }
    if (!(want & both) && opts->kinds_given) {
        cli_error("diff", "nothing to compare: no kind -c names is "
                  "recorded in both traces");
    } else if (!(want & both)) {
        cli_error("diff", "nothing to compare: the traces have no blocks, "
                  "memory accesses or system calls recorded in both "
                  "(record them with -e exec_tb,mem_access,syscall*)");
    }
    return want & both;
}

/* An item as dump shows its record, with the symbol of its pc. */
static void print_item(FILE *out, char mark, const struct trace *t,
                       const struct diff_item *it)
{
    char sym[512];
    const char *name;
    unsigned int f;

    fprintf(out, "%c %12" PRIu64 " ", mark, it->time);
    switch (it->kind) {
    case DIFF_ITEM_BLOCK:
        fprintf(out, "exec_tb pc 0x%" PRIx64 " | %s\n", it->pc,
                guest_syms_fmt(t->syms, it->pc, true, sym, sizeof(sym)));
        break;
    case DIFF_ITEM_MEM:
        f = (unsigned int)it->v[3];
        fprintf(out, "mem_access pc 0x%" PRIx64 " vaddr 0x%" PRIx64, it->pc,
                it->v[0]);
        if (f & QTRACE_MEM_HAS_PADDR) {
            fprintf(out, " paddr 0x%" PRIx64, it->v[1]);
        }
        fprintf(out, " size %" PRIu64 " %s%s%s | %s\n", it->v[2],
                f & QTRACE_MEM_STORE ? "store" : "load",
                f & QTRACE_MEM_SIGNED ? " sext" : "",
                f & QTRACE_MEM_BIG_ENDIAN ? " be" : "",
                guest_syms_fmt(t->syms, it->pc, true, sym, sizeof(sym)));
        break;
    case DIFF_ITEM_SYSCALL:
        name = qtrace_syscall_name(t->side.sc, (int64_t)it->v[0]);
        fprintf(out, "syscall num %" PRId64 " args 0x%" PRIx64 " 0x%" PRIx64
                " 0x%" PRIx64 " 0x%" PRIx64 " 0x%" PRIx64 " 0x%" PRIx64
                " | %s\n", (int64_t)it->v[0], it->v[1], it->v[2], it->v[3],
                it->v[4], it->v[5], it->v[6], name ? name : "?");
        break;
    case DIFF_ITEM_SYSRET:
        name = qtrace_syscall_name(t->side.sc, (int64_t)it->v[0]);
        fprintf(out, "syscall_ret num %" PRId64 " ret %" PRId64 " | %s\n",
                (int64_t)it->v[0], (int64_t)it->v[1], name ? name : "?");
        break;
    }
}

static void print_pair_name(FILE *out, const struct stream_info *a,
                            const struct stream_info *b)
{
    fprintf(out, "stream %" PRIu32 " (vcpu %" PRIu32 ") / stream %" PRIu32
            " (vcpu %" PRIu32 ")", a->stream, a->vcpu, b->stream, b->vcpu);
}

/* The first difference of a pair, after its context. */
static void print_difference(FILE *out, const struct trace t[2],
                             const struct stream_info *sa,
                             const struct stream_info *sb,
                             const struct diff_ring *ctx,
                             const struct diff_result *r)
{
    size_t i;

    fputs("\n@@ ", out);
    print_pair_name(out, sa, sb);
    fprintf(out, ": they part after %" PRIu64 " records in common @@\n",
            r->records);
    for (i = 0; i < ctx->n; i++) {
        print_item(out, ' ', &t[0], diff_ring_get(ctx, i));
    }
    if (r->a_ended) {
        fprintf(out, "- (end of %s's stream %" PRIu32 ")\n",
                t[0].side.path, sa->stream);
    } else {
        print_item(out, '-', &t[0], &r->a);
    }
    if (r->b_ended) {
        fprintf(out, "+ (end of %s's stream %" PRIu32 ")\n",
                t[1].side.path, sb->stream);
    } else {
        print_item(out, '+', &t[1], &r->b);
    }
}

/* " 12.34% of A's N instructions" when the stream's total is known. */
static void print_share(FILE *out, const char *path, uint64_t part,
                        uint64_t whole, const char *sep)
{
    if (whole) {
        fprintf(out, "%s%.2f%% of %s's %" PRIu64, sep,
                100.0 * (double)(part < whole ? part : whole) /
                (double)whole, path, whole);
    } else {
        fprintf(out, "%s%s's total not known (no index)", sep, path);
    }
}

static void print_summary_line(FILE *out, const struct trace t[2],
                               const struct stream_info *sa,
                               const struct stream_info *sb,
                               const struct diff_result *r)
{
    fputs("  ", out);
    print_pair_name(out, sa, sb);
    if (!r->differ) {
        fprintf(out, ": identical, %" PRIu64 " records, %" PRIu64 " blocks, %"
                PRIu64 " instructions\n", r->records, r->blocks, r->insns);
        return;
    }
    fprintf(out, ": %" PRIu64 " records, %" PRIu64 " blocks, %" PRIu64
            " instructions in common:", r->records, r->blocks, r->insns);
    print_share(out, t[0].side.path, r->insns, sa->insns, " ");
    print_share(out, t[1].side.path, r->insns, sb->insns, ", ");
    fputs("\n", out);
}

static void print_header(FILE *out, const struct trace t[2],
                         unsigned int kinds)
{
    static const char marks[] = "-+";
    unsigned int bit;
    const char *sep = "";
    int i;

    for (i = 0; i < 2; i++) {
        const char *bin = qtrace_reader_meta(t[i].side.rd, "binary");
        const char *arch = qtrace_reader_meta(t[i].side.rd, "arch");

        fprintf(out, "%c%c%c %s (%s, %s, %u stream%s)\n", marks[i],
                marks[i], marks[i], t[i].side.path, bin ? bin : "?",
                arch ? arch : "?", t[i].streams->len,
                t[i].streams->len == 1 ? "" : "s");
    }
    fputs("compared: ", out);
    for (bit = DIFF_BLOCKS; bit <= DIFF_SYSCALLS; bit <<= 1) {
        if (kinds & bit) {
            fprintf(out, "%s%s", sep, kind_name(bit));
            sep = ", ";
        }
    }
    fputs("\n", out);
}

/* Chunks the readers will enter, for the progress bar. */
static uint64_t estimate_work(const struct trace t[2], guint pairs)
{
    uint64_t n = 0;
    guint i;
    int k;

    for (k = 0; k < 2; k++) {
        for (i = 0; i < pairs; i++) {
            n += g_array_index(t[k].streams, struct stream_info, i).chunks +
                 t[k].trans_chunks;
        }
    }
    return n + 1;
}

/* Compare every pair; 0 identical, 1 different, 2 a trace failed. */
static int compare_all(const struct diff_opts *opts, struct trace t[2],
                       unsigned int kinds, FILE *out)
{
    guint pairs = MIN(t[0].streams->len, t[1].streams->len), i;
    struct diff_result *res = g_new0(struct diff_result, pairs + 1);
    struct diff_ring ctx = { g_new(struct diff_item, opts->context + 1),
                             opts->context, 0, 0 };
    struct diff_ids ids = { .n = 0 };
    struct qtrace_err err = { "" };
    bool differ = t[0].streams->len != t[1].streams->len;
    int ret = 0;

    work.done = 0;
    work.total = estimate_work(t, pairs);
    for (i = 0; i < pairs && ret == 0; i++) {
        const struct stream_info *sa =
            &g_array_index(t[0].streams, struct stream_info, i);
        const struct stream_info *sb =
            &g_array_index(t[1].streams, struct stream_info, i);

        ret = diff_stream_run(&t[0].side, sa->stream, &t[1].side, sb->stream,
                              kinds, &ctx, &ids, &res[i], &err);
        if (ret < 0) {
            progress_end();
            cli_error("diff", "%s", err.msg);
            ret = 2;
            break;
        }
        if (!res[i].differ) {
            /* The whole stream: its end, not its last record compared. */
            res[i].insns = MAX(res[i].insns, sa->insns);
        }
        differ |= res[i].differ;
        if (res[i].differ && !opts->quiet) {
            progress_erase();
            fflush(stderr);
            print_difference(out, t, sa, sb, &ctx, &res[i]);
            fflush(out);
        }
    }
    progress_end();
    if (ret == 0 && !opts->quiet) {
        fputs("\nsummary:\n", out);
        for (i = 0; i < pairs; i++) {
            print_summary_line(out, t,
                               &g_array_index(t[0].streams,
                                              struct stream_info, i),
                               &g_array_index(t[1].streams,
                                              struct stream_info, i),
                               &res[i]);
        }
        for (int k = 0; k < 2; k++) {
            for (i = pairs; i < t[k].streams->len; i++) {
                const struct stream_info *s =
                    &g_array_index(t[k].streams, struct stream_info, i);

                fprintf(out, "  stream %" PRIu32 " (vcpu %" PRIu32 ") of %s:"
                        " no counterpart in %s (%u streams)\n", s->stream,
                        s->vcpu, t[k].side.path, t[1 - k].side.path,
                        t[1 - k].streams->len);
            }
        }
        fprintf(out, "the traces %s\n", differ ? "differ" : "are identical");
    }
    g_free(ctx.items);
    g_free(res);
    return ret ? ret : differ ? 1 : 0;
}

int cmd_diff(int argc, char **argv)
{
    struct diff_opts opts = { .context = CONTEXT_DEFAULT };
    struct trace t[2];
    unsigned int kinds;
    int ret = parse_opts(argc, argv, &opts), i;

    if (ret != CLI_OK) {
        return ret;
    }
    memset(t, 0, sizeof(t));
    for (i = 0; i < 2 && ret == CLI_OK; i++) {
        ret = open_trace(&t[i], opts.path[i]);
    }
    kinds = ret == CLI_OK ? choose_kinds(&opts, t) : 0;
    if (ret == CLI_OK && kinds == 0) {
        ret = CLI_USAGE;
    }
    if (ret == CLI_OK) {
        if (!opts.quiet) {
            print_header(stdout, t, kinds);
        }
        if (progress_begin("diff", t[0].size + t[1].size)) {
            qtrace_reader_set_progress(t[0].side.rd, on_chunk, NULL);
            qtrace_reader_set_progress(t[1].side.rd, on_chunk, NULL);
        }
        ret = compare_all(&opts, t, kinds, stdout);
        /*
         * A trace without END (it has no index of its own either): said,
         * but the comparison stands.
         */
        for (i = 0; i < 2 && ret != 2; i++) {
            if (!qtrace_reader_index(t[i].side.rd) &&
                trace_end_check("diff", opts.path[i], t[i].side.rd) ==
                CLI_FAIL) {
                ret = 2;
            }
        }
    }
    for (i = 0; i < 2; i++) {
        close_trace(&t[i]);
    }
    return ret;
}
