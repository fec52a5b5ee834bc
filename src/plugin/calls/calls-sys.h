/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The call tracker of system mode (docs/calls.md, "System mode"): one
 * shadow stack per guest task and level (kernel, user) on each vCPU,
 * each frame placed on the guest's stack by the address its call or
 * prologue wrote, so that a context switch (a return read from another
 * task's stack) switches shadow stacks; thunks are not frames; interrupts,
 * exceptions and system calls (told by flow.c) push a frame of their own
 * and their return pops it. Records func_entry, func_exit and
 * func_stack. Translation hooks run on any translating thread; the rest
 * on the vCPU's own thread, with no lock and no system call per event.
 */
#ifndef QTRACE_PLUGIN_CALLS_SYS_H
#define QTRACE_PLUGIN_CALLS_SYS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../../qemu/qemu-plugin.h"
#include "flow.h"
#include "../core/tbtab.h"
#include "../buffer/vbuf.h"

/*
 * At install, system mode: track calls for QEMU target `target` (x86_64
 * and aarch64), recording func_entry, func_exit (want_*) and func_stack
 * (want_stack), handing entries and exits to the instrumentation
 * libraries that asked (instr_*). False (nothing tracked) for another
 * target or when nothing is wanted.
 */
bool calls_sys_setup(const char *target, bool want_entry, bool want_exit,
                     bool want_stack, bool instr_entry, bool instr_exit);

/* Whether there is a system-mode tracker for QEMU target `target`. */
bool calls_sys_available(const char *target);

/* A vCPU starts: one task, kernel level, empty stacks. */
void calls_sys_vcpu_start(unsigned int vcpu, struct vbuf *vb,
                          struct flow_hot *hot);

/* A vCPU ends: every open frame of every task is closed (kind 3). */
void calls_sys_vcpu_stop(unsigned int vcpu, uint64_t time);

/*
 * Translation, after flow_tb_trans: register the callbacks of the
 * block's call, return or tail call and of its frame saves and
 * restores (aarch64).
 */
void calls_sys_tb_trans(struct qemu_plugin_tb *tb, struct tb_info *ti);

/*
 * flow.c, at the start of tb (prev the block before), when a branch or
 * a thunk is noted: apply it. trap: an interrupt or exception came
 * between prev and tb (tb is its handler). Returns true when a return
 * went elsewhere than where its frame returns to: then an interrupt
 * came right after it.
 */
bool calls_sys_branch(unsigned int vcpu, const struct tb_info *prev,
                      const struct tb_info *tb, uint64_t start, bool trap);

/*
 * flow.c: the direct jump at `from` reached tb, which starts the way
 * functions start: a tail call if tb is one (SYS_F_ENTRY, or a call to
 * __fentry__ as the tracker learnt it).
 */
void calls_sys_jump(unsigned int vcpu, const struct tb_info *tb,
                    uint64_t from, uint64_t time);

/*
 * flow.c: an interrupt, exception or system call enters handler (from
 * user code: from_user), or one returns to `to` (to user code: to_user),
 * the block tb (NULL: straight into another trap's handler), at time.
 */
void calls_sys_trap_entry(unsigned int vcpu, uint64_t handler,
                          bool from_user, uint64_t time);
void calls_sys_trap_return(unsigned int vcpu, const struct tb_info *tb,
                           uint64_t to, bool to_user, uint64_t time);

/* "key=value\n" lines of counters for the END chunk. */
void calls_sys_fmt_counts(char *buf, size_t len);

#endif /* QTRACE_PLUGIN_CALLS_SYS_H */
