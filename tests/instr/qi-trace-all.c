/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A qemu-instr library that sets every event to its predefined _trace
 * callback (the memory translation event to _trace_and_gen_exec, so every
 * access's execution is traced too) and turns every event's tracing on:
 * the trace then holds one user_event record per event raised.
 */
#include "qemu-instr/control.h"

static void trace(QIEvent *ev, void *cb)
{
    qi_ctrl_event_set(ev, cb);
    qi_trace_event_set_state_dynamic(ev, true);
}

void qi_init(int argc, const char **argv)
{
    (void)argc;
    (void)argv;
    trace(QI_EVENT_GUEST_CPU_ENTER, (void *)qi_event_guest_cpu_enter_trace);
    trace(QI_EVENT_GUEST_CPU_EXIT, (void *)qi_event_guest_cpu_exit_trace);
    trace(QI_EVENT_GUEST_MEM_BEFORE_TRANS,
          (void *)qi_event_guest_mem_before_trans_trace_and_gen_exec);
    trace(QI_EVENT_GUEST_MEM_BEFORE_EXEC,
          (void *)qi_event_guest_mem_before_exec_trace);
    trace(QI_EVENT_GUEST_USER_SYSCALL,
          (void *)qi_event_guest_user_syscall_trace);
    trace(QI_EVENT_GUEST_USER_SYSCALL_RET,
          (void *)qi_event_guest_user_syscall_ret_trace);
}
