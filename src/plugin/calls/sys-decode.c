/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * System mode's instruction facts (see sys-decode.h): masks over the
 * bytes of x86 (16, 32 and 64-bit code) and aarch64 instructions. Runs
 * at translation time only.
 */
#include <string.h>

#include "sys-decode.h"

static uint32_t le16(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8;
}

static uint32_t le32(const uint8_t *p)
{
    return le16(p) | le16(p + 2) << 16;
}

/* Sign-extend the low bits of v. */
static int64_t sext(uint64_t v, unsigned int bits)
{
    uint64_t m = 1ull << (bits - 1);

    v &= (m << 1) - 1;
    return (int64_t)((v ^ m) - m);
}

/* ---- x86 ---- */

static bool x86_is_prefix(uint8_t b)
{
    return b == 0x66 || b == 0x67 || b == 0xf2 || b == 0xf3 || b == 0x2e ||
           b == 0x3e || b == 0x26 || b == 0x36 || b == 0x64 || b == 0x65 ||
           b == 0xf0;
}

/*
 * Index of the opcode: legacy prefixes, then REX. QEMU's instruction
 * size tells 64-bit code's REX from the one-byte inc and dec of 16 and
 * 32-bit code, which are whole instructions.
 */
static size_t x86_opcode_at(const uint8_t *code, size_t size)
{
    size_t i = 0;

    while (i < size && x86_is_prefix(code[i])) {
        i++;
    }
    if (i + 1 < size && (code[i] & 0xf0) == 0x40) {
        i++;
    }
    return i;
}

/*
 * A relative branch whose displacement fills the instruction from
 * disp_at: rel8, rel16 (operand-size prefix, 16-bit code) or rel32.
 */
static void x86_rel(const struct calls_insn *insn, size_t disp_at,
                    bool cond, struct sysdec_flow *out)
{
    size_t size = insn->size < sizeof(insn->bytes) ? insn->size
                                                   : sizeof(insn->bytes);
    size_t n = size > disp_at ? size - disp_at : 0;
    uint64_t disp = 0;
    size_t k;

    if (n != 1 && n != 2 && n != 4) {
        out->end = SYSDEC_DYNAMIC;      /* not a form known here */
        return;
    }
    for (k = 0; k < n; k++) {
        disp |= (uint64_t)insn->bytes[disp_at + k] << (8 * k);
    }
    out->end = SYSDEC_BRANCH;
    out->may_fall = cond;
    out->target = insn->pc + insn->size + (uint64_t)sext(disp, 8 * n);
}

static void x86_trap(struct sysdec_flow *out, int32_t vector, bool may_fall)
{
    out->end = SYSDEC_TRAP;
    out->vector = vector;
    out->may_fall = may_fall;
}

static void x86_0f(const struct calls_insn *insn, size_t i, size_t size,
                   struct sysdec_flow *out)
{
    uint8_t op;

    if (i + 1 >= size) {
        return;
    }
    op = insn->bytes[i + 1];
    if (op >= 0x80 && op <= 0x8f) {
        x86_rel(insn, i + 2, true, out);            /* jcc rel16/32 */
    } else if (op == 0x05 || op == 0x34) {
        out->end = SYSDEC_SYSCALL;                  /* syscall, sysenter */
    } else if (op == 0x07 || op == 0x35) {
        out->end = SYSDEC_SYSCALL_RETURN;           /* sysret, sysexit */
    } else if (op == 0x0b || op == 0xb9 || op == 0xff) {
        x86_trap(out, 6, false);                    /* ud2, ud1, ud0: #UD */
    } else if (op == 0xaa) {
        out->end = SYSDEC_TRAP_RETURN;              /* rsm: leaves SMM */
    }
}

static void x86_flow(const struct calls_insn *insn, struct sysdec_flow *out)
{
    size_t size = insn->size < sizeof(insn->bytes) ? insn->size
                                                   : sizeof(insn->bytes);
    size_t i = x86_opcode_at(insn->bytes, size);
    uint8_t op;
    unsigned int reg;

    if (i >= size) {
        return;
    }
    op = insn->bytes[i];
    if ((op >= 0x70 && op <= 0x7f) || (op >= 0xe0 && op <= 0xe3)) {
        x86_rel(insn, i + 1, true, out);            /* jcc, loop, jrcxz */
        return;
    }
    switch (op) {
    case 0xeb:
    case 0xe9:
    case 0xe8:
        x86_rel(insn, i + 1, false, out);           /* jmp, call */
        break;
    case 0x0f:
        x86_0f(insn, i, size, out);
        break;
    case 0xc2:
    case 0xc3:
    case 0xca:
    case 0xcb:
    case 0x9a:
    case 0xea:
        out->end = SYSDEC_DYNAMIC;                  /* ret, lret, far */
        break;
    case 0xcf:
        out->end = SYSDEC_TRAP_RETURN;              /* iret */
        break;
    case 0xcc:
        x86_trap(out, 3, false);                    /* int3: #BP */
        break;
    case 0xcd:
        x86_trap(out, i + 1 < size ? insn->bytes[i + 1] : -1, false);
        break;
    case 0xce:
        x86_trap(out, 4, true);                     /* into: #OF if OF */
        break;
    case 0xf1:
        x86_trap(out, 1, false);                    /* int1: #DB */
        break;
    case 0xff:
        reg = i + 1 < size ? (insn->bytes[i + 1] >> 3) & 7 : 0;
        if (reg >= 2 && reg <= 5) {
            out->end = SYSDEC_DYNAMIC;              /* call, jmp r/m */
        }
        break;
    default:
        break;
    }
}

bool sysdec_is_short_call(enum calls_isa isa, const struct calls_insn *insn,
                          uint64_t target)
{
    size_t size = insn->size < sizeof(insn->bytes) ? insn->size
                                                   : sizeof(insn->bytes);
    size_t i;
    uint64_t end = insn->pc + insn->size;

    if (isa != CALLS_ISA_X86_64) {
        return false;
    }
    i = x86_opcode_at(insn->bytes, size);
    return i < size && insn->bytes[i] == 0xe8 && target - end - 1 < 8;
}

bool sysdec_is_landing(enum calls_isa isa, const struct calls_insn *insn)
{
    const uint8_t *b = insn->bytes;
    struct sysdec_flow f = { .end = SYSDEC_NEXT, .vector = -1 };

    if (isa != CALLS_ISA_X86_64) {
        return false;
    }
    /* mov %r64,(%rsp): REX.W (or REX.WR), 89, mod 00 rm 100, SIB 24. */
    if (insn->size == 4 && (b[0] == 0x48 || b[0] == 0x4c) && b[1] == 0x89 &&
        (b[2] & 0xc7) == 0x04 && b[3] == 0x24) {
        return true;
    }
    /* add $imm8,%rsp; lea imm8(%rsp),%rsp */
    if ((insn->size == 4 && b[0] == 0x48 && b[1] == 0x83 && b[2] == 0xc4) ||
        (insn->size == 5 && b[0] == 0x48 && b[1] == 0x8d && b[2] == 0x64 &&
         b[3] == 0x24)) {
        return true;
    }
    x86_flow(insn, &f);
    return f.end == SYSDEC_BRANCH && sysdec_is_short_call(isa, insn,
                                                          f.target);
}

/* endbr64 (f3 0f 1e fa) and lfence (0f ae e8): no effect on the flow. */
static bool x86_is_filler(const struct calls_insn *insn)
{
    static const uint8_t endbr64[] = { 0xf3, 0x0f, 0x1e, 0xfa };
    static const uint8_t lfence[] = { 0x0f, 0xae, 0xe8 };

    if (insn->size == 4) {
        return insn->bytes[0] == endbr64[0] && insn->bytes[1] == endbr64[1] &&
               insn->bytes[2] == endbr64[2] && insn->bytes[3] == endbr64[3];
    }
    return insn->size == 3 && insn->bytes[0] == lfence[0] &&
           insn->bytes[1] == lfence[1] && insn->bytes[2] == lfence[2];
}

/* jmp *%reg: ff e0+r, or 41 ff e0+r for r8-r15. */
static bool x86_is_jmp_reg(const struct calls_insn *insn)
{
    const uint8_t *b = insn->bytes;

    if (insn->size == 2) {
        return b[0] == 0xff && (b[1] & 0xf8) == 0xe0;
    }
    return insn->size == 3 && b[0] == 0x41 && b[1] == 0xff &&
           (b[2] & 0xf8) == 0xe0;
}

/* lea 0x8(%rsp),%rsp (48 8d 64 24 08) or add $0x8,%rsp (48 83 c4 08). */
static bool x86_is_drop_word(const struct calls_insn *insn)
{
    static const uint8_t lea[] = { 0x48, 0x8d, 0x64, 0x24, 0x08 };
    static const uint8_t add[] = { 0x48, 0x83, 0xc4, 0x08 };
    size_t k;

    if (insn->size == sizeof(lea)) {
        for (k = 0; k < sizeof(lea) && insn->bytes[k] == lea[k]; k++) {
        }
        return k == sizeof(lea);
    }
    if (insn->size == sizeof(add)) {
        for (k = 0; k < sizeof(add) && insn->bytes[k] == add[k]; k++) {
        }
        return k == sizeof(add);
    }
    return false;
}

enum sysdec_thunk sysdec_thunk(enum calls_isa isa,
                               const struct calls_insn *insns, size_t n)
{
    struct sysdec_flow f = { 0 };
    size_t i = 0;

    if (isa != CALLS_ISA_X86_64 || n == 0) {
        return SYSDEC_THUNK_NONE;
    }
    if (n == 2 && x86_is_drop_word(&insns[0]) && insns[1].size == 1 &&
        insns[1].bytes[0] == 0xc3) {
        return SYSDEC_THUNK_RETURN;
    }
    while (i + 1 < n && x86_is_filler(&insns[i])) {
        i++;
    }
    if (i + 1 != n) {
        return SYSDEC_THUNK_NONE;
    }
    if (x86_is_jmp_reg(&insns[i])) {
        return SYSDEC_THUNK_JUMP;
    }
    x86_flow(&insns[i], &f);
    if (f.end == SYSDEC_BRANCH && sysdec_is_short_call(isa, &insns[i],
                                                       f.target)) {
        return SYSDEC_THUNK_JUMP;
    }
    return SYSDEC_THUNK_NONE;
}

enum sysdec_entry sysdec_entry_like(enum calls_isa isa,
                                    const struct calls_insn *insn,
                                    uint64_t *call_target)
{
    static const uint8_t nop5[] = { 0x0f, 0x1f, 0x44, 0x00, 0x00 };
    static const uint8_t endbr64[] = { 0xf3, 0x0f, 0x1e, 0xfa };
    struct sysdec_flow f = { 0 };
    uint32_t w;

    if (isa == CALLS_ISA_AARCH64) {
        if (insn->size != 4) {
            return SYSDEC_ENTRY_NO;
        }
        w = le32(insn->bytes);
        if (w == 0xd503201f) {
            return SYSDEC_ENTRY_NOP;
        }
        /* paciasp, bti c, bti jc */
        return w == 0xd503233f || w == 0xd503245f || w == 0xd50324df
               ? SYSDEC_ENTRY_YES : SYSDEC_ENTRY_NO;
    }
    if (isa != CALLS_ISA_X86_64) {
        return SYSDEC_ENTRY_NO;
    }
    if (insn->size == sizeof(nop5) &&
        memcmp(insn->bytes, nop5, sizeof(nop5)) == 0) {
        return SYSDEC_ENTRY_NOP;
    }
    if (insn->size == sizeof(endbr64) &&
        memcmp(insn->bytes, endbr64, sizeof(endbr64)) == 0) {
        return SYSDEC_ENTRY_YES;
    }
    if (insn->size == 5 && insn->bytes[0] == 0xe8) {
        x86_rel(insn, 1, false, &f);
        *call_target = f.target;
        return SYSDEC_ENTRY_IF_FENTRY;
    }
    return SYSDEC_ENTRY_NO;
}

bool sysdec_is_direct_jump(enum calls_isa isa, const struct calls_insn *insn)
{
    size_t size = insn->size < sizeof(insn->bytes) ? insn->size
                                                   : sizeof(insn->bytes);
    size_t i;

    if (isa == CALLS_ISA_AARCH64) {
        return size == 4 && (le32(insn->bytes) & 0xfc000000u) == 0x14000000u;
    }
    if (isa != CALLS_ISA_X86_64) {
        return false;
    }
    i = x86_opcode_at(insn->bytes, size);
    return i < size && (insn->bytes[i] == 0xe9 || insn->bytes[i] == 0xeb);
}

bool sysdec_is_lidt(enum calls_isa isa, const struct calls_insn *insn)
{
    size_t size = insn->size < sizeof(insn->bytes) ? insn->size
                                                   : sizeof(insn->bytes);
    size_t i;

    if (isa != CALLS_ISA_X86_64) {
        return false;
    }
    i = x86_opcode_at(insn->bytes, size);
    return i + 2 < size && insn->bytes[i] == 0x0f &&
           insn->bytes[i + 1] == 0x01 && (insn->bytes[i + 2] >> 6) != 3 &&
           ((insn->bytes[i + 2] >> 3) & 7) == 3;
}

/* ---- aarch64 ---- */

static void a64_branch(uint64_t pc, int64_t offset, bool cond,
                       struct sysdec_flow *out)
{
    out->end = SYSDEC_BRANCH;
    out->may_fall = cond;
    out->target = pc + (uint64_t)(offset * 4);
}

/* Exception generation: svc, hvc, smc, brk, hlt, dcps. */
static void a64_exception(uint32_t w, struct sysdec_flow *out)
{
    unsigned int opc = (w >> 21) & 7, ll = w & 3;

    out->end = SYSDEC_TRAP;
    out->vector = -1;
    if (opc == 0 && ll == 1) {
        out->end = SYSDEC_SYSCALL;                  /* svc */
    } else if (opc == 1 && ll == 0) {
        out->may_fall = false;                      /* brk */
    } else {
        /*
         * hvc and smc to a level QEMU emulates itself (PSCI on virt),
         * hlt as semihosting and dcps go on at the next instruction.
         */
        out->may_fall = true;
    }
}

static void a64_flow(const struct calls_insn *insn, struct sysdec_flow *out)
{
    uint32_t w;

    if (insn->size < 4) {
        return;
    }
    w = le32(insn->bytes);
    if ((w & 0x7c000000) == 0x14000000) {           /* b, bl */
        a64_branch(insn->pc, sext(w, 26), false, out);
    } else if ((w & 0xff000000) == 0x54000000) {    /* b.cond, bc.cond */
        a64_branch(insn->pc, sext(w >> 5, 19), (w & 15) < 14, out);
    } else if ((w & 0x7e000000) == 0x34000000) {    /* cbz, cbnz */
        a64_branch(insn->pc, sext(w >> 5, 19), true, out);
    } else if ((w & 0x7e000000) == 0x36000000) {    /* tbz, tbnz */
        a64_branch(insn->pc, sext(w >> 5, 14), true, out);
    } else if ((w & 0xfe000000) == 0xd6000000) {    /* br, blr, ret, eret */
        if (w == 0xd69f03e0 || w == 0xd69f0bff || w == 0xd69f0fff ||
            w == 0xd6bf03e0) {                      /* eret{,aa,ab}, drps */
            out->end = SYSDEC_TRAP_RETURN;
        } else {
            out->end = SYSDEC_DYNAMIC;
        }
    } else if ((w & 0xff000000) == 0xd4000000) {
        a64_exception(w, out);
    } else if ((w & 0xffff0000) == 0) {             /* udf */
        out->end = SYSDEC_TRAP;
        out->vector = -1;
    }
}

enum sysdec_frame sysdec_frame_access(enum calls_isa isa,
                                      const struct calls_insn *insn)
{
    uint32_t w, rt, rn, rt2;

    if (isa != CALLS_ISA_AARCH64 || insn->size < 4) {
        return SYSDEC_FRAME_NONE;
    }
    w = le32(insn->bytes);
    rt = w & 31;
    rn = (w >> 5) & 31;
    rt2 = (w >> 10) & 31;
    if (rn != 31) {
        return SYSDEC_FRAME_NONE;
    }
    /* stp / ldp of 64-bit registers: post-index, offset, pre-index. */
    if ((w & 0xfe400000) == 0xa8000000 && ((w >> 23) & 3) != 0 &&
        (rt == 30 || rt2 == 30)) {
        return SYSDEC_FRAME_SAVE;
    }
    if ((w & 0xfe400000) == 0xa8400000 && ((w >> 23) & 3) != 0 &&
        (rt == 30 || rt2 == 30)) {
        return SYSDEC_FRAME_RESTORE;
    }
    if (rt != 30) {
        return SYSDEC_FRAME_NONE;
    }
    /* str / ldr x30: post-index, pre-index, unsigned offset. */
    if ((w & 0xffe00c00) == 0xf8000400 || (w & 0xffe00c00) == 0xf8000c00 ||
        (w & 0xffc00000) == 0xf9000000) {
        return SYSDEC_FRAME_SAVE;
    }
    if ((w & 0xffe00c00) == 0xf8400400 || (w & 0xffe00c00) == 0xf8400c00 ||
        (w & 0xffc00000) == 0xf9400000) {
        return SYSDEC_FRAME_RESTORE;
    }
    return SYSDEC_FRAME_NONE;
}

/* ---- both ---- */

void sysdec_flow(enum calls_isa isa, const struct calls_insn *insn,
                 struct sysdec_flow *out)
{
    out->end = SYSDEC_NEXT;
    out->may_fall = false;
    out->vector = -1;
    out->target = 0;
    switch (isa) {
    case CALLS_ISA_X86_64:
        x86_flow(insn, out);
        break;
    case CALLS_ISA_AARCH64:
        a64_flow(insn, out);
        break;
    default:
        break;
    }
}
