/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Instructions after which a vCPU may translate addresses differently,
 * told from their bytes at translation time: what the system-mode access
 * callback's cache of known translations (mem.c) must forget, as the
 * vCPU's own TLB does. Pure functions: no QEMU calls, so the unit tests
 * drive them with byte patterns.
 */
#ifndef QTRACE_PLUGIN_XLATE_FLUSH_H
#define QTRACE_PLUGIN_XLATE_FLUSH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum xlate_isa {
    XLATE_ISA_NONE = 0,         /* not decoded: every access asks QEMU */
    XLATE_ISA_X86,              /* i386 and x86_64 */
    XLATE_ISA_AARCH64,
};

/* The decoder of a QEMU target name (XLATE_ISA_NONE: none). */
enum xlate_isa xlate_isa_of(const char *target);

/* What an instruction may change. */
enum xlate_flush {
    XLATE_KEEP = 0,             /* nothing */
    XLATE_FLUSH_CPU,            /* its vCPU's translations (a TLB flush) */
    XLATE_FLUSH_MAP,            /* the machine's memory map (a device
                                   register): every vCPU's */
};

/*
 * What the instruction of n bytes at b may change: x86 writes to a
 * control register, invlpg, invpcid, wrmsr (EFER), rsm and aarch64 TLB
 * maintenance and writes to the translation registers (SCTLR, TTBR0/1,
 * TCR of any level) the vCPU's translations; x86 port I/O (a PCI
 * host's configuration, the BIOS area's shadowing) the memory map.
 * Erring towards a flush costs only lookups later.
 */
enum xlate_flush xlate_flush_insn(enum xlate_isa isa, const uint8_t *b,
                                  size_t n);

/*
 * Where a reset vCPU starts (its TLB empty), for a block starting there
 * to count as a flush: x86's reset vector; UINT64_MAX where none is
 * known.
 */
uint64_t xlate_reset_pc(enum xlate_isa isa);

#endif /* QTRACE_PLUGIN_XLATE_FLUSH_H */
