/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * backend=ust: the plugin's LTTng-UST tracepoints and probes live in
 * libqtrace-ust.so, beside libqtrace.so, which the plugin loads for
 * backend=ust only.
 */
#ifndef QTRACE_PLUGIN_UST_LOAD_H
#define QTRACE_PLUGIN_UST_LOAD_H

#include "qtrace/err.h"
#include "qtrace/reader.h"

/*
 * dlopen() the module from the plugin's own directory (it stays loaded
 * for the life of the process) and find its emit function. Install
 * time. Returns 0, or -1 with err naming the module and the reason.
 */
int ust_load(struct qtrace_err *err);

/* rec's tracepoint, if a session has it on; after ust_load(). Writer. */
void ust_emit(const struct qtrace_record *rec);

#endif /* QTRACE_PLUGIN_UST_LOAD_H */
