/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The names backend= accepts: the tracing runtime's backends (the same
 * QTRACE_TRACE_BACKEND_* bits as qtrace-tracetool's --backends) that the
 * plugin can feed from its writer thread. ust and dtrace are there only
 * where the build found LTTng-UST and sys/sdt.h; a known name this build
 * lacks is refused by name, so that a list never half works.
 */
#ifndef QTRACE_PLUGIN_BACKEND_LIST_H
#define QTRACE_PLUGIN_BACKEND_LIST_H

#include "qtrace/err.h"

/*
 * Parse "log,simple,..." (',' or ';' between names: QEMU splits
 * plugin options at single commas, so a raw command line writes
 * "log;simple" or "log,,simple") into *mask. Returns 0, or -EINVAL
 * with err naming the entry ("ust: not in this build of the plugin
 * (liblttng-ust-dev was not found ...)").
 */
int backend_list_parse(const char *list, unsigned int *mask,
                       struct qtrace_err *err);

/* The name of one QTRACE_TRACE_BACKEND_* bit, or "?". */
const char *backend_list_name(unsigned int bit);

#endif /* QTRACE_PLUGIN_BACKEND_LIST_H */
