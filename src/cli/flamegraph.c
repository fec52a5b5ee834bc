/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * qtrace flamegraph: the trace's call stacks as an interactive flame
 * graph, an SVG file a browser opens (zoom on click, search). The tree
 * comes from flame-tree.c (the stacks `report --folded` prints), the
 * drawing from flame-svg.c. Written under a temporary name beside the
 * output and renamed when whole, as `convert` does.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <glib.h>

#include "cli.h"
#include "convert-out.h"
#include "flame-svg.h"
#include "flame-tree.h"
#include "guest-syms.h"
#include "out-guard.h"
#include "progress.h"
#include "trace-end.h"

enum { OPT_KEEP_PLT = 256, OPT_PER_STREAM, OPT_SYMBOLS, OPT_TITLE,
       OPT_MIN_WIDTH };

struct flamegraph_opts {
    const char *trace;              /* the trace, required */
    const char *out;                /* -o: the SVG; NULL: stdout */
    const char *title;              /* --title, or NULL: the program's */
    bool force;                     /* -f: replace any OUT file */
    double min_width_px;            /* --min-width */
    struct flame_opts tree;         /* --keep-plt, --per-stream */
};

static void print_usage(void)
{
    printf("usage: qtrace flamegraph [-o FILE.svg] [-f] [--title TEXT] "
           "[--per-stream]\n"
           "                         [--keep-plt] [--min-width PX] "
           "[--symbols FILE[@ADDR]]...\n"
           "                         TRACE\n"
           "\n"
           "An interactive flame graph of the guest's function calls\n"
           "(record them with -e 'func_*'), weighted by guest "
           "instructions:\n"
           "an SVG file for a web browser. Click a frame to zoom into "
           "it,\n"
           "'Reset Zoom' (or Escape) to go back, 'Search' (or Ctrl-F) to\n"
           "highlight the frames a regular expression matches and see "
           "their\n"
           "share of the instructions.\n"
           "\n"
           "Options:\n"
           "  -o, --output=FILE   write the SVG to FILE (default: standard\n"
           "                      output, when it is not a terminal)\n"
           "  -f, --force         replace FILE even if it is not an SVG "
           "file\n"
           "      --title=TEXT    the graph's title (default: 'Flame "
           "graph:\n"
           "                      PROGRAM')\n"
           "      --per-stream    one root frame per vCPU stream (thread)\n"
           "                      (default: one, the program)\n"
           "      --keep-plt      a PLT stub (name@plt) as a frame of its "
           "own\n"
           "      --min-width=PX  leave out frames narrower than PX pixels\n"
           "                      of the 1180 the graph spans (default "
           "0.1)\n"
           GUEST_SYMS_HELP
           "  -h, --help          print this help and exit\n");
}

static int parse_opts(int argc, char **argv, struct flamegraph_opts *opts)
{
    static const struct option long_opts[] = {
        { "output", required_argument, NULL, 'o' },
        { "force", no_argument, NULL, 'f' },
        { "title", required_argument, NULL, OPT_TITLE },
        { "per-stream", no_argument, NULL, OPT_PER_STREAM },
        { "keep-plt", no_argument, NULL, OPT_KEEP_PLT },
        { "min-width", required_argument, NULL, OPT_MIN_WIDTH },
        { "symbols", required_argument, NULL, OPT_SYMBOLS },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    char *end;
    int c;

    optind = 1;
    guest_syms_options_reset();
    while ((c = getopt_long(argc, argv, "+:o:fh", long_opts, NULL)) != -1) {
        switch (c) {
        case 'o':
            opts->out = optarg;
            break;
        case 'f':
            opts->force = true;
            break;
        case OPT_TITLE:
            opts->title = optarg;
            break;
        case OPT_PER_STREAM:
            opts->tree.per_stream = true;
            break;
        case OPT_KEEP_PLT:
            opts->tree.keep_plt = true;
            break;
        case OPT_MIN_WIDTH:
            opts->min_width_px = strtod(optarg, &end);
            if (end == optarg || *end || !(opts->min_width_px >= 0) ||
                opts->min_width_px > FLAME_SVG_WIDTH) {
                return cli_usage("flamegraph", "--min-width=%s: expected "
                                 "pixels, from 0 to %d", optarg,
                                 FLAME_SVG_WIDTH);
            }
            break;
        case OPT_SYMBOLS:
            if (guest_syms_option("flamegraph", optarg) != CLI_OK) {
                return CLI_USAGE;
            }
            break;
        case 'h':
            print_usage();
            return CLI_HELP;
        default:
            return cli_bad_option("flamegraph", c, argv);
        }
    }
    if (argc - optind != 1) {
        return cli_usage("flamegraph", "expected one TRACE");
    }
    opts->trace = argv[optind];
    if (!opts->out && isatty(STDOUT_FILENO)) {
        return cli_usage("flamegraph", "standard output is a terminal: "
                         "give -o FILE.svg or redirect it");
    }
    return CLI_OK;
}

/* An SVG file: what -o may replace without --force. */
static bool is_svg(const char *path)
{
    char head[512];
    FILE *f = fopen(path, "rb");
    size_t n;

    if (!f) {
        return false;
    }
    n = fread(head, 1, sizeof(head) - 1, f);
    fclose(f);
    head[n] = '\0';
    return strstr(head, "<svg") != NULL;
}

/* The lines above the graph. */
static void make_titles(const struct flamegraph_opts *opts,
                        struct qtrace_reader *rd,
                        const struct flame_tree *t, char **title,
                        char **subtitle)
{
    const char *bin = qtrace_reader_meta(rd, "binary");
    const char *arch = qtrace_reader_meta(rd, "arch");
    const char *slash = bin ? strrchr(bin, '/') : NULL;

    if (opts->title) {
        *title = g_strdup(opts->title);
    } else {
        *title = g_strdup_printf("Flame graph: %s",
                                 bin ? (slash ? slash + 1 : bin)
                                     : opts->trace);
    }
    *subtitle = g_strdup_printf("%" PRIu64 " guest instructions, %" PRIu64
                                " vCPU stream%s, %s; widths are "
                                "instructions", t->total, t->streams,
                                t->streams == 1 ? "" : "s",
                                arch ? arch : "unknown architecture");
}

/* Write the SVG of t to opts->out (or stdout); CLI_OK or CLI_FAIL. */
static int write_svg(const struct flamegraph_opts *opts,
                     struct qtrace_reader *rd, const struct flame_tree *t)
{
    struct convert_out o = { NULL, NULL, NULL, false };
    struct qtrace_err err = { "" };
    struct flame_svg_opts so = { NULL, NULL, opts->min_width_px };
    char *title, *subtitle;
    FILE *f = stdout;
    int ret = CLI_OK;

    make_titles(opts, rd, t, &title, &subtitle);
    so.title = title;
    so.subtitle = subtitle;
    if (opts->out && convert_out_begin(&o, opts->out, false, &err) < 0) {
        cli_error("flamegraph", "%s", err.msg);
        ret = CLI_FAIL;
    } else if (opts->out && !(f = fopen(o.path, "w"))) {
        cli_error("flamegraph", "%s: %s", opts->out, strerror(errno));
        ret = CLI_FAIL;
    }
    if (ret == CLI_OK && flame_svg_write(t, &so, f) < 0) {
        cli_error("flamegraph", "%s: %s", opts->out ? opts->out
                  : "standard output", strerror(EIO));
        ret = CLI_FAIL;
    }
    if (f && f != stdout && fclose(f) != 0 && ret == CLI_OK) {
        cli_error("flamegraph", "%s: %s", opts->out, strerror(errno));
        ret = CLI_FAIL;
    }
    if (ret == CLI_OK && opts->out && convert_out_commit(&o, &err) < 0) {
        cli_error("flamegraph", "%s", err.msg);
        ret = CLI_FAIL;
    }
    if (opts->out) {
        convert_out_discard(&o);
    }
    g_free(title);
    g_free(subtitle);
    return ret;
}

static int run_flamegraph(const struct flamegraph_opts *opts,
                          struct qtrace_reader *rd)
{
    struct qtrace_err err = { "" };
    struct flame_tree t;
    int ret = flame_tree_build(&t, rd, &opts->tree, "flamegraph", &err);

    if (ret == FLAME_EMPTY) {
        cli_error("flamegraph", "%s: none (no func_entry records; record "
                  "them with -e 'func_*')", opts->trace);
        return CLI_FAIL;
    }
    if (ret == -ENOMEM) {
        cli_error("flamegraph", "%s: %s", opts->trace, err.msg);
        return CLI_FAIL;
    }
    /* A trace that stops early still gives the graph of what was read. */
    if (write_svg(opts, rd, &t) != CLI_OK) {
        flame_tree_fini(&t);
        return CLI_FAIL;
    }
    flame_tree_fini(&t);
    if (ret < 0) {
        cli_error("flamegraph", "%s: %s", opts->trace, err.msg);
        return CLI_FAIL;
    }
    return trace_end_check("flamegraph", opts->trace, rd);
}

int cmd_flamegraph(int argc, char **argv)
{
    struct flamegraph_opts opts = { .min_width_px = 0.1 };
    struct qtrace_reader *rd;
    struct qtrace_err err;
    int ret = parse_opts(argc, argv, &opts);

    if (ret != CLI_OK) {
        return ret;
    }
    if (opts.out && !out_guard_check("flamegraph", opts.out, is_svg,
                                     "an SVG file", opts.force)) {
        return CLI_FAIL;
    }
    if (qtrace_reader_open(opts.trace, &rd, &err) < 0) {
        cli_error("flamegraph", "%s: %s", opts.trace, err.msg);
        return CLI_FAIL;
    }
    progress_attach(rd, "flamegraph");
    ret = run_flamegraph(&opts, rd);
    qtrace_reader_close(rd);
    return ret;
}
