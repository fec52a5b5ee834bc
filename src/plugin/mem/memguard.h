/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A guard against a QEMU 7.2 defect: the list of access callbacks that
 * QEMU's helpers call (CPUState's plugin_mem_cbs) is set before an
 * instrumented instruction that calls a helper and cleared after it, but
 * not when that instruction ends its block (a return, an indirect jump:
 * the clearing is dead code after the block's exit). The list stays set
 * after the block, so that a helper's access in a later instruction
 * without access callbacks (an atomic instruction of a threaded guest)
 * calls the stale list: a callback of another instruction, or, once a
 * translation flush has freed the list, freed memory (QEMU dies, and the
 * guest is said to have had SIGSEGV). QEMU 8.0 clears the list at every
 * block exit.
 *
 * The guard: once an access callback has been registered, every
 * instruction translated without one gets an inline operation that
 * matches no access, so that QEMU sets the list to that instruction's
 * own (which calls nothing) before its helpers run. Off on QEMU 8.0 and later, and before the first access
 * callback (the list was never set).
 */
#ifndef QTRACE_PLUGIN_MEMGUARD_H
#define QTRACE_PLUGIN_MEMGUARD_H

#include <stdbool.h>

#include "../../qemu/qemu-plugin.h"

/* Install time: whether the running QEMU has the defect. */
void memguard_setup(int api, const char *qemu_version);

/* Translation time: an access callback is registered from now on. */
void memguard_arm(void);

/* Translation time: insn gets no access callback of the plugin's. */
void memguard_insn(struct qemu_plugin_insn *insn);

/* Translation time: no instruction of tb gets one. */
void memguard_tb(struct qemu_plugin_tb *tb);

#endif /* QTRACE_PLUGIN_MEMGUARD_H */
