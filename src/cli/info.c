/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * qtrace info: print a trace's header (META keys), its shape (chunks,
 * vCPU streams, whether it ends with its END chunk) and one count per
 * event, optionally per vCPU stream. Uses the public reader API only.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <signal.h>

#include <glib.h>

#include "cli.h"
#include "simpletrace.h"
#include "progress.h"
#include "qtrace/reader.h"
#include "trace-end.h"

struct info_opts {
    const char *path;               /* trace file, required */
    bool per_cpu;                   /* --per-cpu: split counts by stream */
};

/* One vCPU stream: the records of one vCPU lifetime. */
struct stream {
    gint64 key;                     /* vcpu << 32 | stream, the hash key */
    uint32_t vcpu;
    uint32_t stream;
    uint64_t *counts;               /* by event id; only with --per-cpu */
    uint64_t insns;                 /* guest instructions it ran */
};

struct counts {
    uint64_t by_id[QTRACE_MAX_EVENTS];  /* records per event id */
    uint64_t total;
    uint64_t last_seq;              /* chunk of the last record seen */
    GHashTable *streams;            /* key -> struct stream */
    struct stream *cur;             /* stream of the last record */
    bool exact_insns;               /* insns from the trace's index */
    bool stopped;                   /* the trace stops early */
    struct qtrace_err err;          /* why, when stopped */
};

static const char usage[] =
    "usage: qtrace info [--per-cpu] FILE\n"
    "\n"
    "Print the header of the trace FILE, its chunks, vCPU streams and\n"
    "whether it is complete, then how many records each event has.\n"
    "\n"
    "Options:\n"
    "  -p, --per-cpu  also print the counts of each vCPU stream\n"
    "  -h, --help     print this help and exit\n";

static const struct option long_opts[] = {
    { "per-cpu", no_argument, NULL, 'p' },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 },
};

static int parse_opts(int argc, char **argv, struct info_opts *opts)
{
    int c;

    opterr = 0;
    while ((c = getopt_long(argc, argv, ":ph", long_opts, NULL)) != -1) {
        switch (c) {
        case 'p':
            opts->per_cpu = true;
            break;
        case 'h':
            fputs(usage, stdout);
            return CLI_HELP;
        default:
            return cli_bad_option("info", c, argv);
        }
    }
    if (optind >= argc) {
        return cli_usage("info", "missing trace FILE");
    }
    if (argc - optind > 1) {
        return cli_usage("info", "%s: one trace FILE only", argv[optind + 1]);
    }
    opts->path = argv[optind];
    return CLI_OK;
}

static void print_meta(const char *key, const char *value, void *arg)
{
    (void)arg;
    printf("%s: %s\n", key, value);
}

static void print_header(const struct qtrace_reader *rd, const char *path)
{
    struct stat st;

    printf("file: %s\n", path);
    if (stat(path, &st) == 0) {
        printf("bytes: %lld\n", (long long)st.st_size);
    }
    qtrace_reader_meta_each(rd, print_meta, NULL);
}

static void free_stream(void *p)
{
    struct stream *s = p;

    free(s->counts);
    free(s);
}

/* The stream of rec, added on first sight; NULL when out of memory. */
static struct stream *find_stream(struct counts *c, uint32_t vcpu,
                                  uint32_t stream, bool per_cpu,
                                  unsigned int n_events)
{
    gint64 key = (gint64)((uint64_t)vcpu << 32 | stream);
    struct stream *s;

    if (c->cur && c->cur->key == key) {
        return c->cur;
    }
    s = g_hash_table_lookup(c->streams, &key);
    if (s) {
        return s;
    }
    s = calloc(1, sizeof(*s));
    if (!s) {
        return NULL;
    }
    s->key = key;
    s->vcpu = vcpu;
    s->stream = stream;
    if (per_cpu) {
        /* A stream per chunk at worst: sized by the catalog, not more. */
        s->counts = calloc(n_events + 1u, sizeof(*s->counts));
        if (!s->counts) {
            free(s);
            return NULL;
        }
    }
    g_hash_table_insert(c->streams, &s->key, s);
    return s;
}

/*
 * A stream's instructions: the count the index gives for its last chunk,
 * which is the vCPU's at the end; without an index, the latest time of a
 * record (blocks, packed, are not expanded: it is then a lower bound).
 */
static void note_insns(struct stream *s, const struct qtrace_chunk_count *cc)
{
    if (cc->insns > s->insns) {
        s->insns = cc->insns;
    }
    if (cc->last_time > s->insns) {
        s->insns = cc->last_time;
    }
}

/*
 * Count every record, a chunk at a time without expanding packed blocks;
 * CLI_FAIL only when out of memory.
 */
static int count_records(struct qtrace_reader *rd, struct counts *c,
                         bool per_cpu, const char *path)
{
    const struct qtrace_catalog *cat = qtrace_reader_catalog(rd);
    uint64_t chunk[QTRACE_MAX_EVENTS];
    struct qtrace_chunk_count cc;
    unsigned int id;
    int ret;

    memset(chunk, 0, sizeof(chunk));
    while ((ret = qtrace_reader_count_chunk(rd, chunk, &cc, &c->err)) > 0) {
        if (cc.records == 0) {
            continue;
        }
        c->cur = find_stream(c, cc.vcpu, cc.stream, per_cpu,
                             cat->n_events);
        if (!c->cur) {
            cli_error("info", "%s: out of memory", path);
            return CLI_FAIL;
        }
        for (id = 1; id <= cat->n_events && id < QTRACE_MAX_EVENTS; id++) {
            c->by_id[id] += chunk[id];
            if (c->cur->counts) {
                c->cur->counts[id] += chunk[id];
            }
            chunk[id] = 0;
        }
        c->total += cc.records;
        c->last_seq = cc.chunk_seq;
        note_insns(c->cur, &cc);
    }
    c->stopped = ret < 0;
    return CLI_OK;
}

/*
 * Chunks read: META (number 0) up to the last chunk that held a record,
 * plus END. Chunks are numbered in file order, so the last record's chunk
 * number counts the ones before it, empty or not.
 */
static uint64_t count_chunks(const struct qtrace_reader *rd,
                             const struct counts *c)
{
    uint64_t n = c->total ? c->last_seq + 1 : 1;

    return n + (qtrace_reader_has_end(rd) ? 1 : 0);
}

static unsigned int count_vcpu_streams(const struct counts *c)
{
    GHashTableIter it;
    gpointer value;
    unsigned int n = 0;

    g_hash_table_iter_init(&it, c->streams);
    while (g_hash_table_iter_next(&it, NULL, &value)) {
        n += ((const struct stream *)value)->vcpu != QTRACE_VCPU_NONE;
    }
    return n;
}

/*
 * How the recording ended, from the END chunk: "(exit 0)" or "(guest
 * signal 11, SIGSEGV)"; empty when END does not say (system mode, older
 * traces, etrace files).
 */
static void fmt_how_ended(const struct qtrace_reader *rd, char *buf,
                          size_t len)
{
    const char *exit = qtrace_reader_end(rd, "exit");
    const char *status = qtrace_reader_end(rd, "status");
    const char *sig = qtrace_reader_end(rd, "signal");
    const char *name;

    buf[0] = '\0';
    if (exit && strcmp(exit, "exit") == 0 && status) {
        snprintf(buf, len, " (exit %s)", status);
    } else if (exit && strcmp(exit, "signal") == 0 && sig) {
        name = sigabbrev_np((int)strtol(sig, NULL, 10));
        snprintf(buf, len, " (guest signal %s%s%s)", sig,
                 name ? ", SIG" : "", name ? name : "");
    }
}

/* The last line of the shape: whether END is there, and how it ended. */
static void print_end(const struct qtrace_reader *rd, const struct counts *c)
{
    char how[64];

    if (qtrace_reader_has_end(rd)) {
        const char *dropped = qtrace_reader_end(rd, "ring_dropped");
        const char *snaps = qtrace_reader_end(rd, "snapshots");

        fmt_how_ended(rd, how, sizeof(how));
        printf("end: complete%s\n", how);
        /* ring=: what the flight recorder wrote and left out. */
        if (snaps) {
            printf("snapshots: %s\n", snaps);
        }
        if (dropped) {
            printf("ring_dropped: %s\n", dropped);
        }
    } else if (c->stopped) {
        printf("end: missing (%s)\n", c->err.msg);
    } else {
        /* Whole chunks up to the end of the file: QEMU died between two. */
        printf("end: missing (killed; no END chunk, the trace stops after "
               "chunk %" PRIu64 ")\n", c->total ? c->last_seq : 0);
    }
}

static void print_shape(const struct qtrace_reader *rd,
                        const struct counts *c)
{
    const char *end_records = qtrace_reader_end(rd, "records");
    const char *end_bytes = qtrace_reader_end(rd, "bytes");
    const char *lost = qtrace_reader_end(rd, "lost");
    const char *format = qtrace_reader_meta(rd, "format");

    /* An etrace file has records, not chunks: chunk_seq numbers them. */
    if (format && strcmp(format, "etrace") == 0) {
        printf("etrace_records: %" PRIu64 "\n",
               c->total ? c->last_seq + 1 : 0);
    } else {
        printf("chunks: %" PRIu64 "\n", count_chunks(rd, c));
    }
    if (end_bytes) {
        /* What the records take encoded, before any compression. */
        printf("data_bytes: %s\n", end_bytes);
    }
    printf("streams: %u\n", count_vcpu_streams(c));
    printf("records: %" PRIu64, c->total);
    if (end_records && strtoull(end_records, NULL, 10) != c->total) {
        printf(" (the END chunk says records=%s)", end_records);
    }
    putchar('\n');
    if (lost) {
        printf("lost: %s\n", lost);
    }
    print_end(rd, c);
}

static gint compare_streams(gconstpointer a, gconstpointer b);

/*
 * Guest instructions, overall and per vCPU stream (docs/cli.md): exact
 * from the index a complete trace ends with, a lower bound without.
 */
static void print_insns(const struct qtrace_reader *rd,
                        const struct counts *c)
{
    GList *streams = g_list_sort(g_hash_table_get_values(c->streams),
                                 compare_streams);
    const char *bound = c->exact_insns ? "" : " or more (no index)";
    const char *end_insns = qtrace_reader_end(rd, "insns");
    uint64_t total = 0;
    GList *l;

    for (l = streams; l; l = l->next) {
        const struct stream *s = l->data;

        total += s->vcpu != QTRACE_VCPU_NONE ? s->insns : 0;
    }
    /*
     * Without vCPU streams (tb_count alone), END holds what QEMU's block
     * counters add up to.
     */
    if (count_vcpu_streams(c) == 0 && end_insns && end_insns[0]) {
        printf("instructions: %s (from the block counts; no vCPU "
               "streams)\n", end_insns);
        g_list_free(streams);
        return;
    }
    printf("instructions: %" PRIu64 "%s\n", total, bound);
    for (l = streams; l; l = l->next) {
        const struct stream *s = l->data;

        if (s->vcpu != QTRACE_VCPU_NONE) {
            printf("  vcpu %" PRIu32 " stream %" PRIu32 " %" PRIu64 "%s\n",
                   s->vcpu, s->stream, s->insns, bound);
        }
    }
    g_list_free(streams);
}

static void print_events(const struct qtrace_catalog *cat,
                         const struct counts *c)
{
    unsigned int id;
    int width = 0;

    for (id = 1; id <= cat->n_events && id < QTRACE_MAX_EVENTS; id++) {
        int len = (int)strlen(cat->events[id].name);

        if (c->by_id[id] && len > width) {
            width = len;
        }
    }
    printf("events:\n");
    for (id = 1; id <= cat->n_events && id < QTRACE_MAX_EVENTS; id++) {
        if (c->by_id[id]) {
            printf("  %-*s %" PRIu64 "\n", width, cat->events[id].name,
                   c->by_id[id]);
        }
    }
    printf("total: %" PRIu64 "\n", c->total);
}

static gint compare_streams(gconstpointer a, gconstpointer b)
{
    const struct stream *x = a;
    const struct stream *y = b;

    if (x->vcpu != y->vcpu) {
        return x->vcpu < y->vcpu ? -1 : 1;
    }
    if (x->stream != y->stream) {
        return x->stream < y->stream ? -1 : 1;
    }
    return 0;
}

static void print_per_cpu(const struct qtrace_catalog *cat,
                          const struct counts *c)
{
    GList *streams = g_list_sort(g_hash_table_get_values(c->streams),
                                 compare_streams);
    GList *l;
    unsigned int id;

    for (l = streams; l; l = l->next) {
        const struct stream *s = l->data;

        if (s->vcpu == QTRACE_VCPU_NONE) {
            printf("translations stream %" PRIu32 ":", s->stream);
        } else {
            printf("vcpu %" PRIu32 " stream %" PRIu32 ":", s->vcpu,
                   s->stream);
        }
        for (id = 1; id <= cat->n_events && id < QTRACE_MAX_EVENTS; id++) {
            if (s->counts[id]) {
                printf(" %s=%" PRIu64, cat->events[id].name, s->counts[id]);
            }
        }
        putchar('\n');
    }
    g_list_free(streams);
}

int cmd_info(int argc, char **argv)
{
    struct info_opts opts = { .per_cpu = false };
    struct qtrace_reader *rd;
    struct qtrace_err err;
    struct counts *c;
    int ret;

    if (simpletrace_named(argc, argv)) {
        return cmd_info_simpletrace(argc, argv);
    }
    ret = parse_opts(argc, argv, &opts);
    if (ret != CLI_OK) {
        return ret;
    }
    if (qtrace_reader_open(opts.path, &rd, &err) < 0) {
        cli_error("info", "%s: %s", opts.path, err.msg);
        return CLI_FAIL;
    }
    progress_attach(rd, "info");
    /* Heap, not stack: by_id alone is 8 KiB. */
    c = calloc(1, sizeof(*c));
    if (!c) {
        cli_error("info", "%s: %s", opts.path, strerror(ENOMEM));
        qtrace_reader_close(rd);
        return CLI_FAIL;
    }
    c->streams = g_hash_table_new_full(g_int64_hash, g_int64_equal, NULL,
                                       free_stream);
    c->exact_insns = qtrace_reader_index(rd);
    ret = count_records(rd, c, opts.per_cpu, opts.path);
    if (ret == CLI_OK) {
        print_header(rd, opts.path);
        print_shape(rd, c);
        print_events(qtrace_reader_catalog(rd), c);
        print_insns(rd, c);
        if (opts.per_cpu) {
            print_per_cpu(qtrace_reader_catalog(rd), c);
        }
        if (c->stopped) {
            fflush(stdout);
            cli_error("info", "%s: %s", opts.path, c->err.msg);
            ret = CLI_FAIL;
        } else {
            ret = trace_end_check("info", opts.path, rd);
        }
    }
    g_hash_table_destroy(c->streams);
    free(c);
    qtrace_reader_close(rd);
    return ret;
}
