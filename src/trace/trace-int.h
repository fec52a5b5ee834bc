/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the files of libqtrace-trace share: the registry's walk, the
 * backends' start functions and the file= option. Not installed.
 */
#ifndef QTRACE_TRACE_INT_H
#define QTRACE_TRACE_INT_H

#include <stdbool.h>

#include "qtrace/trace-control.h"

/* Union of the backends of every registered group. */
unsigned int control_backends(void);

/* The first registered group (then ->next), for the simple file's map. */
struct trace_event_group *control_groups(void);

/* file= from trace_opt_parse, or NULL; owned by opt.c. */
const char *opt_trace_file(void);

/* Backend start-up, from trace_init_backends(); print their own notes. */
bool backend_simple_start(void);
void backend_syslog_start(void);
void backend_ftrace_start(void);

/* After backend_ftrace_start(): whether trace_marker is open. */
bool backend_ftrace_ready(void);

/* Send the log backend's lines to path (NULL: stderr). */
bool backend_log_set_file(const char *path);

/*
 * Print id in front of every log line instead of the tracing thread's id
 * (0: back to it). For a program that traces on behalf of others from one
 * thread, such as the qtrace plugin's writer, which gives QEMU's pid.
 */
void backend_log_set_thread_id(long id);

/* One line on stderr, "qtrace-trace: ..." (control path only). */
void ctl_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif /* QTRACE_TRACE_INT_H */
