/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Calibration plugin for the benchmarks: what QEMU itself charges for the
 * ways a tracer can hook blocks, before the tracer does any work. With no
 * argument every executed block calls an empty function (the floor of any
 * ordered block trace); `append=on` also appends the block's 8-byte
 * address to a per-vCPU ring without I/O (the naive way to record block
 * order); `inline=on` only counts executions with QEMU's inline add (the
 * floor of a counting mode); `trans=on` only sees each translation and
 * instruments nothing (what loading a plugin costs at all); `mem=on`
 * adds an empty callback on every load and store to the empty block
 * callback (the floor of a trace of blocks and accesses); `mem-append=on`
 * appends 8 bytes per block and per access (its address) to the ring
 * instead (the floor of a trace that stages each access in 8 bytes, with
 * nothing encoded or written); `phys=on`
 * makes that callback ask QEMU where a RAM access went, as a system-mode
 * trace with physical addresses must (the floor of one).
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../src/qemu/qemu-compat.h"

#define MAX_VCPUS 4096
#define RING_WORDS 8192     /* per vCPU, a power of two */

struct ring {
    uint64_t pos;
    uint64_t word[RING_WORDS];
} __attribute__((aligned(64)));

static struct ring rings[MAX_VCPUS];

static void block_empty(unsigned int vcpu_index, void *udata)
{
    (void)vcpu_index;
    (void)udata;
}

static void block_append(unsigned int vcpu_index, void *udata)
{
    struct ring *r;

    if (vcpu_index >= MAX_VCPUS) {
        return;
    }
    r = &rings[vcpu_index];
    r->word[r->pos++ & (RING_WORDS - 1)] = (uint64_t)(uintptr_t)udata;
}

static void access_empty(unsigned int vcpu_index, qemu_plugin_meminfo_t info,
                         uint64_t vaddr, void *udata)
{
    (void)vcpu_index;
    (void)info;
    (void)vaddr;
    (void)udata;
}

static void access_append(unsigned int vcpu_index,
                          qemu_plugin_meminfo_t info, uint64_t vaddr,
                          void *udata)
{
    struct ring *r;

    (void)info;
    (void)udata;
    if (vcpu_index >= MAX_VCPUS) {
        return;
    }
    r = &rings[vcpu_index];
    r->word[r->pos++ & (RING_WORDS - 1)] = vaddr;
}

/* Kept where the compiler cannot drop the calls that made it. */
static volatile uint64_t phys_sink;

static void access_phys(unsigned int vcpu_index, qemu_plugin_meminfo_t info,
                        uint64_t vaddr, void *udata)
{
    struct qemu_plugin_hwaddr *hw = qemu_plugin_get_hwaddr(info, vaddr);

    (void)vcpu_index;
    (void)udata;
    if (hw && !qemu_plugin_hwaddr_is_io(hw)) {
        phys_sink = qemu_plugin_hwaddr_phys_addr(hw);
    }
}

static qemu_plugin_vcpu_mem_cb_t access_cb = access_empty;
static qemu_plugin_vcpu_udata_cb_t block_cb = block_empty;
static bool count_inline;
static bool trans_only;
static bool hook_accesses;

/* Counters are never read: one per translation, leaked on purpose. */
static void count_block(struct qemu_plugin_tb *tb)
{
    uint64_t *count = calloc(1, sizeof(*count));
    struct qemu_plugin_scoreboard *sb = NULL;

    if (count) {
        qc_count_tb(tb, count, &sb);
    }
}

static void block_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
    (void)id;
    if (trans_only) {
        return;
    }
    if (count_inline) {
        count_block(tb);
        return;
    }
    qemu_plugin_register_vcpu_tb_exec_cb(tb, block_cb, QEMU_PLUGIN_CB_NO_REGS,
                                         (void *)(uintptr_t)
                                         qemu_plugin_tb_vaddr(tb));
    if (hook_accesses) {
        size_t i, n = qemu_plugin_tb_n_insns(tb);

        for (i = 0; i < n; i++) {
            qemu_plugin_register_vcpu_mem_cb(qemu_plugin_tb_get_insn(tb, i),
                                             access_cb,
                                             QEMU_PLUGIN_CB_NO_REGS,
                                             QEMU_PLUGIN_MEM_RW, NULL);
        }
    }
}

__attribute__((visibility("default")))
int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info,
                        int argc, char **argv)
{
    int i;

    char msg[128];

    if (qc_init(info, msg, sizeof(msg)) < 0) {
        return -1;
    }
    for (i = 0; i < argc; i++) {
        if (strcmp(argv[i], "append=on") == 0) {
            block_cb = block_append;
        } else if (strcmp(argv[i], "inline=on") == 0) {
            count_inline = true;
        } else if (strcmp(argv[i], "trans=on") == 0) {
            trans_only = true;
        } else if (strcmp(argv[i], "mem=on") == 0) {
            hook_accesses = true;
        } else if (strcmp(argv[i], "mem-append=on") == 0) {
            hook_accesses = true;
            block_cb = block_append;
            access_cb = access_append;
        } else if (strcmp(argv[i], "phys=on") == 0) {
            hook_accesses = true;
            access_cb = access_phys;
        } else {
            return -1;
        }
    }
    qemu_plugin_register_vcpu_tb_trans_cb(id, block_trans);
    return 0;
}
