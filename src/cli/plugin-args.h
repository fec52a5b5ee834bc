/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The value of QEMU's -plugin option for qtrace record: the plugin path and
 * its key=value options, escaped for QEMU's option parser (which splits on
 * ',' and reads ",," as a literal comma). Pure string work, no I/O.
 */
#ifndef QTRACE_CLI_PLUGIN_ARGS_H
#define QTRACE_CLI_PLUGIN_ARGS_H

#include <stddef.h>

struct plugin_args {
    const char *plugin;             /* path of libqtrace.so, required */
    const char *out;                /* trace file, required */
    const char *events;             /* -e patterns (',' or ';'), or NULL */
    char *const *opts;              /* -O KEY=VALUE strings */
    size_t n_opts;
};

/*
 * Build "file=PLUGIN,out=OUT[,events=EVENTS][,KEY=VALUE...]": commas of
 * events become ';' (the plugin's other separator) unless events is
 * "@FILE", every other comma is doubled. Returns a string the caller
 * frees, or NULL when out of memory.
 */
char *plugin_args_join(const struct plugin_args *pa);

/*
 * Check one -O argument. Returns NULL if it is a usable KEY=VALUE, else a
 * reason ("expected KEY=VALUE", "use -o FILE" for out=...), a static
 * string.
 */
const char *plugin_args_check_opt(const char *kv);

#endif /* QTRACE_CLI_PLUGIN_ARGS_H */
