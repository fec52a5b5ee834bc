/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * qtrace-trace: QEMU's tracing for any C program. The trace.h that
 * qtrace-tracetool generates from a trace-events file includes this
 * header; a program controls its events with the names QEMU uses in
 * trace/control.h. Link with libqtrace-trace (pkg-config qtrace-trace).
 * Every function here may be called from any thread; none is meant for a
 * hot path except the state tests, which read one flag and take no lock.
 * Guide: docs/tracing.md.
 */
#ifndef QTRACE_TRACE_CONTROL_H
#define QTRACE_TRACE_CONTROL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One event, as the generated trace.c describes it. */
struct trace_event {
    const char *name;               /* as in trace-events */
    uint16_t *dstate;               /* run-time state trace_foo() tests */
    bool sstate;                    /* false: "disable" or nop only, so
                                       trace_foo() compiles to nothing */
    uint32_t id;                    /* unique in the process, set when
                                       the group registers */
};

/* The events of one trace-events file (one generated trace.c). */
struct trace_event_group {
    const char *name;               /* --group given to qtrace-tracetool */
    struct trace_event *events;
    size_t n_events;
    unsigned int backends;          /* QTRACE_TRACE_BACKEND_* it calls */
    struct trace_event_group *next; /* registry link, owned by the library */
};

/* The backends a group may have been generated for. */
#define QTRACE_TRACE_BACKEND_NOP     (1u << 0)
#define QTRACE_TRACE_BACKEND_LOG     (1u << 1)
#define QTRACE_TRACE_BACKEND_SIMPLE  (1u << 2)
#define QTRACE_TRACE_BACKEND_FTRACE  (1u << 3)
#define QTRACE_TRACE_BACKEND_SYSLOG  (1u << 4)
#define QTRACE_TRACE_BACKEND_UST     (1u << 5)
#define QTRACE_TRACE_BACKEND_DTRACE  (1u << 6)

/*
 * State tests, as in QEMU: id is the TRACE_FOO of an event foo in trace.h.
 * trace_event_get_state_backends(TRACE_FOO) is a constant false for
 * "disable" events (no code at all), otherwise one relaxed load and one
 * predictable branch per switch: the event's own state, and with the ust
 * or dtrace backend LTTng's state of the tracepoint and the count of
 * attached tracers (TRACE_FOO_BACKEND_DSTATE() in trace.h). Use it to
 * guard work done only for a trace call.
 */
#define trace_event_get_state_dynamic_by_id(id) \
    (__builtin_expect(__atomic_load_n(&_##id##_DSTATE, __ATOMIC_RELAXED) \
                      != 0, 0))
#define trace_event_get_state(id) \
    ((id##_ENABLED) && trace_event_get_state_dynamic_by_id(id))
#define trace_event_get_state_backends(id) \
    ((id##_ENABLED) && (trace_event_get_state_dynamic_by_id(id) || \
                        id##_BACKEND_DSTATE()))

/*
 * Start the backends the program was generated with (simple: its writer
 * thread and trace file; syslog: openlog; ftrace: trace_marker) after
 * applying QTRACE_TRACE from the environment (the same items as
 * trace_opt_parse(), separated by ';') and QTRACE_MSG (as
 * trace_msg_parse()). Call once, early in main().
 * Returns false after printing one line on stderr if an item is wrong
 * (unknown key, an events file that cannot be read); the program should
 * then exit with a failure status, as QEMU does.
 */
bool trace_init_backends(void);

/*
 * Parse one --trace argument, QEMU's syntax: comma-separated items,
 * "PATTERN" or "enable=PATTERN" (enable matching events),
 * "events=FILE" (one pattern per line, "-pattern" disables, '#' comments)
 * and "file=FILE" (the simple backend's file, or the log backend's when
 * there is no simple backend; used by trace_init_file()). Returns false
 * after printing one line on stderr.
 */
bool trace_opt_parse(const char *optarg);

/*
 * Apply the file= given so far: the simple backend's trace file (default
 * trace-PID in the working directory) or the log backend's output.
 * trace_init_backends() calls it; call it again after trace_opt_parse().
 */
void trace_init_file(void);

/*
 * Enable every event whose name matches the glob pattern ("-pattern"
 * disables). Events declared "disable" are skipped by globs; naming one
 * exactly, or a name no event has, prints a warning.
 */
void trace_enable_events(const char *pattern);

/* The event called name, or NULL. */
struct trace_event *trace_event_name(const char *name);

/* Iteration over the events whose names match a glob (NULL: all). */
struct trace_event_iter {
    const char *pattern;
    struct trace_event_group *group;
    size_t index;
};
void trace_event_iter_init_pattern(struct trace_event_iter *iter,
                                   const char *pattern);
struct trace_event *trace_event_iter_next(struct trace_event_iter *iter);

static inline const char *trace_event_get_name(const struct trace_event *ev)
{
    return ev->name;
}

static inline uint32_t trace_event_get_id(const struct trace_event *ev)
{
    return ev->id;
}

static inline bool trace_event_get_state_static(const struct trace_event *ev)
{
    return ev->sstate;
}

static inline bool
trace_event_get_state_dynamic(const struct trace_event *ev)
{
    return __atomic_load_n(ev->dstate, __ATOMIC_RELAXED) != 0;
}

/* Turn an event on or off at run time (ignored for "disable" events). */
void trace_event_set_state_dynamic(struct trace_event *ev, bool state);

/*
 * The simple backend's trace file, as QEMU's monitor "trace-file":
 * st_set_trace_file_enabled(true) (re)creates the file and writes records
 * to it, false stops and closes it (records are then refused, not
 * counted as dropped); st_flush_trace_buffer() writes out what is
 * buffered before it returns; st_set_trace_file() switches to another
 * file (NULL: trace-PID). The file is flushed at exit.
 */
bool st_set_trace_file_enabled(bool enable);
void st_flush_trace_buffer(void);
void st_set_trace_file(const char *file);

/* Log backend: print the "TID@SEC.USEC:" prefix (default on), as -msg. */
void trace_log_set_timestamp(bool on);

/*
 * Parse one -msg argument, QEMU's syntax: "timestamp=on|off". Returns
 * false after printing one line on stderr. trace_init_backends() applies
 * QTRACE_MSG from the environment the same way.
 */
bool trace_msg_parse(const char *optarg);

/* Called by each generated trace.c from a constructor. */
void trace_event_register_group(struct trace_event_group *group);

#ifdef __cplusplus
}
#endif

#endif /* QTRACE_TRACE_CONTROL_H */
