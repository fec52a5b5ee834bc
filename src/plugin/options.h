/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The plugin's key=value options (-plugin libqtrace.so,KEY=VALUE,...),
 * parsed from one table at install time. An unknown key or a bad value
 * fails the load with one line naming it.
 */
#ifndef QTRACE_PLUGIN_OPTIONS_H
#define QTRACE_PLUGIN_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>

#include "evsel.h"
#include "filter.h"

struct options {
    char *out;                  /* out=: native trace path, NULL = none */
    char *log;                  /* log=: execlog-style text, or "stderr" */
    struct evsel sel;           /* events= */
    struct filter filter;       /* range=, ifilter=, afilter= */
    size_t chunk_bytes;         /* chunk=: per-vCPU buffer size */
    size_t buffer_bytes;        /* buffer=: all buffers together */
    bool events_given;          /* events= appeared */
    bool packed;                /* encoding=packed (default) or raw */
    bool lossy;                 /* lossy=on: drop chunks, never wait */
};

/* Defaults; cat must outlive opts. */
void options_init(struct options *opts, const struct qtrace_catalog *cat);
void options_fini(struct options *opts);

/*
 * Parse argv ("key=value" each). Returns 0, or -EINVAL with err reading
 * "KEY=VALUE: reason".
 */
int options_parse(struct options *opts, int argc, char **argv,
                  struct qtrace_err *err);

/* The option table as help text, one "key=VALUE  what" per line. */
const char *options_help(void);

#endif /* QTRACE_PLUGIN_OPTIONS_H */
