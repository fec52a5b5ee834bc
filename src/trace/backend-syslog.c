/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The syslog backend, as QEMU's: LOG_DAEMON facility, LOG_PID, every
 * event at LOG_INFO as "name args". syslog(3) is thread-safe; it runs on
 * the tracing thread.
 */
#include <stdarg.h>
#include <syslog.h>

#include "qtrace/trace-emit.h"
#include "trace-int.h"

void backend_syslog_start(void)
{
    openlog(NULL, LOG_PID, LOG_DAEMON);
}

void qtrace_trace_syslog(const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsyslog(LOG_INFO, fmt, ap);
    va_end(ap);
}
