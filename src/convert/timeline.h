/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A trace as timelines, for the converters to trace viewers (chrome,
 * perfetto): one track per vCPU stream, function calls and system calls
 * as slices that nest on their track, every other record as an instant
 * with its arguments. The converter gives the records in file order and
 * writes what it is handed through struct timeline_ops; nothing is kept
 * but each stream's open frames, so memory does not grow with the trace.
 * Single-threaded, in the qtrace command.
 *
 * Per stream, the slices are properly nested and handed out in time
 * order: a function's frames come from qtrace_callstack (which keeps the
 * stack balanced whatever the records say), a system call is a slice
 * inside the innermost frame from its syscall record to its syscall_ret,
 * closed before any later function record when it never returned (exit,
 * a successful execve), and what is open when a stream ends is closed at
 * its last record's time. A time below its stream's last one (a damaged
 * trace) is raised to it, so viewers see no slice end before it begins.
 *
 * Times are each stream's instruction counts, or, in a trace with host
 * clock stamps (timeline=on; docs/format.md, "Timeline"), host times in
 * nanoseconds since the trace began, one clock for every stream; records
 * of no vCPU then take the latest host time met before them.
 */
#ifndef QTRACE_CONVERT_TIMELINE_H
#define QTRACE_CONVERT_TIMELINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "qtrace/err.h"
#include "qtrace/reader.h"

/* The track of records that belong to no vCPU (tb_trans, image_map). */
#define TIMELINE_GLOBAL UINT32_MAX

enum timeline_arg_type {
    TL_ARG_U64,                     /* u: an unsigned count */
    TL_ARG_I64,                     /* i: a signed value */
    TL_ARG_HEX,                     /* u: an address or flags, shown 0x... */
    TL_ARG_BOOL,                    /* u: 0 or 1 */
    TL_ARG_STR,                     /* s, len: text, not NUL-terminated */
    TL_ARG_BYTES,                   /* s, len: raw bytes, shown in hex */
};

struct timeline_arg {
    const char *name;               /* a C identifier */
    enum timeline_arg_type type;
    uint64_t u;
    int64_t i;
    const char *s;
    size_t len;
};

#define TIMELINE_MAX_ARGS 16

struct timeline_event {
    uint32_t stream;                /* its track, or TIMELINE_GLOBAL */
    uint64_t time;                  /* guest instructions of the stream,
                                       or host ns (timeline_is_host) */
    const char *name;               /* NUL-terminated; NULL on slice ends */
    const char *cat;                /* "call", "syscall", "event" or the
                                       library of a LIB:EVENT */
    unsigned int n_args;
    struct timeline_arg args[TIMELINE_MAX_ARGS];
};

/*
 * What a timeline hands out; arg is the converter's. Each returns 0 or
 * -errno with err set, which stops the conversion. Strings of an event
 * live until the call returns.
 */
struct timeline_ops {
    /* A vCPU stream's first record is coming: its track. */
    int (*track)(void *arg, uint32_t stream, uint32_t vcpu,
                 struct qtrace_err *err);
    int (*begin)(void *arg, const struct timeline_event *e,
                 struct qtrace_err *err);
    /* Ends the stream's innermost open slice; its args add to the begin's. */
    int (*end)(void *arg, const struct timeline_event *e,
               struct qtrace_err *err);
    int (*instant)(void *arg, const struct timeline_event *e,
                   struct qtrace_err *err);
};

/* What a timeline handed out, for the converters' summaries. */
struct timeline_counts {
    uint64_t tracks;
    uint64_t slices;                /* begun */
    uint64_t instants;
};

struct timeline;

/*
 * A timeline of the trace rd showing the events whose ids are set in
 * want (QTRACE_MAX_EVENTS entries): func_entry and func_exit as call
 * slices, syscall and syscall_ret as system call slices, the others as
 * instants. Loads the guest's symbols when function or block records
 * are shown (a file that cannot be read is reported on stderr as
 * "qtrace convert: PATH: REASON (addresses shown in hex)") and then
 * has the reader read only the chunks that hold events shown. Returns
 * NULL with err set when out of memory.
 */
struct timeline *timeline_new(struct qtrace_reader *rd, const bool *want,
                              const struct timeline_ops *ops, void *arg,
                              struct qtrace_err *err);

/* One record, in file order. Returns 0 or the first error of an op. */
int timeline_record(struct timeline *tl, const struct qtrace_record *rec,
                    struct qtrace_err *err);

/* Close every stream's open slices at its last time. 0 or -errno. */
int timeline_finish(struct timeline *tl, struct qtrace_err *err);

void timeline_free(struct timeline *tl);    /* NULL is a no-op */

const struct timeline_counts *timeline_counts(const struct timeline *tl);

/* Whether times are host times (the trace's clock stamps). */
bool timeline_is_host(const struct timeline *tl);

/*
 * The guest's process name for the viewers: the program's base name
 * (META binary), or "guest".
 */
const char *timeline_program(const struct timeline *tl);

/*
 * Whether the timeline holds anything: 0, or -ENODATA with err saying
 * that no record of a shown event was met ("TRACE: nothing to show
 * ..."). A timeline of instants only (no call or system call slice)
 * gets a note on stderr saying what -e adds.
 */
int timeline_check_shown(const struct timeline *tl, const char *trace_path,
                         struct qtrace_err *err);

/*
 * The events left out unless -e selects them: those of every block,
 * instruction and access (millions of points a second of guest time,
 * which make a timeline unreadable and its file huge), translations,
 * block counts, order points and clock stamps (which make the times).
 * NULL-terminated.
 */
extern const char *const timeline_default_hidden[];

/* "vCPU V (stream S)" into buf; returns buf. */
const char *timeline_track_name(uint32_t stream, uint32_t vcpu, char *buf,
                                size_t len);

#endif /* QTRACE_CONVERT_TIMELINE_H */
