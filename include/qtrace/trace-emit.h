/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * qtrace-trace's backend entry points, called only by the trace.c that
 * qtrace-tracetool generates (never by hand: their arguments follow the
 * generator's layout). Each runs on the thread that traced, and only when
 * its event is on. Formats: docs/tracing.md, docs/format.md.
 */
#ifndef QTRACE_TRACE_EMIT_H
#define QTRACE_TRACE_EMIT_H

#include <stddef.h>
#include <stdint.h>

#include "qtrace/trace-control.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * log: fmt starts with the event name; one line on stderr (or file=),
 * "TID@SEC.USEC:" first when timestamps are on, written by one write(2).
 */
void qtrace_trace_log(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));

/* syslog: LOG_INFO, "name fmt". */
void qtrace_trace_syslog(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));

/* ftrace: one write to tracefs's trace_marker, "name fmt". */
void qtrace_trace_ftrace(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));

/*
 * simple: one record of QEMU's simpletrace format. begin reserves room for
 * args_bytes of arguments and returns 0 (then write every argument and
 * call end) or -1 (file off, or buffer full: counted as dropped).
 */
struct qtrace_st_rec {
    size_t pos;                     /* where the next argument goes */
    size_t start;                   /* where the record starts */
};
int qtrace_st_begin(struct qtrace_st_rec *rec, const struct trace_event *ev,
                    size_t args_bytes);
void qtrace_st_u64(struct qtrace_st_rec *rec, uint64_t value);
void qtrace_st_str(struct qtrace_st_rec *rec, const char *s, uint32_t len);
void qtrace_st_end(struct qtrace_st_rec *rec);
/* Bytes a string argument takes (QEMU's cap: 512). NULL is empty. */
uint32_t qtrace_st_strlen(const char *s);

#ifdef __cplusplus
}
#endif

#endif /* QTRACE_TRACE_EMIT_H */
