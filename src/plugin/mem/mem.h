/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Memory access records: QEMU's memory callback turns each load and store
 * into a mem_access record, or in user mode with exec_tb into a short
 * packet relative to the current block (docs/format.md).
 */
#ifndef QTRACE_PLUGIN_MEM_H
#define QTRACE_PLUGIN_MEM_H

#include <stdbool.h>
#include <stdint.h>

#include "../../qemu/qemu-plugin.h"

struct mem_cfg {
    bool packets;               /* packed streams get memory packets */
    bool system_mode;           /* physical addresses and devices */
    bool values;                /* QEMU gives accessed values (API 4+) */
    /*
     * QEMU may be asked for device names: 8.2+, or one vCPU (before 8.2
     * another vCPU thread can leave the answer's region dangling).
     */
    bool device_names;
    /* Several vCPUs: device accesses remembered (mmio-cache.h). */
    bool mmio_cache;
    /*
     * mem_access_sys_cb: the vCPU keeps the translations QEMU told it
     * until an instruction may change them (xlate-flush.h), instead of
     * asking for every access; phys_check: asks anyway and counts where
     * the kept one differed (the test of that rule).
     */
    bool known_xlate;
    bool phys_check;
};

/* At install, before any callback. */
void mem_setup(const struct mem_cfg *cfg);

/* QEMU's memory callback; udata is the instruction's insn_info. */
void mem_access_cb(unsigned int vcpu_index, qemu_plugin_meminfo_t info,
                   uint64_t vaddr, void *udata);

/* The same when mem_cfg.packets is set. */
void mem_access_packed_cb(unsigned int vcpu_index,
                          qemu_plugin_meminfo_t info, uint64_t vaddr,
                          void *udata);

/*
 * The same when accesses carry a value (QEMU 9.2+): full memory packets
 * (with the physical address in system mode), a record for a device
 * access.
 */
void mem_access_full_cb(unsigned int vcpu_index, qemu_plugin_meminfo_t info,
                        uint64_t vaddr, void *udata);

/*
 * System mode with predicted accesses (QTRACE_CHUNK_PHYS, no values):
 * staged accesses, a translation item where a page's physical address
 * changes, a record for a device access.
 */
void mem_access_sys_cb(unsigned int vcpu_index, qemu_plugin_meminfo_t info,
                       uint64_t vaddr, void *udata);

/*
 * An instruction that may change translations runs (udata: its enum
 * xlate_flush): the vCPU's known translations, or every vCPU's, are
 * forgotten.
 */
void mem_xlate_flush_cb(unsigned int vcpu_index, void *udata);

/* At exit with phys_check: one line on stderr, the translations checked
 * and how many differed. Returns the number that differed. */
uint64_t mem_phys_check_report(void);

#endif /* QTRACE_PLUGIN_MEM_H */
