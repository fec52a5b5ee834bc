/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * trace-event for the events recorded by instrumentation made at
 * translation (mem_access, exec_insn): docs/control.md. The control
 * thread asks; the choice is applied at the quiescent point of the
 * translation flush it asks for, so that every block from there on is
 * translated under it; each vCPU marks the switch in its own stream, with
 * an event_switch record at the start of its first block after it.
 */
#ifndef QTRACE_PLUGIN_CTL_EVENTS_H
#define QTRACE_PLUGIN_CTL_EVENTS_H

#include <stdbool.h>
#include <stdint.h>

struct vcpu;

/* Switches applied so far (atomic); a vCPU compares its own count. */
extern uint32_t ctl_events_applied;

/*
 * Control thread: record event id (on) or not from the next flush of
 * the translations. 0, or -ENOSPC when this run has switched too often.
 */
int ctl_events_ask(unsigned int id, bool on);

/*
 * The quiescent point (QEMU's reset callback: no vCPU in translated
 * code): set_flag(id, on) for each switch asked since the last one.
 * True when there was one: the caller then makes every vCPU take its
 * slow path at its next block.
 */
bool ctl_events_apply(void (*set_flag)(unsigned int id, bool on));

/*
 * vCPU thread, at the start of a block at time: the event_switch records
 * of the switches applied after the *seen first ones; *seen follows.
 */
void ctl_events_cross(struct vcpu *vc, uint32_t *seen, uint64_t time);

#endif /* QTRACE_PLUGIN_CTL_EVENTS_H */
