/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Device accesses under several vCPUs without asking QEMU each time.
 * QEMU answers qemu_plugin_get_hwaddr for a device access from the
 * vCPU's TLB entry and the memory map's current section table: when
 * another vCPU has just changed the map (a PCI BAR) and this vCPU's TLB
 * is not flushed yet, QEMU 7.2 hands back a stale section (and dies of
 * SIGSEGV naming it) and 10.0 fails an assertion (section_index <
 * d->map.sections_nb) and aborts (docs/kernel.md). RAM accesses are
 * answered without that table.
 *
 * So with several vCPUs, the plugin remembers, per instruction and
 * virtual page, the device accesses QEMU has told it about (for all
 * vCPUs together: an accessor one vCPU has run is known to the others):
 * the next access of that instruction to that page is recorded as a
 * device access at the same offset of the same physical page, to the same
 * device, without asking. Device accessors keep their mappings while they
 * use them; a guest that remapped such a page and reached something else
 * from the same instruction would be recorded wrong. Only the first
 * access of an instruction to a device page asks QEMU, which can still
 * fall in the window above.
 */
#ifndef QTRACE_PLUGIN_MMIO_CACHE_H
#define QTRACE_PLUGIN_MMIO_CACHE_H

#include <stdbool.h>
#include <stdint.h>

#define MMIO_DEV_MAX 64             /* device name bytes kept */

struct mmio_hit {
    uint64_t paddr;
    const char *dev;                /* valid until exit */
    uint32_t dev_len;
};

/* At install, with several vCPUs. -1: no memory (QEMU asked each time). */
int mmio_cache_setup(void);

/*
 * Whether insn (its insn_info) reached a device at vaddr's page before;
 * if so, hit tells where and which. Any vCPU thread.
 */
bool mmio_cache_find(const void *insn, uint64_t vaddr, struct mmio_hit *hit);

/* QEMU said insn's access at vaddr reached device dev at paddr. */
void mmio_cache_add(const void *insn, uint64_t vaddr, uint64_t paddr,
                    const char *dev, uint32_t dev_len);

#endif /* QTRACE_PLUGIN_MMIO_CACHE_H */
