/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * qtrace coverage: the code a trace ran, from its exec_tb or tb_count
 * records and the blocks of its tb_trans records, as drcov (Lighthouse,
 * lightkeeper), as an lcov tracefile (genhtml) or as text. The tables
 * and the drcov and lcov writers are src/coverage/; the text form is
 * coverage-text.c.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "convert-out.h"
#include "coverage-text.h"
#include "coverage.h"
#include "guest-syms.h"
#include "progress.h"
#include "qtrace/reader.h"
#include "trace-end.h"

enum cov_format { FMT_TEXT, FMT_DRCOV, FMT_LCOV };

#define MAX_ELF 16

/* An --elf FILE[@ADDR]. */
struct elf_spec {
    char *path;                     /* owned */
    bool has_at;
    uint64_t at;
};

struct coverage_opts {
    const char *trace;              /* TRACE, required */
    const char *out;                /* -o OUT, NULL: standard output */
    enum cov_format format;         /* --format, default text */
    bool drcov_text;                /* --drcov-text: text BB table */
    struct elf_spec elf[MAX_ELF];   /* --elf, in the order given */
    size_t n_elf;
};

enum { OPT_FORMAT = 256, OPT_DRCOV_TEXT, OPT_ELF, OPT_SYMBOLS };

static const struct option long_opts[] = {
    { "format", required_argument, NULL, OPT_FORMAT },
    { "output", required_argument, NULL, 'o' },
    { "drcov-text", no_argument, NULL, OPT_DRCOV_TEXT },
    { "elf", required_argument, NULL, OPT_ELF },
    { "symbols", required_argument, NULL, OPT_SYMBOLS },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 },
};

static const char usage[] =
    "usage: qtrace coverage [--format drcov|lcov|text] [-o OUT] "
    "[--drcov-text]\n"
    "                       [--elf FILE[@ADDR]]... "
    "[--symbols FILE[@ADDR]]... TRACE\n"
    "\n"
    "The code the trace TRACE ran, from its exec_tb or tb_count records\n"
    "and the blocks of its tb_trans records.\n"
    "\n"
    "Formats:\n"
    "  text   per module and per function: blocks, instructions and\n"
    "         bytes that ran, and the share of each function (default)\n"
    "  drcov  DynamoRIO's drcov log (version 2, module table version 4),\n"
    "         for Lighthouse (IDA, Binary Ninja) and lightkeeper (Ghidra)\n"
    "  lcov   an lcov tracefile of source lines from the DWARF line\n"
    "         tables of the program and its libraries, for genhtml\n"
    "\n"
    "Options:\n"
    "      --format=FORMAT   drcov, lcov or text\n"
    "  -o, --output=OUT      write to OUT (default: standard output)\n"
    "      --drcov-text      drcov: the blocks as text lines, not binary\n"
    "      --elf=FILE[@ADDR] FILE (ELF) is a module too: a kernel or a\n"
    "                        firmware in system mode, at its own addresses\n"
    "                        or moved so that its _text lies at ADDR;\n"
    "                        also names its functions; repeatable\n"
    GUEST_SYMS_HELP
    "  -h, --help            print this help and exit\n";

static int parse_format(const char *arg, enum cov_format *f)
{
    if (strcmp(arg, "text") == 0) {
        *f = FMT_TEXT;
    } else if (strcmp(arg, "drcov") == 0) {
        *f = FMT_DRCOV;
    } else if (strcmp(arg, "lcov") == 0) {
        *f = FMT_LCOV;
    } else {
        return cli_usage("coverage", "--format %s: unknown format "
                         "(drcov, lcov or text)", arg);
    }
    return CLI_OK;
}

/*
 * FILE[@ADDR], as --symbols reads it: a spec naming an existing file is
 * a path as a whole. The file must be an ELF file with segments.
 */
static int parse_elf(const char *spec, struct coverage_opts *opts)
{
    struct elf_spec *e = &opts->elf[opts->n_elf];
    const char *at = strrchr(spec, '@');
    struct qtrace_err err = { "" };
    struct cov probe;
    struct stat st;
    char *end;
    int ret;

    if (opts->n_elf == MAX_ELF) {
        return cli_usage("coverage", "--elf %s: at most %d --elf files",
                         spec, MAX_ELF);
    }
    memset(e, 0, sizeof(*e));
    if (at && stat(spec, &st) != 0) {
        errno = 0;
        e->at = strtoull(at + 1, &end, 16);
        if (at[1] == '\0' || *end != '\0' || errno) {
            return cli_usage("coverage", "--elf %s: '%s' after @ is not a "
                             "hexadecimal address", spec, at + 1);
        }
        e->has_at = true;
        e->path = strndup(spec, (size_t)(at - spec));
    } else {
        e->path = strdup(spec);
    }
    if (!e->path) {
        cli_error("coverage", "%s", strerror(ENOMEM));
        return CLI_FAIL;
    }
    /* Read it now, so that a bad file is misuse, before the trace. */
    memset(&probe, 0, sizeof(probe));
    ret = cov_add_elf(&probe, e->path, e->has_at ? &e->at : NULL, &err);
    cov_fini(&probe);
    if (ret < 0) {
        cli_error("coverage", "--elf %s", err.msg);
        free(e->path);
        return CLI_USAGE;
    }
    opts->n_elf++;
    /* Its functions name the text form's rows. */
    return guest_syms_option("coverage", spec);
}

static int parse_opts(int argc, char **argv, struct coverage_opts *opts)
{
    int c;

    optind = 1;
    guest_syms_options_reset();
    while ((c = getopt_long(argc, argv, "+:o:h", long_opts, NULL)) != -1) {
        int ret = CLI_OK;

        switch (c) {
        case OPT_FORMAT:
            ret = parse_format(optarg, &opts->format);
            break;
        case 'o':
            opts->out = optarg;
            break;
        case OPT_DRCOV_TEXT:
            opts->drcov_text = true;
            break;
        case OPT_ELF:
            ret = parse_elf(optarg, opts);
            break;
        case OPT_SYMBOLS:
            ret = guest_syms_option("coverage", optarg);
            break;
        case 'h':
            fputs(usage, stdout);
            return CLI_HELP;
        default:
            return cli_bad_option("coverage", c, argv);
        }
        if (ret != CLI_OK) {
            return ret;
        }
    }
    if (argc - optind != 1) {
        return cli_usage("coverage", "expected one TRACE");
    }
    opts->trace = argv[optind];
    if (opts->drcov_text && opts->format != FMT_DRCOV) {
        return cli_usage("coverage", "--drcov-text: only with --format "
                         "drcov");
    }
    /* A binary table is no use on a terminal, and may upset it. */
    if (opts->format == FMT_DRCOV && !opts->drcov_text && !opts->out &&
        isatty(STDOUT_FILENO)) {
        return cli_usage("coverage", "--format drcov: binary output, not "
                         "written to a terminal (give -o OUT, or "
                         "--drcov-text)");
    }
    return CLI_OK;
}

static void free_opts(struct coverage_opts *opts)
{
    size_t i;

    for (i = 0; i < opts->n_elf; i++) {
        free(opts->elf[i].path);
    }
}

/* Why a trace gives no coverage, or NULL when it gives some. */
static const char *why_none(const struct cov *c)
{
    if (c->n_exec_tb == 0 && c->n_tb_count == 0) {
        return "no exec_tb or tb_count records (record them with -e "
               "exec_tb, or -e tb_count,tb_trans)";
    }
    if (c->n_tb_trans == 0) {
        return "no tb_trans records: the blocks' addresses and sizes are "
               "unknown (record tb_trans too)";
    }
    if (c->n_blocks == 0) {
        return "no executed block has a tb_trans record";
    }
    return NULL;
}

static void warn_line(void *arg, const char *msg)
{
    cli_error(arg, "%s", msg);
}

/* Write the chosen format on f; CLI_OK or CLI_FAIL (reported). */
static int write_format(const struct coverage_opts *opts,
                        const struct cov *c, struct qtrace_reader *rd,
                        FILE *f)
{
    struct qtrace_err err = { "" };
    struct qtrace_symbols *syms;
    uint64_t left_out = 0;
    int ret;

    switch (opts->format) {
    case FMT_DRCOV:
        if (cov_write_drcov(c, f, opts->drcov_text, &left_out, &err) < 0) {
            cli_error("coverage", "%s", err.msg);
            return CLI_FAIL;
        }
        if (left_out == c->n_blocks) {
            cli_error("coverage", "%s: no executed block lies in a mapped "
                      "file%s", opts->trace, c->system ? " (in system "
                      "mode, name the kernel or firmware with --elf FILE)"
                      : "");
            return CLI_FAIL;
        }
        if (left_out) {
            cli_error("coverage", "%s: %" PRIu64 " of %zu blocks lie in no "
                      "mapped file (left out)", opts->trace, left_out,
                      c->n_blocks);
        }
        return CLI_OK;
    case FMT_LCOV:
        ret = cov_write_lcov(c, f, warn_line, (void *)"coverage", &err);
        if (ret < 0) {
            cli_error("coverage", "%s", err.msg);
            return CLI_FAIL;
        }
        if (ret == 0) {
            cli_error("coverage", "%s: no code ran in a file with a DWARF "
                      "line table%s", opts->trace, c->system ? " (in "
                      "system mode, name the kernel or firmware with --elf "
                      "FILE)" : " (build with -g, or install its debug "
                      "file)");
            return CLI_FAIL;
        }
        return CLI_OK;
    case FMT_TEXT:
    default:
        syms = guest_syms_load(rd, "coverage");
        if (!syms) {
            return CLI_FAIL;
        }
        ret = coverage_text_print(c, syms, f);
        qtrace_symbols_free(syms);
        if (ret < 0) {
            cli_error("coverage", "%s", strerror(ENOMEM));
            return CLI_FAIL;
        }
        return CLI_OK;
    }
}

/*
 * To -o OUT through a temporary beside it, renamed into place only when
 * everything was written; else to standard output.
 */
static int write_output(const struct coverage_opts *opts,
                        const struct cov *c, struct qtrace_reader *rd)
{
    struct convert_out o = { NULL, NULL, NULL, false };
    struct qtrace_err err = { "" };
    FILE *f;
    int ret;

    if (!opts->out) {
        return write_format(opts, c, rd, stdout);
    }
    if (convert_out_begin(&o, opts->out, false, &err) < 0) {
        cli_error("coverage", "%s", err.msg);
        return CLI_FAIL;
    }
    f = fopen(o.path, "w");
    if (!f) {
        cli_error("coverage", "%s: %s", opts->out, strerror(errno));
        convert_out_discard(&o);
        return CLI_FAIL;
    }
    ret = write_format(opts, c, rd, f);
    if ((fflush(f) != 0 || ferror(f)) && ret == CLI_OK) {
        cli_error("coverage", "%s: %s", opts->out, strerror(errno));
        ret = CLI_FAIL;
    }
    if (fclose(f) != 0 && ret == CLI_OK) {
        cli_error("coverage", "%s: %s", opts->out, strerror(errno));
        ret = CLI_FAIL;
    }
    if (ret == CLI_OK && convert_out_commit(&o, &err) < 0) {
        cli_error("coverage", "%s", err.msg);
        ret = CLI_FAIL;
    }
    convert_out_discard(&o);
    return ret;
}

static int add_elf_files(const struct coverage_opts *opts, struct cov *c)
{
    struct qtrace_err err = { "" };
    size_t i;

    for (i = 0; i < opts->n_elf; i++) {
        const struct elf_spec *e = &opts->elf[i];

        if (cov_add_elf(c, e->path, e->has_at ? &e->at : NULL, &err) < 0) {
            cli_error("coverage", "--elf %s", err.msg);
            return CLI_FAIL;
        }
    }
    return CLI_OK;
}

static int run_coverage(const struct coverage_opts *opts,
                        struct qtrace_reader *rd)
{
    struct qtrace_err err = { "" };
    const char *why;
    struct cov c;
    int read_ret, ret;

    read_ret = cov_collect(&c, rd, &err);
    if (read_ret == -ENOMEM) {
        cli_error("coverage", "%s: %s", opts->trace, err.msg);
        cov_fini(&c);
        return CLI_FAIL;
    }
    why = why_none(&c);
    if (why) {
        cli_error("coverage", "%s: %s", opts->trace, why);
        ret = CLI_FAIL;
    } else {
        ret = add_elf_files(opts, &c);
    }
    /* What was read is written, even when the trace stops early. */
    if (ret == CLI_OK) {
        ret = write_output(opts, &c, rd);
    }
    cov_fini(&c);
    if (read_ret < 0) {
        cli_error("coverage", "%s: %s", opts->trace, err.msg);
        return CLI_FAIL;
    }
    if (ret == CLI_OK) {
        ret = trace_end_check("coverage", opts->trace, rd);
    }
    return ret;
}

int cmd_coverage(int argc, char **argv)
{
    struct coverage_opts opts;
    struct qtrace_reader *rd;
    struct qtrace_err err = { "" };
    int ret;

    memset(&opts, 0, sizeof(opts));
    ret = parse_opts(argc, argv, &opts);
    if (ret != CLI_OK) {
        free_opts(&opts);
        return ret;
    }
    if (qtrace_reader_open(opts.trace, &rd, &err) < 0) {
        cli_error("coverage", "%s: %s", opts.trace, err.msg);
        free_opts(&opts);
        return CLI_FAIL;
    }
    progress_attach(rd, "coverage");
    ret = run_coverage(&opts, rd);
    qtrace_reader_close(rd);
    free_opts(&opts);
    return ret;
}
