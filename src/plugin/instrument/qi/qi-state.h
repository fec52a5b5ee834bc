/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The qemu-instr layer's one state (there is one qemu-instr library per
 * run): each event's callback and trace state, read on vCPU threads
 * without a lock, and the host table the layer registered through.
 * Shared by qi-events.c (the qi_* calls) and qi-host.c (the hooks).
 */
#ifndef QTRACE_PLUGIN_QI_STATE_H
#define QTRACE_PLUGIN_QI_STATE_H

#include <stdbool.h>
#include <stdint.h>

#include "qemu-instr/events.h"
#include "qtrace/instrument.h"

struct qi_state {
    /* Callback per event id (NULL: none); atomic loads and stores. */
    void *cb[QI_EVENT_ID_COUNT];
    bool trace_on[QI_EVENT_ID_COUNT];   /* atomic; _trace writes when on */
    const struct qtrace_instr_host *host;   /* NULL: no qemu-instr lib */
    uint32_t lib_index;                 /* user_event's lib field */
    bool started;                       /* qi_init has returned */
    /* Translation-time records (no vCPU); NULL when not recorded. */
    void (*emit_trans)(uint32_t lib, uint32_t id, const uint64_t v[4]);
    /* Retranslate all code (a translation-time callback changed). */
    void (*flush)(void);
};

extern struct qi_state qi_state;

/* The callback of event id, loaded once per event (vCPU threads). */
static inline void *qi_state_cb(unsigned int id)
{
    return __atomic_load_n(&qi_state.cb[id], __ATOMIC_ACQUIRE);
}

/* A QICPU handle for a vCPU index, and back (-1: not a vCPU). */
static inline QICPU *qi_cpu_of(unsigned int vcpu)
{
    return (QICPU *)(uintptr_t)((uintptr_t)vcpu + 1);
}

static inline int qi_vcpu_of(const QICPU *cpu)
{
    uintptr_t v = (uintptr_t)cpu;

    return cpu == NULL || cpu == QI_CPU_TRANSLATOR ? -1 : (int)(v - 1);
}

/* Writes event id's user_event record if its trace state is on. */
void qi_state_trace(QICPU *cpu, unsigned int id, const uint64_t *v,
                    unsigned int n);

/*
 * From a guest_mem_before_trans callback, about the access whose handle
 * is vaddr: ask for its execution-time event (_gen_exec), or its
 * instruction's address (0 for a handle that is not the current one).
 */
void qi_host_gen_exec(QITCGv vaddr, uint8_t info);
uint64_t qi_host_trans_pc(QITCGv vaddr);

#endif /* QTRACE_PLUGIN_QI_STATE_H */
