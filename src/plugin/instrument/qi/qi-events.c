/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The qemu-instr calls a library makes (include/qemu-instr/control.h) and
 * the predefined callbacks (events.h): setting an event's callback and
 * trace state, and _nop, _trace, _gen_exec. Exported by libqtrace.so
 * (plugin.map). Any thread; the _trace and _nop callbacks run on vCPU
 * threads: no lock, no allocation.
 */
#include "qemu-instr/control.h"
#include "qi-state.h"

struct qi_state qi_state;

/* The event id behind ev, or 0 for none. */
static unsigned int id_of(const QIEvent *ev)
{
    uintptr_t id = (uintptr_t)ev;

    return id > 0 && id < QI_EVENT_ID_COUNT ? (unsigned int)id : 0;
}

/* A translation-time decision can change what QEMU was asked for. */
static bool is_translation_time(unsigned int id)
{
    return id == QI_EVENT_ID_GUEST_MEM_BEFORE_TRANS;
}

void qi_ctrl_event_set(QIEvent *ev, void *cb)
{
    unsigned int id = id_of(ev);
    void *old;

    if (!id) {
        return;
    }
    old = __atomic_exchange_n(&qi_state.cb[id], cb, __ATOMIC_ACQ_REL);
    /*
     * Before qi_init returns nothing is translated yet; later, blocks
     * translated under the old callback keep its execution callbacks
     * until QEMU translates them again.
     */
    if (old != cb && is_translation_time(id) &&
        __atomic_load_n(&qi_state.started, __ATOMIC_ACQUIRE) &&
        qi_state.flush) {
        qi_state.flush();
    }
}

void qi_trace_event_set_state_dynamic(QIEvent *ev, bool state)
{
    unsigned int id = id_of(ev);

    if (id) {
        __atomic_store_n(&qi_state.trace_on[id], state, __ATOMIC_RELEASE);
    }
}

bool qi_trace_event_get_state_dynamic(QIEvent *ev)
{
    unsigned int id = id_of(ev);

    return id && __atomic_load_n(&qi_state.trace_on[id], __ATOMIC_ACQUIRE);
}

int qi_cpu_index(QICPU *cpu)
{
    return qi_vcpu_of(cpu);
}

void qi_state_trace(QICPU *cpu, unsigned int id, const uint64_t *v,
                    unsigned int n)
{
    uint64_t values[4] = { 0, 0, 0, 0 };
    unsigned int i;
    int vcpu;

    if (!qi_state.host ||
        !__atomic_load_n(&qi_state.trace_on[id], __ATOMIC_ACQUIRE)) {
        return;
    }
    vcpu = qi_vcpu_of(cpu);
    if (vcpu >= 0) {
        qi_state.host->emit(qi_state.host, (unsigned int)vcpu, id, v, n);
        return;
    }
    /* Translation time: the record belongs to no vCPU. */
    if (cpu == QI_CPU_TRANSLATOR && qi_state.emit_trans) {
        for (i = 0; i < n && i < 4; i++) {
            values[i] = v[i];
        }
        qi_state.emit_trans(qi_state.lib_index, id, values);
    }
}

/* ---- predefined callbacks ---- */

void qi_event_guest_cpu_enter_nop(QICPU *cpu)
{
    (void)cpu;
}

void qi_event_guest_cpu_enter_trace(QICPU *cpu)
{
    qi_state_trace(cpu, QI_EVENT_ID_GUEST_CPU_ENTER, NULL, 0);
}

void qi_event_guest_cpu_exit_nop(QICPU *cpu)
{
    (void)cpu;
}

void qi_event_guest_cpu_exit_trace(QICPU *cpu)
{
    qi_state_trace(cpu, QI_EVENT_ID_GUEST_CPU_EXIT, NULL, 0);
}

void qi_event_guest_mem_before_trans_nop(QICPU *cpu, QITCGv_cpu tcg_cpu,
                                         QITCGv vaddr, uint8_t info)
{
    (void)cpu;
    (void)tcg_cpu;
    (void)vaddr;
    (void)info;
}

/*
 * At translation the address is unknown: the record holds the
 * instruction's address instead (0 outside the access's callback).
 */
void qi_event_guest_mem_before_trans_trace(QICPU *cpu, QITCGv_cpu tcg_cpu,
                                           QITCGv vaddr, uint8_t info)
{
    const uint64_t v[2] = { qi_host_trans_pc(vaddr), info };

    (void)tcg_cpu;
    qi_state_trace(cpu, QI_EVENT_ID_GUEST_MEM_BEFORE_TRANS, v, 2);
}

void qi_event_guest_mem_before_trans_gen_exec(QICPU *cpu, QITCGv_cpu tcg_cpu,
                                              QITCGv vaddr, uint8_t info)
{
    (void)cpu;
    (void)tcg_cpu;
    qi_host_gen_exec(vaddr, info);
}

void qi_event_guest_mem_before_trans_trace_and_gen_exec(
    QICPU *cpu, QITCGv_cpu tcg_cpu, QITCGv vaddr, uint8_t info)
{
    qi_event_guest_mem_before_trans_trace(cpu, tcg_cpu, vaddr, info);
    qi_event_guest_mem_before_trans_gen_exec(cpu, tcg_cpu, vaddr, info);
}

void qi_event_guest_mem_before_exec_nop(QICPU *cpu, uint64_t vaddr,
                                        uint8_t info)
{
    (void)cpu;
    (void)vaddr;
    (void)info;
}

void qi_event_guest_mem_before_exec_trace(QICPU *cpu, uint64_t vaddr,
                                          uint8_t info)
{
    const uint64_t v[2] = { vaddr, info };

    qi_state_trace(cpu, QI_EVENT_ID_GUEST_MEM_BEFORE_EXEC, v, 2);
}

void qi_event_guest_user_syscall_nop(QICPU *cpu, uint64_t num, uint64_t arg1,
                                     uint64_t arg2, uint64_t arg3,
                                     uint64_t arg4, uint64_t arg5,
                                     uint64_t arg6, uint64_t arg7,
                                     uint64_t arg8)
{
    (void)cpu;
    (void)num;
    (void)arg1;
    (void)arg2;
    (void)arg3;
    (void)arg4;
    (void)arg5;
    (void)arg6;
    (void)arg7;
    (void)arg8;
}

/* The record has room for the number and the first three arguments. */
void qi_event_guest_user_syscall_trace(QICPU *cpu, uint64_t num,
                                       uint64_t arg1, uint64_t arg2,
                                       uint64_t arg3, uint64_t arg4,
                                       uint64_t arg5, uint64_t arg6,
                                       uint64_t arg7, uint64_t arg8)
{
    const uint64_t v[4] = { num, arg1, arg2, arg3 };

    (void)arg4;
    (void)arg5;
    (void)arg6;
    (void)arg7;
    (void)arg8;
    qi_state_trace(cpu, QI_EVENT_ID_GUEST_USER_SYSCALL, v, 4);
}

void qi_event_guest_user_syscall_ret_nop(QICPU *cpu, uint64_t num,
                                         uint64_t ret)
{
    (void)cpu;
    (void)num;
    (void)ret;
}

void qi_event_guest_user_syscall_ret_trace(QICPU *cpu, uint64_t num,
                                           uint64_t ret)
{
    const uint64_t v[2] = { num, ret };

    qi_state_trace(cpu, QI_EVENT_ID_GUEST_USER_SYSCALL_RET, v, 2);
}
