/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Example qemu-instr library (include/qemu-instr/) that sets every event
 * qtrace offers to its _nop callback: what hosting a qemu-instr library
 * costs when it asks for nothing (bench/bench.py mode counts+qi-nop).
 * _nop registers nothing with QEMU, so the guest runs as without it.
 */
#include "qemu-instr/control.h"

void qi_init(int argc, const char **argv)
{
    (void)argc;
    (void)argv;
    qi_ctrl_event_set(QI_EVENT_GUEST_CPU_ENTER,
                      (void *)qi_event_guest_cpu_enter_nop);
    qi_ctrl_event_set(QI_EVENT_GUEST_CPU_EXIT,
                      (void *)qi_event_guest_cpu_exit_nop);
    qi_ctrl_event_set(QI_EVENT_GUEST_MEM_BEFORE_TRANS,
                      (void *)qi_event_guest_mem_before_trans_nop);
    qi_ctrl_event_set(QI_EVENT_GUEST_MEM_BEFORE_EXEC,
                      (void *)qi_event_guest_mem_before_exec_nop);
    qi_ctrl_event_set(QI_EVENT_GUEST_USER_SYSCALL,
                      (void *)qi_event_guest_user_syscall_nop);
    qi_ctrl_event_set(QI_EVENT_GUEST_USER_SYSCALL_RET,
                      (void *)qi_event_guest_user_syscall_ret_nop);
}
