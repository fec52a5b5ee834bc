/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The plugin's events as SDT probes (provider "qtrace", in libqtrace.so,
 * backend-probes-gen.c) and as LTTng-UST tracepoints (provider "qtrace",
 * in libqtrace-ust.so, backend-probes-ust.c, reached through
 * ust-load.h). qtrace-tracetool --plugin --format=plugin-c writes both
 * from trace-events at build time, each defining the function below;
 * which of them a build has depends on what was found when configuring
 * (sys/sdt.h, liblttng-ust-dev). Writer thread only.
 */
#ifndef QTRACE_PLUGIN_BACKEND_PROBES_H
#define QTRACE_PLUGIN_BACKEND_PROBES_H

#include "qtrace/reader.h"

/*
 * Fire rec's tracepoint (if on has the ust bit and an LTTng session has
 * the event on) and its SDT probe (if on has the dtrace bit and a tracer
 * is attached); nothing is decoded otherwise. rec's event must come from
 * the plugin's own catalog (ids are those of trace-events), or be an
 * instrumentation library's own event (an id past them, LIB:EVENT),
 * which fires qtrace:lib_event.
 */
void backend_probes_emit(const struct qtrace_record *rec, unsigned int on);

#endif /* QTRACE_PLUGIN_BACKEND_PROBES_H */
