/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * qtrace report: summaries of a trace, one section per option (see
 * report.h); each section reads the trace from its start. With no section
 * option every section is printed.
 */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "guest-syms.h"
#include "progress.h"
#include "qtrace/reader.h"
#include "report.h"
#include "trace-end.h"

extern const struct report_section report_functions;
extern const struct report_section report_syscalls;
extern const struct report_section report_lib_events;
extern const struct report_section report_blocks;
extern const struct report_section report_insns;
extern const struct report_section report_memory;
extern const struct report_section report_vcpus;
extern const struct report_section report_folded;

/* The sections, in the order they print (report-<name>.c each). */
static const struct report_section *const sections[] = {
    &report_functions,
    &report_syscalls,
    &report_lib_events,
    &report_blocks,
    &report_insns,
    &report_memory,
    &report_vcpus,
    &report_folded,
    NULL,
};

#define MAX_SECTIONS 16

enum { OPT_KEEP_PLT = 256, OPT_SYMBOLS, OPT_FORMAT, OPT_TOP, OPT_PER_STREAM };

struct report_opts {
    const char *path;               /* trace file, required */
    struct report_flags flags;
    bool want[MAX_SECTIONS];        /* by index in sections[] */
    bool any;                       /* some section option was given */
    size_t n_want;                  /* sections asked for by option */
    unsigned int jobs;              /* -j: threads, 0 for the default */
};

static void print_usage(void)
{
    size_t i;

    printf("usage: qtrace report [SECTION...] [--format=text|json|csv] "
           "[--top=N]\n"
           "                     [--keep-plt] [--symbols FILE[@ADDR]]... "
           "FILE\n"
           "\n"
           "Summaries of the trace FILE. Without a section, all of them\n"
           "but --folded.\n"
           "\n"
           "Sections:\n");
    for (i = 0; sections[i]; i++) {
        printf("  --%-12s %s\n", sections[i]->option, sections[i]->help);
    }
    printf("\n"
           "Options:\n"
           "      --keep-plt  count a PLT stub (name@plt) apart from the\n"
           "                  function it reaches (default: as one)\n"
           "      --format=text|json|csv\n"
           "                  json: an array of objects (an object of\n"
           "                  arrays for several sections); csv: one\n"
           "                  section's table with a header line\n"
           "      --top=N     rows of the --blocks, --insns and --memory\n"
           "                  tables (default: 20 blocks, all others; 0:\n"
           "                  all)\n"
           "  -j, --jobs=N    threads: 2 or more decode the trace on a\n"
           "                  thread of its own, beside the tables\n"
           "                  (default: 2 when a CPU is free, but 1 for\n"
           "                  --vcpus alone)\n"
           "      --per-stream\n"
           "                  --folded: one root frame per vCPU stream\n"
           "                  (default: one, the program)\n"
           GUEST_SYMS_HELP
           "  -h, --help      print this help and exit\n");
}

static int parse_format(const char *arg, enum report_format *f)
{
    if (strcmp(arg, "text") == 0) {
        *f = REPORT_TEXT;
    } else if (strcmp(arg, "json") == 0) {
        *f = REPORT_JSON;
    } else if (strcmp(arg, "csv") == 0) {
        *f = REPORT_CSV;
    } else {
        return cli_usage("report", "--format=%s: unknown format (text, "
                         "json or csv)", arg);
    }
    return CLI_OK;
}

static int parse_top(const char *arg, struct report_flags *flags)
{
    unsigned long long n;
    char *end;

    errno = 0;
    n = strtoull(arg, &end, 10);
    if (errno || end == arg || *end || arg[0] == '-' || n > SIZE_MAX / 2) {
        return cli_usage("report", "--top=%s: expected a number of rows",
                         arg);
    }
    flags->top = (size_t)n;
    flags->top_set = true;
    return CLI_OK;
}

static int parse_opts(int argc, char **argv, struct report_opts *opts)
{
    struct option long_opts[MAX_SECTIONS + 8];
    size_t i, n = 0;
    int c, idx;

    for (i = 0; sections[i] && n < MAX_SECTIONS; i++, n++) {
        long_opts[n] = (struct option){ sections[i]->option, no_argument,
                                        NULL, 0 };
    }
    long_opts[n++] = (struct option){ "keep-plt", no_argument, NULL,
                                      OPT_KEEP_PLT };
    long_opts[n++] = (struct option){ "symbols", required_argument, NULL,
                                      OPT_SYMBOLS };
    long_opts[n++] = (struct option){ "format", required_argument, NULL,
                                      OPT_FORMAT };
    long_opts[n++] = (struct option){ "top", required_argument, NULL,
                                      OPT_TOP };
    long_opts[n++] = (struct option){ "per-stream", no_argument, NULL,
                                      OPT_PER_STREAM };
    long_opts[n++] = (struct option){ "jobs", required_argument, NULL,
                                      'j' };
    long_opts[n++] = (struct option){ "help", no_argument, NULL, 'h' };
    long_opts[n] = (struct option){ NULL, 0, NULL, 0 };

    optind = 1;
    guest_syms_options_reset();
    while ((c = getopt_long(argc, argv, "+:hj:", long_opts, &idx)) != -1) {
        if (c == 0) {
            opts->n_want += !opts->want[idx];
            opts->want[idx] = true;
            opts->any = true;
        } else if (c == OPT_FORMAT) {
            if (parse_format(optarg, &opts->flags.format) != CLI_OK) {
                return CLI_USAGE;
            }
        } else if (c == OPT_TOP) {
            if (parse_top(optarg, &opts->flags) != CLI_OK) {
                return CLI_USAGE;
            }
        } else if (c == 'j') {
            if (cli_parse_jobs("report", optarg, &opts->jobs) != CLI_OK) {
                return CLI_USAGE;
            }
        } else if (c == OPT_KEEP_PLT) {
            opts->flags.keep_plt = true;
        } else if (c == OPT_PER_STREAM) {
            opts->flags.per_stream = true;
        } else if (c == OPT_SYMBOLS) {
            if (guest_syms_option("report", optarg) != CLI_OK) {
                return CLI_USAGE;
            }
        } else if (c == 'h') {
            print_usage();
            return CLI_HELP;
        } else {
            return cli_bad_option("report", c, argv);
        }
    }
    if (argc - optind != 1) {
        return cli_usage("report", "expected one trace FILE");
    }
    opts->path = argv[optind];
    /* A CSV file holds one table. */
    if (opts->flags.format == REPORT_CSV && opts->n_want != 1) {
        return cli_usage("report", "--format=csv: name one section (a CSV "
                         "file holds one table)");
    }
    return CLI_OK;
}

static size_t n_sections(void)
{
    size_t n = 0;

    while (sections[n]) {
        n++;
    }
    return n;
}

/*
 * Status of the whole report: a section that fails fails it; an empty
 * one fails it when asked for by name, or when every section is empty
 * (a bare `qtrace report` on a trace of blocks only has nothing to say).
 */
static int report_status(const struct report_opts *opts, size_t n_run,
                         size_t n_empty, bool named_empty)
{
    if (named_empty || (!opts->any && n_run > 0 && n_empty == n_run)) {
        return CLI_FAIL;
    }
    return CLI_OK;
}


/* Whether every section the report prints is light (struct report_section). */
static bool all_light(const struct report_opts *opts)
{
    size_t i;

    for (i = 0; sections[i]; i++) {
        bool runs = opts->any ? opts->want[i] : !sections[i]->on_request;

        if (runs && !sections[i]->light) {
            return false;
        }
    }
    return true;
}
int cmd_report(int argc, char **argv)
{
    struct report_opts opts;
    struct report_tables tables = { false, 0, NULL, 0, 0 };
    struct qtrace_reader *rd;
    struct qtrace_err err;
    size_t i, n_run = 0, n_empty = 0;
    bool named_empty = false;
    int ret, r, end = CLI_OK;

    memset(&opts, 0, sizeof(opts));
    ret = parse_opts(argc, argv, &opts);
    if (ret != CLI_OK) {
        return ret;
    }
    if (qtrace_reader_open(opts.path, &rd, &err) < 0) {
        cli_error("report", "%s: %s", opts.path, err.msg);
        return CLI_FAIL;
    }
    progress_attach(rd, "report");
    cli_read_ahead(rd, opts.jobs ? opts.jobs : all_light(&opts) ? 1 : 0);
    opts.flags.tables = &tables;
    tables.multi = opts.flags.format == REPORT_JSON &&
                   (opts.any ? opts.n_want : n_sections()) > 1;
    for (i = 0; sections[i] && ret == CLI_OK; i++) {
        if (opts.any ? !opts.want[i] : sections[i]->on_request) {
            continue;
        }
        qtrace_reader_rewind(rd);
        n_run++;
        r = sections[i]->run(rd, &opts.flags, stdout, &err);
        if (r < 0) {
            cli_error("report", "%s: %s", opts.path, err.msg);
            ret = CLI_FAIL;
        } else if (r == REPORT_EMPTY) {
            n_empty++;
            named_empty |= opts.any;
        }
    }
    if (tables.multi && tables.n_tables) {
        printf("\n}\n");
    }
    if (ret == CLI_OK) {
        end = trace_end_check("report", opts.path, rd);
    }
    qtrace_reader_close(rd);
    if (ret == CLI_OK) {
        ret = report_status(&opts, n_run, n_empty, named_empty);
    }
    /* A failure wins over an incomplete trace, which wins over success. */
    return ret == CLI_OK ? end : ret;
}
