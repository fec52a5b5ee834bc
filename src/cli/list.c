/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * qtrace list: the events of a catalog, one block each: name, whether it
 * is on by default, its arguments, then the trace-events comment that
 * describes it. The catalog is the one built into libqtrace.so, or the
 * one a trace FILE embeds (then also whether that trace recorded it).
 */
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "event-filter.h"
#include "plugin-catalog.h"
#include "plugin-path.h"
#include "qtrace/reader.h"

struct list_opts {
    const char *path;               /* trace FILE, or NULL: the plugin's */
    char *events;                   /* -e patterns, joined; owned */
    bool brief;                     /* -b: no descriptions */
};

/* The catalog being listed and what the trace (if any) says of it. */
struct listing {
    const struct qtrace_catalog *cat;
    const char *recorded;           /* a trace's META events=, or NULL */
    bool from_trace;
    struct event_filter filter;
    const char **lines;             /* cat->text split at '\n', 1-based */
    size_t n_lines;
};

static const char usage[] =
    "usage: qtrace list [-e PATTERNS] [-b] [FILE]\n"
    "\n"
    "Print the events qtrace can record: each event's name, whether it is\n"
    "on by default, its arguments and its description. The catalog is the\n"
    "one built into " PLUGIN_NAME ", or the one the trace FILE was\n"
    "written with (then a RECORDED column says which events it holds).\n"
    "\n"
    "Options:\n"
    "  -e, --events=PATTERNS  only events matching the glob PATTERNS\n"
    "                         (comma separated; '-PATTERN' hides); repeatable\n"
    "  -b, --brief            one line per event, no descriptions\n"
    "  -h, --help             print this help and exit\n";

static const struct option long_opts[] = {
    { "events", required_argument, NULL, 'e' },
    { "brief", no_argument, NULL, 'b' },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 },
};

static int parse_opts(int argc, char **argv, struct list_opts *opts)
{
    int c;

    opterr = 0;
    while ((c = getopt_long(argc, argv, ":e:bh", long_opts, NULL)) != -1) {
        switch (c) {
        case 'e':
            if (cli_add_events("list", &opts->events, optarg) != CLI_OK) {
                return CLI_FAIL;
            }
            break;
        case 'b':
            opts->brief = true;
            break;
        case 'h':
            fputs(usage, stdout);
            return CLI_HELP;
        default:
            return cli_bad_option("list", c, argv);
        }
    }
    if (argc - optind > 1) {
        return cli_usage("list", "%s: one trace FILE only", argv[optind + 1]);
    }
    opts->path = optind < argc ? argv[optind] : NULL;
    return CLI_OK;
}

/* Index the catalog text by line, so comments can be read upwards. */
static bool split_lines(struct listing *l)
{
    const char *p = l->cat->text;
    size_t n = 1;

    for (; *p; p++) {
        n += *p == '\n';
    }
    l->lines = calloc(n + 1, sizeof(*l->lines));
    if (!l->lines) {
        return false;
    }
    l->n_lines = 0;
    for (p = l->cat->text; *p; ) {
        l->lines[++l->n_lines] = p;
        p += strcspn(p, "\n");
        p += *p == '\n';
    }
    return true;
}

static size_t line_len(const char *line)
{
    return strcspn(line, "\n");
}

static bool is_comment(const char *line)
{
    return line[strspn(line, " \t")] == '#';
}

static bool is_blank(const char *line)
{
    return strspn(line, " \t") == line_len(line);
}

/*
 * The comment describing the event declared on line `at`: the block of
 * '#' lines right above it, or above the events declared next to it
 * without a blank line (a comment may introduce a group, as "vCPU life
 * cycle" does). Sets [*first, *last], empty when *first > *last.
 */
static void find_comment(const struct listing *l, size_t at, size_t *first,
                         size_t *last)
{
    size_t k = at < l->n_lines + 1 ? at : l->n_lines + 1;

    while (k > 1 && !is_blank(l->lines[k - 1]) &&
           !is_comment(l->lines[k - 1])) {
        k--;
    }
    *last = k - 1;
    while (k > 1 && is_comment(l->lines[k - 1])) {
        k--;
    }
    *first = k;
}

static void print_description(const struct listing *l,
                              const struct qtrace_event_desc *ev)
{
    size_t first, last, i;

    find_comment(l, ev->line, &first, &last);
    for (i = first; i <= last; i++) {
        const char *text = l->lines[i];
        size_t len;

        text += strspn(text, " \t") + 1;    /* past '#' */
        text += *text == ' ';
        len = line_len(text);
        printf("    %.*s\n", (int)len, text);
    }
}

static void print_args(const struct qtrace_event_desc *ev)
{
    unsigned int i;

    if (ev->n_args == 0) {
        fputs("-", stdout);
    }
    for (i = 0; i < ev->n_args; i++) {
        const char *type = ev->args[i].ctype;
        size_t tl = strlen(type);

        /* "const char *path" reads better than "const char * path". */
        printf("%s%s%s%s", i ? ", " : "", type,
               tl && type[tl - 1] == '*' ? "" : " ", ev->args[i].name);
    }
    putchar('\n');
}

/* Whether name is one of the comma-separated names of list. */
static bool in_list(const char *list, const char *name)
{
    size_t n = strlen(name);
    const char *p = list;

    while (*p) {
        size_t len = strcspn(p, ",");

        if (len == n && strncmp(p, name, n) == 0) {
            return true;
        }
        p += len;
        p += *p == ',';
    }
    return false;
}

static int name_width(const struct listing *l)
{
    size_t w = strlen("EVENT");
    unsigned int id;

    for (id = 1; id <= l->cat->n_events; id++) {
        if (event_filter_has(&l->filter, id) &&
            strlen(l->cat->events[id].name) > w) {
            w = strlen(l->cat->events[id].name);
        }
    }
    return (int)w;
}

static void print_events(const struct listing *l, bool brief)
{
    int w = name_width(l);
    unsigned int id;

    printf("%-*s  DEFAULT  %sARGUMENTS\n", w, "EVENT",
           l->from_trace ? "RECORDED  " : "");
    for (id = 1; id <= l->cat->n_events; id++) {
        const struct qtrace_event_desc *ev = &l->cat->events[id];

        if (!event_filter_has(&l->filter, id)) {
            continue;
        }
        printf("%-*s  %-7s  ", w, ev->name, ev->disabled ? "off" : "on");
        if (l->from_trace) {
            printf("%-8s  ", !l->recorded ? "?" :
                   in_list(l->recorded, ev->name) ? "yes" : "no");
        }
        print_args(ev);
        if (!brief) {
            print_description(l, ev);
        }
    }
}

static int list_catalog(struct listing *l, const struct list_opts *opts)
{
    struct qtrace_err err;

    if (event_filter_parse(&l->filter, l->cat, opts->events, &err) < 0) {
        return cli_usage("list", "-e %s", err.msg);
    }
    if (!split_lines(l)) {
        cli_error("list", "catalog: out of memory");
        return CLI_FAIL;
    }
    print_events(l, opts->brief);
    free(l->lines);
    return CLI_OK;
}

static int list_plugin(const struct list_opts *opts)
{
    struct qtrace_catalog cat = { 0 };
    struct listing l = { .cat = &cat };
    struct qtrace_err err;
    char *plugin = NULL;
    int ret = plugin_path_find("list", &plugin);

    if (ret != CLI_OK) {
        return ret;
    }
    if (plugin_catalog_load(plugin, &cat, &err) < 0) {
        cli_error("list", "%s", err.msg);
        ret = CLI_FAIL;
    } else {
        ret = list_catalog(&l, opts);
    }
    qtrace_catalog_fini(&cat);
    free(plugin);
    return ret;
}

static int list_trace(const struct list_opts *opts)
{
    struct qtrace_reader *rd;
    struct qtrace_err err;
    struct listing l = { .from_trace = true };
    int ret;

    if (qtrace_reader_open(opts->path, &rd, &err) < 0) {
        cli_error("list", "%s: %s", opts->path, err.msg);
        return CLI_FAIL;
    }
    l.cat = qtrace_reader_catalog(rd);
    l.recorded = qtrace_reader_meta(rd, "events");
    ret = list_catalog(&l, opts);
    qtrace_reader_close(rd);
    return ret;
}

int cmd_list(int argc, char **argv)
{
    struct list_opts opts = { .path = NULL, .events = NULL };
    int ret = parse_opts(argc, argv, &opts);

    if (ret == CLI_OK) {
        ret = opts.path ? list_trace(&opts) : list_plugin(&opts);
    }
    free(opts.events);
    return ret;
}
