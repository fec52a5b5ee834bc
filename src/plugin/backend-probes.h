/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The plugin's events as LTTng-UST tracepoints (provider "qtrace") and
 * SDT probes (provider "qtrace"), defined by backend-probes-gen.c, which
 * qtrace-tracetool --plugin --format=plugin-c writes from trace-events
 * at build time. Which of the two a build has depends on what was found
 * when configuring (liblttng-ust-dev, sys/sdt.h). Writer thread only.
 */
#ifndef QTRACE_PLUGIN_BACKEND_PROBES_H
#define QTRACE_PLUGIN_BACKEND_PROBES_H

#include "qtrace/reader.h"

/* QTRACE_TRACE_BACKEND_UST and/or _DTRACE: the ones this build has. */
extern const unsigned int backend_probes_built;

/*
 * Fire rec's tracepoint (if on has the ust bit and an LTTng session has
 * the event on) and its SDT probe (if on has the dtrace bit and a tracer
 * is attached); nothing is decoded otherwise. rec's event must come from
 * the plugin's own catalog (ids are those of trace-events).
 */
void backend_probes_emit(const struct qtrace_record *rec, unsigned int on);

#endif /* QTRACE_PLUGIN_BACKEND_PROBES_H */
