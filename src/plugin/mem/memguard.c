/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The guard against QEMU 7.2's stale access-callback list (memguard.h).
 * Only in runs that instrument accesses on QEMU 7.2, in the blocks QEMU
 * would otherwise run plain: an operation per instruction at
 * translation, and QEMU's two stores around each instruction that calls
 * a helper (docs/performance.md: no cost per instruction run measured).
 */
#include <stdlib.h>

#include "memguard.h"

static struct {
    bool needed;                /* this QEMU has the defect */
    bool armed;                 /* an access callback was registered */
    uint64_t sink;              /* the inline add's target, never read */
} mg;

void memguard_setup(int api, const char *qemu_version)
{
    long major = strtol(qemu_version, NULL, 10);

    /*
     * API 2 is QEMU 9.0 on; an unknown version gets the guard, where
     * QEMU has the call (gone from 9.0's API).
     */
    mg.needed = api < 2 && major < 8 &&
                qemu_plugin_register_vcpu_mem_inline != NULL;
}

void memguard_arm(void)
{
    if (mg.needed && !__atomic_load_n(&mg.armed, __ATOMIC_RELAXED)) {
        __atomic_store_n(&mg.armed, true, __ATOMIC_RELAXED);
    }
}

void memguard_insn(struct qemu_plugin_insn *insn)
{
    if (!__atomic_load_n(&mg.armed, __ATOMIC_RELAXED)) {
        return;
    }
    /*
     * For no kind of access (rw 0): QEMU 7.2 emits the inline add at
     * the accesses that match rw, that is none, but still counts the
     * operation when it decides whether the instruction's helpers get
     * its list; its helpers then stop at the operation, which matches
     * no access either. What is left is QEMU setting and clearing the
     * pointer around the instructions that call helpers.
     */
    qemu_plugin_register_vcpu_mem_inline(insn, (enum qemu_plugin_mem_rw)0,
                                         QEMU_PLUGIN_INLINE_ADD_U64,
                                         &mg.sink, 0);
}

void memguard_tb(struct qemu_plugin_tb *tb)
{
    size_t i, n;

    if (!__atomic_load_n(&mg.armed, __ATOMIC_RELAXED)) {
        return;
    }
    n = qemu_plugin_tb_n_insns(tb);
    for (i = 0; i < n; i++) {
        memguard_insn(qemu_plugin_tb_get_insn(tb, i));
    }
}
