/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Fuzz target: the plugin's option parsing (src/plugin/options.c and the
 * parsers it calls: evsel.c, filter.c, the etrace-flags list), against the
 * built-in catalog. The input is split at ',' into arguments, as QEMU
 * splits -plugin libqtrace.so,ARG,ARG; it is also handed whole to the
 * event selection, as a pattern list and as an events=@FILE file.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "options.h"
#include "qtrace-events.h"
#include "fuzz-file.h"

#define MAX_ARGS 64

static volatile uint64_t sink;
static struct qtrace_catalog catalog;

static const struct qtrace_catalog *builtin_catalog(void)
{
    struct qtrace_err err;

    if (catalog.n_events == 0 &&
        qtrace_catalog_parse(&catalog, qtrace_catalog_text, &err) < 0) {
        fprintf(stderr, "fuzz-options: built-in catalog: %s\n", err.msg);
        abort();
    }
    return &catalog;
}

/* text split at ',' in place into argv; returns argc. */
static int split_args(char *text, char **argv)
{
    int argc = 0;
    char *p = text;

    while (argc < MAX_ARGS) {
        argv[argc++] = p;
        p = strchr(p, ',');
        if (!p) {
            break;
        }
        *p++ = '\0';
    }
    return argc;
}

static void parse_options(const char *text)
{
    char *copy = strdup(text);
    char *argv[MAX_ARGS];
    struct options opts;
    struct qtrace_err err;
    char names[1024];
    int argc;

    if (!copy) {
        return;
    }
    argc = split_args(copy, argv);
    options_init(&opts, builtin_catalog());
    if (options_parse(&opts, argc, argv, &err) == 0) {
        evsel_fmt(&opts.sel, names, sizeof(names));
        sink += strlen(names) + opts.chunk_bytes + opts.flush_ms;
    } else {
        sink += strlen(err.msg);
    }
    options_fini(&opts);
    free(copy);
}

/* The whole text as an event selection, inline and from a file. */
static void parse_selection(const uint8_t *data, size_t size,
                            const char *text)
{
    const char *path = fuzz_file_write(data, size);
    struct evsel sel;
    struct qtrace_err err;
    char spec[4200];

    evsel_init(&sel, builtin_catalog());
    sink += (uint64_t)evsel_parse(&sel, text, &err);
    evsel_apply_implications(&sel);
    evsel_init(&sel, builtin_catalog());
    snprintf(spec, sizeof(spec), "@%s", path);
    sink += (uint64_t)evsel_parse(&sel, spec, &err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = strndup((const char *)data, size);

    if (!text) {
        return 0;
    }
    parse_options(text);
    parse_selection(data, size, text);
    free(text);
    return 0;
}
