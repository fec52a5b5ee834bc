/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The qemu-instr control API as libqtrace.so provides it: a library's
 * entry points, setting an event's callback and its trace state, and the
 * vCPU index behind a QICPU handle. Calls are safe from any thread; see
 * docs/instrument.md ("The qemu-instr layer") for when a change takes
 * effect.
 */
#ifndef QEMU_INSTR_CONTROL_H
#define QEMU_INSTR_CONTROL_H

#include <stdbool.h>

#include "qemu-instr/events.h"

/*
 * Mandatory: called once when the plugin loads the library, before the
 * guest runs. argv[0] is the library's path as given to instr=, then the
 * instr-arg values given after it (argv[argc] is NULL). Callbacks set
 * here are in place before the first block is translated.
 */
QI_API void qi_init(int argc, const char **argv);

/*
 * Optional: called once at exit, after the last guest instruction and
 * before the trace is closed. Callbacks are reset by the host afterwards.
 */
QI_API void qi_fini(void);

/*
 * Set ev's callback: a function with the prototype of ev's _nop
 * (events.h), or NULL for none. NULL and _nop cost nothing: no
 * callback is asked of QEMU for them. An unknown ev is ignored.
 *
 * Execution-time events take the new callback from their next
 * occurrence. guest_mem_before_trans decides at translation time which
 * accesses get an execution-time callback: set after qi_init, the change
 * makes qtrace flush QEMU's translations so that code already translated
 * is translated again under the new callback (it takes effect once the
 * running blocks end).
 */
QI_API void qi_ctrl_event_set(QIEvent *ev, void *cb);

/*
 * Turn the writing of ev's records by its _trace callback on or off
 * (initially off). It changes nothing else: a callback set by
 * qi_ctrl_event_set() keeps being called.
 */
QI_API void qi_trace_event_set_state_dynamic(QIEvent *ev, bool state);

/* ev's trace state; false for an unknown ev. */
QI_API bool qi_trace_event_get_state_dynamic(QIEvent *ev);

/* The index of the vCPU behind cpu, or -1 for QI_CPU_TRANSLATOR or NULL. */
QI_API int qi_cpu_index(QICPU *cpu);

#endif /* QEMU_INSTR_CONTROL_H */
