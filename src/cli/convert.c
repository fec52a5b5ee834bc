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
#include "progress.h"
#include "convert.h"
#include "qtrace/reader.h"

struct convert_opts {
    const char *to;                 /* --to NAME, required */
    const char *trace;              /* TRACE, required */
    const char *out;                /* OUT, required */
};

static const struct option long_opts[] = {
    { "to", required_argument, NULL, 't' },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 },
};

static void print_usage(void)
{
    size_t i;

    printf("usage: qtrace convert --to FORMAT TRACE OUT\n"
           "\n"
           "Convert the native trace TRACE into FORMAT, written to OUT.\n"
           "\n"
           "Formats:\n");
    for (i = 0; conv_formats[i]; i++) {
        printf("  %-10s %s\n", conv_formats[i]->name,
               conv_formats[i]->summary);
    }
    printf("\n"
           "Options:\n"
           "  -t, --to=FORMAT  the output format (required)\n"
           "  -h, --help       print this help and exit\n");
}

static int parse_opts(int argc, char **argv, struct convert_opts *opts)
{
    int c;

    optind = 1;
    while ((c = getopt_long(argc, argv, "+:t:h", long_opts, NULL)) != -1) {
        switch (c) {
        case 't':
            opts->to = optarg;
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

static int run_conversion(const struct convert_opts *opts,
                          struct qtrace_reader *rd)
{
    struct conv cv = { .rd = rd, .trace_path = opts->trace };
    struct qtrace_err err = { "" };
    struct qtrace_err read_err = { "" };
    int read_ret, ret;

    cv.ops = conv_find(opts->to);
    cv.priv = calloc(1, cv.ops->priv_size ? cv.ops->priv_size : 1);
    if (!cv.priv) {
        cli_error("convert", "%s", strerror(ENOMEM));
        return CLI_FAIL;
    }
    ret = cv.ops->begin(&cv, opts->out, &err);
    if (ret < 0) {
        cli_error("convert", "%s", err.msg);
        free(cv.priv);
        return CLI_FAIL;
    }
    read_ret = convert_records(&cv, &read_err);
    ret = cv.ops->end(&cv, read_ret == 0, &err);
    free(cv.priv);
    if (read_ret < 0) {
        cli_error("convert", "%s: %s", opts->trace, read_err.msg);
        return CLI_FAIL;
    }
    if (ret < 0) {
        cli_error("convert", "%s", err.msg);
        return CLI_FAIL;
    }
    return CLI_OK;
}

int cmd_convert(int argc, char **argv)
{
    struct convert_opts opts = { NULL, NULL, NULL };
    struct qtrace_reader *rd;
    struct qtrace_err err;
    int ret = parse_opts(argc, argv, &opts);

    if (ret != CLI_OK) {
        return ret;
    }
    if (qtrace_reader_open(opts.trace, &rd, &err) < 0) {
        cli_error("convert", "%s: %s", opts.trace, err.msg);
        return CLI_FAIL;
    }
    progress_attach(rd, "convert");
    ret = run_conversion(&opts, rd);
    qtrace_reader_close(rd);
    return ret;
}
