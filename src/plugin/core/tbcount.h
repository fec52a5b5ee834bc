/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Exact tb_count on QEMU 7.2-8.2 (plugin API 1) when vCPUs run at once
 * (MTTCG, or a multi-threaded guest in user mode). There, the only inline
 * counter is one host address per block, shared by every vCPU, and
 * QEMU's add to it is not atomic: two vCPUs running the same block lose
 * counts. Here a callback per executed block adds to the vCPU's own
 * counter of that block instead: per-vCPU pages of counters indexed by
 * translation id, allocated at translation time, never shared between
 * vCPU threads. vCPUs beyond the slots set up count with an atomic add
 * on the block's shared counter (tb_info.count): still exact.
 * QEMU 9.0+ has per-vCPU scoreboards and needs none of this
 * (qc_count_tb).
 */
#ifndef QTRACE_PLUGIN_TBCOUNT_H
#define QTRACE_PLUGIN_TBCOUNT_H

#include <stdint.h>

#include "tbtab.h"

/* At install: per-vCPU counters for vCPUs 0 to slots - 1. */
int tbcount_setup(unsigned int slots);

/*
 * At translation, for a block to count: room for ti's counters, then the
 * callback to register (its userdata is ti). Returns -1 when memory runs
 * out (the block is not counted).
 */
int tbcount_add(const struct tb_info *ti);

/* The execution callback; udata is the block's tb_info. */
void tbcount_exec(unsigned int vcpu_index, void *udata);

/*
 * The executions of ti counted by all vCPUs since the last call, then
 * zero. Only while no vCPU runs translated code (exit, QEMU's flush).
 */
uint64_t tbcount_take(struct tb_info *ti);

#endif /* QTRACE_PLUGIN_TBCOUNT_H */
