/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * qtrace convert: turn a native trace into a foreign format (one file per
 * format in src/convert/, listed in src/convert/formats.c). One pass with
 * the reader; a trace that stops early is converted up to where it stops,
 * then the reason is reported and the status is 1.
 */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "convert-out.h"
#include "convert.h"
#include "event-filter.h"
#include "guest-syms.h"
#include "out-guard.h"
#include "progress.h"
#include "qtrace/reader.h"
#include "trace-end.h"

struct convert_opts {
    const char *to;                 /* --to NAME, required */
    const char *trace;              /* TRACE, required */
    const char *out;                /* OUT, required */
    bool force;                     /* --force: replace any OUT file */
    char *events;                   /* -e patterns, joined with ','; owned */
    unsigned int jobs;              /* -j: threads, 0 for the default */
};

enum { OPT_SYMBOLS = 256 };

static const struct option long_opts[] = {
    { "to", required_argument, NULL, 't' },
    { "events", required_argument, NULL, 'e' },
    { "symbols", required_argument, NULL, OPT_SYMBOLS },
    { "force", no_argument, NULL, 'f' },
    { "jobs", required_argument, NULL, 'j' },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 },
};

static void print_usage(void)
{
    size_t i;

    printf("usage: qtrace convert [--force] [-e PATTERNS] [-j N] "
           "[--symbols FILE[@ADDR]]...\n"
           "                      --to FORMAT TRACE OUT\n"
           "\n"
           "Convert the native trace TRACE into FORMAT, written to OUT.\n"
           "An existing OUT is replaced only if it holds FORMAT's output\n"
           "(or --force is given and it is a file); a failed conversion\n"
           "leaves OUT as it was.\n"
           "\n"
           "Formats:\n");
    for (i = 0; conv_formats[i]; i++) {
        printf("  %-10s %s\n", conv_formats[i]->name,
               conv_formats[i]->summary);
    }
    printf("\n"
           "chrome and perfetto: one track per vCPU stream, calls and system\n"
           "calls as slices, other records as instants; chrome, perfetto\n"
           "and ctf time records by the vCPU's guest instructions, shown\n"
           "as nanoseconds (docs/cli.md, qtrace convert).\n"
           "\n"
           "Options:\n"
           "  -t, --to=FORMAT  the output format (required)\n"
           "  -f, --force      replace an OUT file of another kind\n"
           "  -e, --events=PATTERNS\n"
           "                   chrome, perfetto, ctf: only the events\n"
           "                   matching the glob PATTERNS (as in dump -e;\n"
           "                   repeatable). Default: chrome and perfetto\n"
           "                   leave out exec_tb, exec_insn, mem_access,\n"
           "                   tb_trans, tb_count and order (-e '*' keeps\n"
           "                   them); ctf converts every event\n"
           "  -j, --jobs=N     threads: 2 or more decode the trace on a\n"
           "                   thread of its own, beside the conversion\n"
           "                   (default: 2 when a CPU is free)\n"
           GUEST_SYMS_HELP
           "  -h, --help       print this help and exit\n");
}

static int parse_opts(int argc, char **argv, struct convert_opts *opts)
{
    int c;

    optind = 1;
    guest_syms_options_reset();
    while ((c = getopt_long(argc, argv, "+:t:e:fj:h", long_opts, NULL)) != -1) {
        switch (c) {
        case 'e':
            if (cli_add_events("convert", &opts->events, optarg) != CLI_OK) {
                return CLI_FAIL;
            }
            break;
        case 't':
            opts->to = optarg;
            break;
        case 'f':
            opts->force = true;
            break;
        case 'j':
            if (cli_parse_jobs("convert", optarg, &opts->jobs) != CLI_OK) {
                return CLI_USAGE;
            }
            break;
        case OPT_SYMBOLS:
            if (guest_syms_option("convert", optarg) != CLI_OK) {
                return CLI_USAGE;
            }
            break;
        case 'h':
            print_usage();
            return CLI_HELP;
        default:
            return cli_bad_option("convert", c, argv);
        }
    }
    if (!opts->to) {
        return cli_usage("convert", "missing --to FORMAT");
    }
    if (!conv_find(opts->to)) {
        return cli_usage("convert", "--to %s: unknown format", opts->to);
    }
    if (opts->events && !conv_find(opts->to)->takes_events) {
        return cli_usage("convert", "-e: --to %s converts what it needs, "
                         "it takes no -e", opts->to);
    }
    if (argc - optind != 2) {
        return cli_usage("convert", "expected TRACE and OUT");
    }
    opts->trace = argv[optind];
    opts->out = argv[optind + 1];
    return CLI_OK;
}

/* Feed every record to the format; 0 at a clean end, else -errno. */
static int convert_records(struct conv *cv, struct qtrace_err *err)
{
    struct qtrace_record rec;
    int ret;

    while ((ret = qtrace_reader_next(cv->rd, &rec, err)) > 0) {
        ret = cv->ops->record(cv, &rec, err);
        if (ret < 0) {
            return ret;
        }
    }
    return ret;
}

/* Messages name OUT, never the temporary the format was given. */
static void report_err(const struct convert_out *o, const char *msg)
{
    size_t n = o->tmp ? strlen(o->tmp) : 0;
    const char *at = n ? strstr(msg, o->tmp) : NULL;

    if (at) {
        cli_error("convert", "%.*s%s%s", (int)(at - msg), msg, o->final,
                  at + n);
    } else {
        cli_error("convert", "%s", msg);
    }
}

/*
 * Convert into the temporary; 0, or CLI_FAIL after reporting. A trace
 * that stops early still gives an OUT (what was read), and CLI_FAIL;
 * one without its END chunk gives a whole OUT and CLI_INCOMPLETE.
 */
static int convert_into(struct conv *cv, struct convert_out *o)
{
    struct qtrace_err err = { "" };
    struct qtrace_err read_err = { "" };
    int read_ret, ret;

    ret = cv->ops->begin(cv, o->path, &err);
    if (ret < 0) {
        report_err(o, err.msg);
        return ret;
    }
    read_ret = convert_records(cv, &read_err);
    ret = cv->ops->end(cv, read_ret == 0, &err);
    if (ret < 0) {
        report_err(o, err.msg);
        return ret;
    }
    if (convert_out_commit(o, &err) < 0) {
        report_err(o, err.msg);
        return -EIO;
    }
    if (read_ret < 0) {
        cli_error("convert", "%s: %s", cv->trace_path, read_err.msg);
        return CLI_FAIL;
    }
    return trace_end_check("convert", cv->trace_path, cv->rd);
}

/*
 * The events a format that takes -e converts: the patterns, or all but
 * the format's default_hidden. CLI_OK, or CLI_USAGE for a bad pattern.
 */
static int select_events(const struct convert_opts *opts,
                         const struct conv_ops *ops,
                         struct qtrace_reader *rd, struct event_filter *f)
{
    const struct qtrace_catalog *cat = qtrace_reader_catalog(rd);
    struct qtrace_err err = { "" };
    size_t i;

    if (event_filter_parse(f, cat, opts->events, &err) < 0) {
        return cli_usage("convert", "-e %s", err.msg);
    }
    for (i = 0; !opts->events && ops->default_hidden &&
                ops->default_hidden[i]; i++) {
        const struct qtrace_event_desc *ev =
            qtrace_catalog_find(cat, ops->default_hidden[i]);

        if (ev && ev->id < QTRACE_MAX_EVENTS) {
            f->on[ev->id] = false;
        }
    }
    return CLI_OK;
}

static int run_conversion(const struct convert_opts *opts,
                          struct qtrace_reader *rd)
{
    struct conv cv = { .rd = rd, .trace_path = opts->trace };
    struct convert_out o = { NULL, NULL, NULL, false };
    struct qtrace_err err = { "" };
    struct event_filter filter;
    int ret;

    cv.ops = conv_find(opts->to);
    if (cv.ops->takes_events) {
        ret = select_events(opts, cv.ops, rd, &filter);
        if (ret != CLI_OK) {
            return ret;
        }
        cv.want = filter.on;
    }
    if (!out_guard_check("convert", opts->out, cv.ops->is_own,
                         cv.ops->out_kind, opts->force)) {
        return CLI_FAIL;
    }
    cv.priv = calloc(1, cv.ops->priv_size ? cv.ops->priv_size : 1);
    if (!cv.priv) {
        cli_error("convert", "%s", strerror(ENOMEM));
        return CLI_FAIL;
    }
    if (convert_out_begin(&o, opts->out, cv.ops->out_is_dir, &err) < 0) {
        cli_error("convert", "%s", err.msg);
        free(cv.priv);
        return CLI_FAIL;
    }
    ret = convert_into(&cv, &o);
    convert_out_discard(&o);
    free(cv.priv);
    return ret == CLI_OK || ret == CLI_INCOMPLETE ? ret : CLI_FAIL;
}

int cmd_convert(int argc, char **argv)
{
    struct convert_opts opts = { NULL, NULL, NULL, false, NULL, 0 };
    struct qtrace_reader *rd;
    struct qtrace_err err;
    int ret = parse_opts(argc, argv, &opts);

    if (ret != CLI_OK) {
        free(opts.events);
        return ret;
    }
    if (qtrace_reader_open(opts.trace, &rd, &err) < 0) {
        cli_error("convert", "%s: %s", opts.trace, err.msg);
        free(opts.events);
        return CLI_FAIL;
    }
    progress_attach(rd, "convert");
    cli_read_ahead(rd, opts.jobs);
    ret = run_conversion(&opts, rd);
    qtrace_reader_close(rd);
    free(opts.events);
    return ret;
}
