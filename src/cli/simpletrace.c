/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * qtrace dump and qtrace info on a simpletrace file (QEMU's simple
 * backend, or libqtrace-trace's): recognised by its magic, read by
 * src/trace/simple-read.c. Arguments are decoded when the trace-events
 * file is given (-t), as simpletrace.py needs it too.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "simple-read.h"

#define ARGS_LINE_MAX 4096          /* one record's arguments as text */
#define MAX_IDS 4096                /* distinct event ids counted */

struct st_opts {
    const char *path;               /* the simpletrace file */
    const char *events_path;        /* -t: trace-events, or NULL */
};

bool simpletrace_named(int argc, char **argv)
{
    int i;

    for (i = 1; i < argc; i++) {
        if (argv[i][0] != '-' && st_file_is_simpletrace(argv[i])) {
            return true;
        }
    }
    return false;
}

static int parse_opts(const char *cmd, int argc, char **argv,
                      struct st_opts *o)
{
    static const struct option longopts[] = {
        { "trace-events", required_argument, NULL, 't' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    int c;

    optind = 1;
    while ((c = getopt_long(argc, argv, "+:t:h", longopts, NULL)) != -1) {
        switch (c) {
        case 't':
            o->events_path = optarg;
            break;
        case 'h':
            printf("usage: qtrace %s [-t TRACE_EVENTS] SIMPLETRACE_FILE\n"
                   "  -t, --trace-events FILE  the program's trace-events, "
                   "to decode arguments\n", cmd);
            return CLI_HELP;
        default:
            return cli_bad_option(cmd, c, argv);
        }
    }
    if (optind != argc - 1) {
        return cli_usage(cmd, "expected one simpletrace file");
    }
    o->path = argv[optind];
    return CLI_OK;
}

/* The trace-events file, parsed with the catalog parser; NULL if none. */
static int load_events(const char *cmd, const char *path,
                       struct qtrace_catalog *cat, bool *have)
{
    struct qtrace_err err;
    char *text = NULL;
    size_t len = 0;
    FILE *f;
    int ret;

    *have = false;
    if (!path) {
        return CLI_OK;
    }
    f = fopen(path, "r");
    if (!f) {
        cli_error(cmd, "%s: %s", path, strerror(errno));
        return CLI_FAIL;
    }
    ret = getdelim(&text, &len, '\0', f) < 0 ? -1 : 0;
    fclose(f);
    if (ret < 0) {
        free(text);
        cli_error(cmd, "%s: empty or unreadable", path);
        return CLI_FAIL;
    }
    ret = qtrace_catalog_parse(cat, text, &err);
    free(text);
    if (ret < 0) {
        cli_error(cmd, "%s:%s", path, err.msg);
        return CLI_FAIL;
    }
    *have = true;
    return CLI_OK;
}

static int open_reader(const char *cmd, const struct st_opts *o,
                       struct st_reader **rd)
{
    struct qtrace_err err;

    if (st_reader_open(o->path, rd, &err) < 0) {
        cli_error(cmd, "%s: %s", o->path, err.msg);
        return CLI_FAIL;
    }
    return CLI_OK;
}

static int print_records(struct st_reader *rd, const struct st_opts *o,
                         const struct qtrace_catalog *cat)
{
    char args[ARGS_LINE_MAX];
    struct qtrace_err err;
    struct st_event ev;
    int ret;

    while ((ret = st_reader_next(rd, &ev, &err)) > 0) {
        const struct qtrace_event_desc *desc =
            cat ? qtrace_catalog_find(cat, ev.name) : NULL;

        if (cat && !desc && !ev.is_dropped) {
            cli_error("dump", "%s: event '%s' is not in %s", o->path,
                      ev.name, o->events_path);
            return CLI_FAIL;
        }
        if (st_format_args(&ev, desc, args, sizeof(args)) < 0) {
            cli_error("dump", "%s: record at offset 0x%" PRIx64 ": its "
                      "arguments do not match '%s' in %s", o->path,
                      ev.offset, ev.name, o->events_path);
            return CLI_FAIL;
        }
        printf("%s %" PRIu64 " pid=%" PRIu32 "%s%s\n", ev.name,
               ev.timestamp_ns, ev.pid, args[0] ? " " : "", args);
    }
    if (ret < 0) {
        cli_error("dump", "%s: %s", o->path, err.msg);
        return CLI_FAIL;
    }
    return CLI_OK;
}

int cmd_dump_simpletrace(int argc, char **argv)
{
    struct st_opts o = { 0 };
    struct qtrace_catalog cat;
    struct st_reader *rd = NULL;
    bool have = false;
    int ret = parse_opts("dump", argc, argv, &o);

    if (ret == CLI_OK) {
        ret = load_events("dump", o.events_path, &cat, &have);
    }
    if (ret == CLI_OK) {
        ret = open_reader("dump", &o, &rd);
    }
    if (ret == CLI_OK) {
        ret = print_records(rd, &o, have ? &cat : NULL);
    }
    st_reader_close(rd);
    if (have) {
        qtrace_catalog_fini(&cat);
    }
    return ret;
}

/* Per-event counts, in order of first appearance. */
struct st_counts {
    const char *names[MAX_IDS];
    uint64_t counts[MAX_IDS];
    size_t n;
    uint64_t records;
    uint64_t dropped;
    uint64_t first_ns;
    uint64_t last_ns;
    uint32_t pid;
};

static void count_one(struct st_counts *c, const struct st_event *ev)
{
    size_t i;

    if (c->records++ == 0) {
        c->first_ns = ev->timestamp_ns;
        c->pid = ev->pid;
    }
    c->last_ns = ev->timestamp_ns;
    if (ev->is_dropped) {
        uint64_t n;

        memcpy(&n, ev->args, sizeof(n));
        c->dropped += n;
    }
    for (i = 0; i < c->n && strcmp(c->names[i], ev->name) != 0; i++) {
    }
    if (i == c->n && c->n < MAX_IDS) {
        c->names[c->n++] = ev->name;
    }
    if (i < c->n) {
        c->counts[i]++;
    }
}

int cmd_info_simpletrace(int argc, char **argv)
{
    struct st_opts o = { 0 };
    struct st_reader *rd = NULL;
    struct st_counts *c = NULL;
    struct qtrace_err err;
    struct st_event ev;
    size_t i;
    int ret = parse_opts("info", argc, argv, &o);

    if (ret == CLI_OK) {
        ret = open_reader("info", &o, &rd);
    }
    if (ret == CLI_OK && !(c = calloc(1, sizeof(*c)))) {
        cli_error("info", "%s: %s", o.path, strerror(ENOMEM));
        ret = CLI_FAIL;
    }
    while (ret == CLI_OK && (ret = st_reader_next(rd, &ev, &err)) > 0) {
        count_one(c, &ev);
        ret = CLI_OK;
    }
    if (ret < 0) {
        cli_error("info", "%s: %s", o.path, err.msg);
        ret = CLI_FAIL;
    }
    if (ret == CLI_OK) {
        printf("format: simpletrace version %" PRIu64 "\npid: %" PRIu32
               "\nrecords: %" PRIu64 "\ndropped: %" PRIu64 "\nspan_ns: %"
               PRIu64 "\nevents:\n", st_reader_version(rd), c->pid,
               c->records, c->dropped, c->last_ns - c->first_ns);
        for (i = 0; i < c->n; i++) {
            printf("  %-32s %" PRIu64 "\n", c->names[i], c->counts[i]);
        }
    }
    free(c);
    st_reader_close(rd);
    return ret;
}
