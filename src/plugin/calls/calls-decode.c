/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Instruction classifiers for the call tracker (see calls-decode.h and
 * docs/calls.md): one function per instruction set, each a few masks over
 * the instruction's bytes. Runs at translation time only.
 */
#include <string.h>

#include "calls-decode.h"

static const struct calls_abi abis[] = {
    { "x86_64", CALLS_ISA_X86_64, 64, 9, 1, { 15, -1 }, 231, 0x20 },
    { "aarch64", CALLS_ISA_AARCH64, 64, 222, 1, { 139, -1 }, 94, 0x20 },
    { "riscv64", CALLS_ISA_RISCV64, 64, 222, 1, { 139, -1 }, 94, 0x20 },
    /* 32-bit generic ABI: syscall 222 is mmap2, offset in 4096 units. */
    { "riscv32", CALLS_ISA_RISCV32, 32, 222, 4096, { 139, -1 }, 94, 0x20 },
    { "arm", CALLS_ISA_ARM, 32, 192, 4096, { 173, 119 }, 248, 0x20 },
};

const struct calls_abi *calls_abi_of(const char *target)
{
    size_t i;

    for (i = 0; i < sizeof(abis) / sizeof(abis[0]); i++) {
        if (strcmp(abis[i].target, target) == 0) {
            return &abis[i];
        }
    }
    return NULL;
}

static uint32_t le16(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8;
}

static uint32_t le32(const uint8_t *p)
{
    return le16(p) | le16(p + 2) << 16;
}

/*
 * x86_64: call rel32 (e8), call r/m (ff /2), ret (c3), ret imm16 (c2), and
 * jmp through a RIP-relative pointer (ff 25), which is how PLT entries
 * and -fno-plt code jump to another function: a tail call; other
 * indirect jmp (ff /4, ff /5) are indirect jumps; syscall (0f 05) enters
 * the kernel. Legacy prefixes (bnd, notrack, rep, operand size...) and
 * REX are skipped.
 */
static enum calls_class classify_x86_64(const uint8_t *code, size_t size)
{
    size_t i = 0;
    unsigned int reg;

    while (i < size && (code[i] == 0x66 || code[i] == 0x67 ||
                        code[i] == 0xf2 || code[i] == 0xf3 ||
                        code[i] == 0x2e || code[i] == 0x3e ||
                        code[i] == 0x26 || code[i] == 0x36 ||
                        code[i] == 0x64 || code[i] == 0x65 ||
                        code[i] == 0xf0)) {
        i++;
    }
    if (i < size && (code[i] & 0xf0) == 0x40) {
        i++;                            /* REX */
    }
    if (i >= size) {
        return CALLS_OTHER;
    }
    switch (code[i]) {
    case 0x0f:
        return i + 1 < size && code[i + 1] == 0x05 ? CALLS_SYSCALL
                                                   : CALLS_OTHER;
    case 0xe8:
        return CALLS_CALL;
    case 0xc3:
    case 0xc2:
        return CALLS_RET;
    case 0xff:
        if (i + 1 >= size) {
            return CALLS_OTHER;
        }
        reg = (code[i + 1] >> 3) & 7;
        if (reg == 2) {
            return CALLS_CALL;
        }
        if (reg == 4 && code[i + 1] == 0x25) {
            return CALLS_TAIL;
        }
        return (reg == 4 || reg == 5) ? CALLS_INDIRECT : CALLS_OTHER;
    default:
        return CALLS_OTHER;
    }
}

/*
 * aarch64: bl, blr (and the pointer-authenticating blraa/blrab forms),
 * ret (retaa, retab), and br x16/x17: AAPCS64 reserves x16 and x17 (IP0,
 * IP1) for PLT entries and linker veneers, whose br is a tail call. Other
 * br registers (switch tables, computed gotos, longjmp) are indirect.
 * svc enters the kernel.
 */
static enum calls_class classify_aarch64(const uint8_t *code, size_t size)
{
    uint32_t w;
    unsigned int rn;

    if (size < 4) {
        return CALLS_OTHER;
    }
    w = le32(code);
    rn = (w >> 5) & 31;
    if ((w & 0xfc000000) == 0x94000000 ||           /* bl */
        (w & 0xfffffc1f) == 0xd63f0000 ||           /* blr */
        (w & 0xfffff81f) == 0xd63f081f ||           /* blraaz, blrabz */
        (w & 0xfffff800) == 0xd73f0800) {           /* blraa, blrab */
        return CALLS_CALL;
    }
    if ((w & 0xfffffc1f) == 0xd65f0000 ||           /* ret */
        w == 0xd65f0bff || w == 0xd65f0fff) {       /* retaa, retab */
        return CALLS_RET;
    }
    if ((w & 0xfffffc1f) == 0xd61f0000 ||           /* br */
        (w & 0xfffff81f) == 0xd61f081f) {           /* braaz, brabz */
        return (rn == 16 || rn == 17) ? CALLS_TAIL : CALLS_INDIRECT;
    }
    if ((w & 0xffe0001f) == 0xd4000001) {           /* svc */
        return CALLS_SYSCALL;
    }
    return CALLS_OTHER;
}

/*
 * RISC-V, after the return-address-stack hints of the ISA manual: a jump
 * that links ra or t0 (x1, x5) is a call; jalr x0 through ra or t0 is a
 * return. The psABI's tail-call sequence jumps through t1 (x6) with
 * jalr x0, and its PLT entries use jalr t1, t3: both are tail calls. Any
 * other jalr x0 is an indirect jump. ecall enters the kernel.
 */
static enum calls_class classify_rv_jalr(unsigned int rd, unsigned int rs1)
{
    bool rd_link = rd == 1 || rd == 5;
    bool rs1_link = rs1 == 1 || rs1 == 5;

    if (rd_link) {
        return CALLS_CALL;
    }
    if (rd == 0 && rs1_link) {
        return CALLS_RET;
    }
    if ((rd == 0 && rs1 == 6) || (rd == 6 && rs1 == 28)) {
        return CALLS_TAIL;
    }
    return rd == 0 ? CALLS_INDIRECT : CALLS_OTHER;
}

static enum calls_class classify_riscv(const uint8_t *code, size_t size,
                                       bool rv32)
{
    uint32_t w;
    unsigned int rd, rs1;

    if (size < 2) {
        return CALLS_OTHER;
    }
    if ((code[0] & 3) != 3) {
        /* Compressed: c.jr, c.jalr (quadrant 2); c.jal (RV32 only). */
        uint32_t h = le16(code);
        unsigned int rs2 = (h >> 2) & 31;

        rs1 = (h >> 7) & 31;
        if ((h & 3) == 2 && (h >> 13) == 4 && rs2 == 0 && rs1 != 0) {
            return classify_rv_jalr((h & 0x1000) ? 1 : 0, rs1);
        }
        if (rv32 && (h & 3) == 1 && (h >> 13) == 1) {
            return CALLS_CALL;
        }
        return CALLS_OTHER;
    }
    if (size < 4) {
        return CALLS_OTHER;
    }
    w = le32(code);
    if (w == 0x00000073) {                          /* ecall */
        return CALLS_SYSCALL;
    }
    rd = (w >> 7) & 31;
    rs1 = (w >> 15) & 31;
    if ((w & 0x7f) == 0x6f) {                       /* jal */
        return (rd == 1 || rd == 5) ? CALLS_CALL : CALLS_OTHER;
    }
    if ((w & 0x707f) == 0x67) {                     /* jalr */
        return classify_rv_jalr(rd, rs1);
    }
    return CALLS_OTHER;
}

/*
 * A32: bl, blx (immediate and register), bx lr, mov pc, lr, pop/ldm with
 * pc from sp (and ldmdb fp of APCS frames), ldr pc, [sp], #4. PLT entries
 * end with ldr pc, [ip, #n]! and veneers with bx ip: tail calls. bx and
 * mov pc with other registers are indirect jumps. svc enters the kernel.
 */
static enum calls_class classify_a32(uint32_t w)
{
    unsigned int cond = w >> 28;

    if ((w & 0xfe000000) == 0xfa000000) {           /* blx imm */
        return CALLS_CALL;
    }
    if (cond == 0xf) {
        return CALLS_OTHER;
    }
    if ((w & 0x0f000000) == 0x0b000000 ||           /* bl */
        (w & 0x0ffffff0) == 0x012fff30) {           /* blx reg */
        return CALLS_CALL;
    }
    if ((w & 0x0ffffff0) == 0x012fff10) {           /* bx reg */
        if ((w & 15) == 14) {
            return CALLS_RET;
        }
        return (w & 15) == 12 ? CALLS_TAIL : CALLS_INDIRECT;
    }
    if ((w & 0x0ffffff0) == 0x01a0f000 && (w & 15) != 14) {
        return CALLS_INDIRECT;                      /* mov pc, reg */
    }
    if ((w & 0x0fffffff) == 0x01a0f00e ||           /* mov pc, lr */
        (w & 0x0fdf8000) == 0x089d8000 ||           /* ldmia sp{!}, {pc} */
        (w & 0x0fdf8000) == 0x091b8000 ||           /* ldmdb fp{!}, {pc} */
        (w & 0x0fffffff) == 0x049df004) {           /* ldr pc, [sp], #4 */
        return CALLS_RET;
    }
    if ((w & 0x0f5ff000) == 0x051cf000) {           /* ldr pc, [ip, #n] */
        return CALLS_TAIL;
    }
    if ((w & 0x0f000000) == 0x0f000000) {           /* svc */
        return CALLS_SYSCALL;
    }
    return CALLS_OTHER;
}

/* Thumb: the first halfword of a 32-bit instruction starts 11101..11111. */
static bool thumb_is_32(uint32_t h1)
{
    return (h1 >> 11) >= 0x1d;
}

/*
 * Thumb-2: bl, blx (immediate and register), bx lr, mov pc, lr,
 * pop {..., pc} (16 and 32 bits), ldr.w pc, [sp], #4; bx ip is a tail call;
 * bx and mov pc with other registers are indirect jumps; svc enters the
 * kernel.
 */
static enum calls_class classify_thumb(const uint8_t *code, size_t size)
{
    uint32_t h1, h2;

    if (size < 2) {
        return CALLS_OTHER;
    }
    h1 = le16(code);
    if (size == 2) {
        if ((h1 & 0xff87) == 0x4780) {              /* blx reg */
            return CALLS_CALL;
        }
        if ((h1 & 0xff87) == 0x4700) {              /* bx reg */
            if (((h1 >> 3) & 15) == 14) {
                return CALLS_RET;
            }
            return ((h1 >> 3) & 15) == 12 ? CALLS_TAIL : CALLS_INDIRECT;
        }
        if ((h1 & 0xff00) == 0xbd00 || h1 == 0x46f7) {  /* pop {pc} */
            return CALLS_RET;
        }
        if ((h1 & 0xff87) == 0x4687) {              /* mov pc, reg */
            return CALLS_INDIRECT;
        }
        if ((h1 & 0xff00) == 0xdf00) {              /* svc */
            return CALLS_SYSCALL;
        }
        return CALLS_OTHER;
    }
    if (size < 4 || !thumb_is_32(h1)) {
        return CALLS_OTHER;
    }
    h2 = le16(code + 2);
    if ((h1 & 0xf800) == 0xf000 && (h2 & 0xc000) == 0xc000) {
        return CALLS_CALL;                          /* bl, blx imm */
    }
    if ((h1 == 0xe8bd && (h2 & 0x8000)) ||          /* pop.w {..., pc} */
        (h1 == 0xf85d && h2 == 0xfb04)) {           /* ldr.w pc, [sp], #4 */
        return CALLS_RET;
    }
    return CALLS_OTHER;
}

enum calls_class calls_classify(enum calls_isa isa, const uint8_t *code,
                                size_t size, bool thumb)
{
    switch (isa) {
    case CALLS_ISA_X86_64:
        return classify_x86_64(code, size > 16 ? 16 : size);
    case CALLS_ISA_AARCH64:
        return classify_aarch64(code, size);
    case CALLS_ISA_RISCV64:
        return classify_riscv(code, size, false);
    case CALLS_ISA_RISCV32:
        return classify_riscv(code, size, true);
    case CALLS_ISA_ARM:
        if (thumb) {
            return classify_thumb(code, size);
        }
        return size == 4 ? classify_a32(le32(code)) : CALLS_OTHER;
    default:
        return CALLS_OTHER;
    }
}

bool calls_arm_is_thumb(const struct calls_insn *insns, size_t n,
                        bool *ambiguous)
{
    size_t i;

    *ambiguous = false;
    for (i = 0; i < n; i++) {
        if (insns[i].size == 2 || (insns[i].pc & 3) != 0) {
            return true;
        }
    }
    for (i = 0; i < n; i++) {
        if (insns[i].size == 4 && !thumb_is_32(le16(insns[i].bytes))) {
            return false;
        }
    }
    *ambiguous = true;
    return true;
}

/* How much a reading of an ambiguous arm block says (see below). */
static int rank(enum calls_class cls)
{
    switch (cls) {
    case CALLS_OTHER:
    case CALLS_SYSCALL:     /* a branch decides, an svc does not */
        return 0;
    case CALLS_INDIRECT:
        return 1;
    default:
        return 2;
    }
}

/*
 * x86_64: the lazy-binding resolver of glibc's ld.so (_dl_runtime_resolve
 * and its variants, _dl_runtime_profile) ends by dropping its frame and
 * the two words the PLT pushed, then jumping to the function it found:
 * add $n, %rsp; jmp *%r11. That jump replaces the resolver by the
 * resolved function, a tail call. A function's own indirect jumps (switch
 * tables) never follow the release of its stack frame.
 */
static bool x86_is_resolver_exit(const struct calls_insn *prev,
                                 const struct calls_insn *last)
{
    static const uint8_t jmp_r11[] = { 0x41, 0xff, 0xe3 };
    const uint8_t *j = last->bytes;
    size_t jn = last->size;

    if (jn == 4 && j[0] == 0xf2) {
        j++;                            /* bnd */
        jn--;
    }
    if (jn != sizeof(jmp_r11) || memcmp(j, jmp_r11, jn) != 0) {
        return false;
    }
    /* add $imm8, %rsp (48 83 c4 ib) or add $imm32, %rsp (48 81 c4 id) */
    return prev->size >= 4 && prev->bytes[0] == 0x48 &&
           (prev->bytes[1] == 0x83 || prev->bytes[1] == 0x81) &&
           prev->bytes[2] == 0xc4;
}

enum calls_class calls_classify_block(enum calls_isa isa,
                                      const struct calls_insn *insns,
                                      size_t n)
{
    const struct calls_insn *last;
    enum calls_class as_thumb, as_a32;
    bool ambiguous, thumb;

    if (n == 0) {
        return CALLS_OTHER;
    }
    last = &insns[n - 1];
    if (isa == CALLS_ISA_X86_64 && n >= 2 &&
        x86_is_resolver_exit(&insns[n - 2], last)) {
        return CALLS_TAIL;
    }
    if (isa != CALLS_ISA_ARM) {
        return calls_classify(isa, last->bytes, last->size, false);
    }
    thumb = calls_arm_is_thumb(insns, n, &ambiguous);
    if (!ambiguous) {
        return calls_classify(isa, last->bytes, last->size, thumb);
    }
    /*
     * Every instruction is 4 bytes and looks like 32-bit Thumb, which A32
     * code also does by chance (bx lr does). A block ends at a branch, so
     * the reading that finds a call, return or tail call wins, then one
     * that finds an indirect jump; Thumb when both are alike (the default
     * of Debian's armhf compilers).
     */
    as_thumb = calls_classify(isa, last->bytes, last->size, true);
    as_a32 = calls_classify(isa, last->bytes, last->size, false);
    return rank(as_a32) > rank(as_thumb) ? as_a32 : as_thumb;
}

/* Sign-extend the low `bits` bits of v. */
static int64_t sext(uint64_t v, unsigned int bits)
{
    uint64_t m = 1ull << (bits - 1);

    v &= (m << 1) - 1;
    return (int64_t)((v ^ m) - m);
}

/* x86_64: jmp rel32 (e9), jmp rel8 (eb), with or without bnd (f2). */
static bool jump_x86_64(const struct calls_insn *in, uint64_t *target)
{
    const uint8_t *c = in->bytes;
    size_t size = in->size > 16 ? 16 : in->size;
    size_t i = size > 0 && c[0] == 0xf2 ? 1 : 0;

    if (i + 5 == size && c[i] == 0xe9) {
        *target = in->pc + size + (uint64_t)sext(le32(c + i + 1), 32);
        return true;
    }
    if (i + 2 == size && c[i] == 0xeb) {
        *target = in->pc + size + (uint64_t)sext(c[i + 1], 8);
        return true;
    }
    return false;
}

/* aarch64: b imm26. */
static bool jump_aarch64(const struct calls_insn *in, uint64_t *target)
{
    uint32_t w;

    if (in->size != 4) {
        return false;
    }
    w = le32(in->bytes);
    if ((w & 0xfc000000) != 0x14000000) {
        return false;
    }
    *target = in->pc + (uint64_t)(sext(w, 26) * 4);
    return true;
}

/* RISC-V: jal x0 (j) and c.j. */
static bool jump_riscv(const struct calls_insn *in, uint64_t *target)
{
    uint32_t w, imm;

    if (in->size == 2) {
        w = le16(in->bytes);
        if ((w & 0xe003) != 0xa001) {
            return false;
        }
        /* CJ format: offset[11|4|9:8|10|6|7|3:1|5] in bits 12..2 */
        imm = ((w >> 12) & 1) << 11 | ((w >> 11) & 1) << 4 |
              ((w >> 9) & 3) << 8 | ((w >> 8) & 1) << 10 |
              ((w >> 7) & 1) << 6 | ((w >> 6) & 1) << 7 |
              ((w >> 3) & 7) << 1 | ((w >> 2) & 1) << 5;
        *target = in->pc + (uint64_t)sext(imm, 12);
        return true;
    }
    if (in->size != 4) {
        return false;
    }
    w = le32(in->bytes);
    if ((w & 0xfff) != 0x06f) {                     /* jal, rd = x0 */
        return false;
    }
    imm = ((w >> 31) & 1) << 20 | ((w >> 21) & 0x3ff) << 1 |
          ((w >> 20) & 1) << 11 | ((w >> 12) & 0xff) << 12;
    *target = in->pc + (uint64_t)sext(imm, 21);
    return true;
}

/* A32: b (condition always). Thumb: b (16 bits, T2) and b.w (T4). */
static bool jump_arm(const struct calls_insn *in, bool thumb,
                     uint64_t *target)
{
    uint32_t w, h1, h2, s, i1, i2, imm;

    if (!thumb) {
        if (in->size != 4) {
            return false;
        }
        w = le32(in->bytes);
        if ((w & 0xff000000) != 0xea000000) {
            return false;
        }
        *target = in->pc + 8 + (uint64_t)(sext(w, 24) * 4);
        return true;
    }
    h1 = le16(in->bytes);
    if (in->size == 2) {
        if ((h1 & 0xf800) != 0xe000) {
            return false;
        }
        *target = in->pc + 4 + (uint64_t)(sext(h1, 11) * 2);
        return true;
    }
    if (in->size != 4) {
        return false;
    }
    h2 = le16(in->bytes + 2);
    if ((h1 & 0xf800) != 0xf000 || (h2 & 0xd000) != 0x9000) {
        return false;
    }
    s = (h1 >> 10) & 1;
    i1 = !(((h2 >> 13) & 1) ^ s);
    i2 = !(((h2 >> 11) & 1) ^ s);
    imm = s << 24 | i1 << 23 | i2 << 22 | (h1 & 0x3ff) << 12 |
          (h2 & 0x7ff) << 1;
    *target = in->pc + 4 + (uint64_t)sext(imm, 25);
    return true;
}

bool calls_direct_jump(enum calls_isa isa, const struct calls_insn *insns,
                       size_t n, uint64_t *target)
{
    const struct calls_insn *last;
    bool ambiguous, thumb;

    if (n == 0) {
        return false;
    }
    last = &insns[n - 1];
    switch (isa) {
    case CALLS_ISA_X86_64:
        return jump_x86_64(last, target);
    case CALLS_ISA_AARCH64:
        return jump_aarch64(last, target);
    case CALLS_ISA_RISCV64:
    case CALLS_ISA_RISCV32:
        return jump_riscv(last, target);
    case CALLS_ISA_ARM:
        thumb = calls_arm_is_thumb(insns, n, &ambiguous);
        /*
         * An ambiguous block is Thumb unless only the A32 reading is a
         * branch, as for the other classes.
         */
        if (ambiguous && !jump_arm(last, true, target)) {
            return jump_arm(last, false, target);
        }
        return jump_arm(last, thumb, target);
    default:
        return false;
    }
}
