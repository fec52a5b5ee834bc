/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Telling translation changes from instruction bytes (see xlate-flush.h).
 * Only the encodings matter, so a few masks do; x86 prefixes are stepped
 * over first.
 */
#include <string.h>

#include "xlate-flush.h"

enum xlate_isa xlate_isa_of(const char *target)
{
    if (strcmp(target, "x86_64") == 0 || strcmp(target, "i386") == 0) {
        return XLATE_ISA_X86;
    }
    if (strcmp(target, "aarch64") == 0) {
        return XLATE_ISA_AARCH64;
    }
    return XLATE_ISA_NONE;
}

/* Legacy prefixes and REX: they change no opcode's meaning here. */
static bool x86_prefix(uint8_t b)
{
    switch (b) {
    case 0x26: case 0x2e: case 0x36: case 0x3e: case 0x64: case 0x65:
    case 0x66: case 0x67: case 0xf0: case 0xf2: case 0xf3:
        return true;
    default:
        return (b & 0xf0) == 0x40;
    }
}

/* in, out, ins, outs: port I/O. */
static bool x86_port_io(uint8_t op)
{
    return (op >= 0xe4 && op <= 0xe7) || (op >= 0xec && op <= 0xef) ||
           (op >= 0x6c && op <= 0x6f);
}

static enum xlate_flush x86_flush(const uint8_t *b, size_t n)
{
    size_t i = 0;

    while (i < n && i < 15 && x86_prefix(b[i])) {
        i++;
    }
    if (i < n && x86_port_io(b[i])) {
        return XLATE_FLUSH_MAP;
    }
    if (n - i < 2 || b[i] != 0x0f) {
        return XLATE_KEEP;
    }
    switch (b[i + 1]) {
    case 0x22:                      /* mov to CR0, CR3, CR4... */
    case 0x30:                      /* wrmsr: EFER among others */
    case 0xaa:                      /* rsm: SMM's address space ends */
        return XLATE_FLUSH_CPU;
    case 0x01:                      /* invlpg: 0f 01 /7, memory operand */
        return n - i >= 3 && (b[i + 2] & 0x38) == 0x38 &&
               (b[i + 2] & 0xc0) != 0xc0 ? XLATE_FLUSH_CPU : XLATE_KEEP;
    case 0x38:                      /* invpcid: 66 0f 38 82 */
        return n - i >= 3 && b[i + 2] == 0x82 ? XLATE_FLUSH_CPU :
                                                XLATE_KEEP;
    default:
        return XLATE_KEEP;
    }
}

static bool aarch64_flush(const uint8_t *b, size_t n)
{
    uint32_t insn, crn;

    if (n < 4) {
        return false;
    }
    insn = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 |
           (uint32_t)b[3] << 24;
    /* SYS with op0 1 and CRn 8: TLBI of any kind. */
    if ((insn & 0xfff8f000u) == 0xd5088000u) {
        return true;
    }
    /* MSR to a register of op0 3: CRn 1 (SCTLR), 2 (TTBR0/1, TCR). */
    crn = insn >> 12 & 0xf;
    return (insn & 0xfff80000u) == 0xd5180000u && (crn == 1 || crn == 2);
}

enum xlate_flush xlate_flush_insn(enum xlate_isa isa, const uint8_t *b,
                                  size_t n)
{
    switch (isa) {
    case XLATE_ISA_X86:
        return x86_flush(b, n);
    case XLATE_ISA_AARCH64:
        return aarch64_flush(b, n) ? XLATE_FLUSH_CPU : XLATE_KEEP;
    default:
        return XLATE_KEEP;
    }
}

uint64_t xlate_reset_pc(enum xlate_isa isa)
{
    return isa == XLATE_ISA_X86 ? 0xfffffff0u : UINT64_MAX;
}
