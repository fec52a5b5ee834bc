/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for the call, return and tail-call classifiers: instruction
 * bytes as the GNU assemblers of each architecture encode them (checked
 * with objdump), with the class their mnemonic implies.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "calls-decode.h"

#define C CALLS_CALL
#define R CALLS_RET
#define T CALLS_TAIL
#define O CALLS_OTHER
#define I CALLS_INDIRECT
#define S CALLS_SYSCALL

struct pattern {
    const char *text;           /* what the assembler was given */
    uint8_t size;
    uint8_t bytes[8];           /* in memory order */
    enum calls_class expect;
};

static void check_patterns(enum calls_isa isa, bool thumb,
                           const struct pattern *p, size_t n)
{
    size_t i;

    for (i = 0; i < n; i++) {
        enum calls_class got = calls_classify(isa, p[i].bytes, p[i].size,
                                              thumb);

        if (got != p[i].expect) {
            fail_msg("%s: class %d, expected %d", p[i].text, got,
                     p[i].expect);
        }
    }
}

#define CHECK(isa, thumb, table) \
    check_patterns(isa, thumb, table, sizeof(table) / sizeof(table[0]))

static void test_calls_decode_x86_64_classes(void **state)
{
    static const struct pattern p[] = {
        { "call rel32", 5, { 0xe8, 0, 0, 0, 0 }, C },
        { "call *%rax", 2, { 0xff, 0xd0 }, C },
        { "call *0x10(%rip)", 6, { 0xff, 0x15, 0x10, 0, 0, 0 }, C },
        { "call *(%rax,%rbx,8)", 3, { 0xff, 0x14, 0xd8 }, C },
        { "call *%r11", 3, { 0x41, 0xff, 0xd3 }, C },
        { "notrack call *%rdx", 3, { 0x3e, 0xff, 0xd2 }, C },
        { "ret", 1, { 0xc3 }, R },
        { "ret $8", 3, { 0xc2, 0x08, 0x00 }, R },
        { "repz ret", 2, { 0xf3, 0xc3 }, R },
        { "bnd ret", 2, { 0xf2, 0xc3 }, R },
        { "jmp *0x200(%rip)", 6, { 0xff, 0x25, 0, 2, 0, 0 }, T },
        { "bnd jmp *0x200(%rip)", 7, { 0xf2, 0xff, 0x25, 0, 2, 0, 0 }, T },
        { "jmp *%rax", 2, { 0xff, 0xe0 }, I },
        { "jmp *(%rax,%rcx,8)", 3, { 0xff, 0x24, 0xc8 }, I },
        { "jmp rel8", 2, { 0xeb, 0xd3 }, O },
        { "jmp rel32", 5, { 0xe9, 0xfb, 0x0f, 0, 0 }, O },
        { "lcall *(%rax)", 2, { 0xff, 0x18 }, O },
        { "ljmp *(%rax)", 2, { 0xff, 0x28 }, I },
        { "syscall", 2, { 0x0f, 0x05 }, S },
        { "sysret", 2, { 0x0f, 0x07 }, O },
        { "ud2", 2, { 0x0f, 0x0b }, O },
        { "push %rbp", 1, { 0x55 }, O },
        { "prefixes only", 2, { 0x66, 0x48 }, O },
    };

    (void)state;
    CHECK(CALLS_ISA_X86_64, false, p);
}

static void test_calls_decode_aarch64_classes(void **state)
{
    static const struct pattern p[] = {
        { "bl", 4, { 0x01, 0x00, 0x00, 0x94 }, C },
        { "blr x3", 4, { 0x60, 0x00, 0x3f, 0xd6 }, C },
        { "blraaz x4", 4, { 0x9f, 0x08, 0x3f, 0xd6 }, C },
        { "blraa x5, x6", 4, { 0xa6, 0x08, 0x3f, 0xd7 }, C },
        { "ret", 4, { 0xc0, 0x03, 0x5f, 0xd6 }, R },
        { "ret x3", 4, { 0x60, 0x00, 0x5f, 0xd6 }, R },
        { "retaa", 4, { 0xff, 0x0b, 0x5f, 0xd6 }, R },
        { "br x16", 4, { 0x00, 0x02, 0x1f, 0xd6 }, T },
        { "br x17", 4, { 0x20, 0x02, 0x1f, 0xd6 }, T },
        { "braaz x16", 4, { 0x1f, 0x0a, 0x1f, 0xd6 }, T },
        { "br x9", 4, { 0x20, 0x01, 0x1f, 0xd6 }, I },
        { "br x30", 4, { 0xc0, 0x03, 0x1f, 0xd6 }, I },
        { "b", 4, { 0xf6, 0xff, 0xff, 0x17 }, O },
        { "b.eq", 4, { 0xa0, 0xfe, 0xff, 0x54 }, O },
        { "cbz x0", 4, { 0x80, 0xfe, 0xff, 0xb4 }, O },
        { "svc #0", 4, { 0x01, 0x00, 0x00, 0xd4 }, S },
        { "svc #0x80", 4, { 0x01, 0x10, 0x00, 0xd4 }, S },
        { "hvc #0", 4, { 0x02, 0x00, 0x00, 0xd4 }, O },
        { "brk #0", 4, { 0x00, 0x00, 0x20, 0xd4 }, O },
        { "nop", 4, { 0x1f, 0x20, 0x03, 0xd5 }, O },
    };

    (void)state;
    CHECK(CALLS_ISA_AARCH64, false, p);
}

static void test_calls_decode_riscv64_classes(void **state)
{
    static const struct pattern p[] = {
        { "jal ra", 4, { 0xef, 0x00, 0x40, 0x00 }, C },
        { "jal t0", 4, { 0xef, 0x02, 0x00, 0x00 }, C },
        { "jal zero (j)", 4, { 0x6f, 0xf0, 0xdf, 0xff }, O },
        { "jalr ra, 0(a5)", 4, { 0xe7, 0x80, 0x07, 0x00 }, C },
        { "jalr ra, 8(t1)", 4, { 0xe7, 0x00, 0x83, 0x00 }, C },
        { "jalr zero, 0(ra) (ret)", 4, { 0x67, 0x80, 0x00, 0x00 }, R },
        { "jalr zero, 0(t0)", 4, { 0x67, 0x80, 0x02, 0x00 }, R },
        { "jalr zero, 0(t1) (tail)", 4, { 0x67, 0x00, 0x03, 0x00 }, T },
        { "jalr t1, 0(t3) (plt)", 4, { 0x67, 0x03, 0x0e, 0x00 }, T },
        { "jalr zero, 0(a5) (jr)", 4, { 0x67, 0x80, 0x07, 0x00 }, I },
        { "beq", 4, { 0xe3, 0x0e, 0xb5, 0xfc }, O },
        { "ecall", 4, { 0x73, 0x00, 0x00, 0x00 }, S },
        { "ebreak", 4, { 0x73, 0x00, 0x10, 0x00 }, O },
        { "c.jr ra", 2, { 0x82, 0x80 }, R },
        { "c.jr t1", 2, { 0x02, 0x83 }, T },
        { "c.jr a5", 2, { 0x82, 0x87 }, I },
        { "c.jalr a5", 2, { 0x82, 0x97 }, C },
        { "c.j", 2, { 0xf1, 0xb7 }, O },
        { "c.addiw (c.jal on rv32)", 2, { 0x05, 0x25 }, O },
        { "c.nop", 2, { 0x01, 0x00 }, O },
    };

    (void)state;
    CHECK(CALLS_ISA_RISCV64, false, p);
}

static void test_calls_decode_riscv32_c_jal_is_call(void **state)
{
    static const uint8_t c_jal[] = { 0x05, 0x25 };

    (void)state;
    assert_int_equal(calls_classify(CALLS_ISA_RISCV32, c_jal, 2, false), C);
}

static void test_calls_decode_a32_classes(void **state)
{
    static const struct pattern p[] = {
        { "bl", 4, { 0xff, 0xff, 0xff, 0xeb }, C },
        { "blx imm", 4, { 0xfe, 0xff, 0xff, 0xfa }, C },
        { "blx r3", 4, { 0x33, 0xff, 0x2f, 0xe1 }, C },
        { "bxeq lr", 4, { 0x1e, 0xff, 0x2f, 0x01 }, R },
        { "bx lr", 4, { 0x1e, 0xff, 0x2f, 0xe1 }, R },
        { "bx ip", 4, { 0x1c, 0xff, 0x2f, 0xe1 }, T },
        { "bx r3", 4, { 0x13, 0xff, 0x2f, 0xe1 }, I },
        { "mov pc, r3", 4, { 0x03, 0xf0, 0xa0, 0xe1 }, I },
        { "mov pc, lr", 4, { 0x0e, 0xf0, 0xa0, 0xe1 }, R },
        { "pop {r4, pc}", 4, { 0x10, 0x80, 0xbd, 0xe8 }, R },
        { "pop {r4, r5}", 4, { 0x30, 0x00, 0xbd, 0xe8 }, O },
        { "ldmdb fp, {fp, sp, pc}", 4, { 0x00, 0xa8, 0x1b, 0xe9 }, R },
        { "ldr pc, [sp], #4", 4, { 0x04, 0xf0, 0x9d, 0xe4 }, R },
        { "ldr pc, [ip, #8]!", 4, { 0x08, 0xf0, 0xbc, 0xe5 }, T },
        { "b", 4, { 0xf2, 0xff, 0xff, 0xea }, O },
        { "svc 0", 4, { 0x00, 0x00, 0x00, 0xef }, S },
        { "svcne 0x900001", 4, { 0x01, 0x00, 0x90, 0x1f }, S },
    };

    (void)state;
    CHECK(CALLS_ISA_ARM, false, p);
}

static void test_calls_decode_thumb_classes(void **state)
{
    static const struct pattern p[] = {
        { "bl", 4, { 0xff, 0xf7, 0xfe, 0xff }, C },
        { "blx imm", 4, { 0xff, 0xf7, 0xe0, 0xef }, C },
        { "blx r3", 2, { 0x98, 0x47 }, C },
        { "bx lr", 2, { 0x70, 0x47 }, R },
        { "bx ip", 2, { 0x60, 0x47 }, T },
        { "mov pc, lr", 2, { 0xf7, 0x46 }, R },
        { "bx r3", 2, { 0x18, 0x47 }, I },
        { "mov pc, r3", 2, { 0x9f, 0x46 }, I },
        { "pop {r4, pc}", 2, { 0x10, 0xbd }, R },
        { "ldmia.w sp!, {r4-r8, pc}", 4, { 0xbd, 0xe8, 0xf0, 0x81 }, R },
        { "ldr.w pc, [sp], #4", 4, { 0x5d, 0xf8, 0x04, 0xfb }, R },
        { "b.w", 4, { 0xff, 0xf7, 0xf1, 0xbf }, O },
        { "b.n", 2, { 0xef, 0xe7 }, O },
        { "push {r4, lr}", 2, { 0x10, 0xb5 }, O },
        { "svc 0", 2, { 0x00, 0xdf }, S },
        { "udf 0", 2, { 0x00, 0xde }, O },
    };

    (void)state;
    CHECK(CALLS_ISA_ARM, true, p);
}

/* A block of one 4-byte instruction at a 4-aligned pc (arm). */
static enum calls_class classify_alone(const uint8_t *bytes, uint64_t pc)
{
    struct calls_insn in = { .pc = pc, .size = 4 };

    memcpy(in.bytes, bytes, 4);
    return calls_classify_block(CALLS_ISA_ARM, &in, 1);
}

static void test_calls_decode_arm_mode_from_sizes_and_pc(void **state)
{
    struct calls_insn b[2] = {
        { .pc = 0x1000, .size = 2, .bytes = { 0x10, 0xb5 } },
        { .pc = 0x1002, .size = 4, .bytes = { 0xff, 0xf7, 0xfe, 0xff } },
    };
    bool ambiguous;

    (void)state;
    assert_true(calls_arm_is_thumb(b, 2, &ambiguous));
    assert_false(ambiguous);
    assert_int_equal(calls_classify_block(CALLS_ISA_ARM, b, 2), C);
    /* A lone 4-byte instruction at pc 2 mod 4 can only be Thumb. */
    assert_true(calls_arm_is_thumb(&b[1], 1, &ambiguous));
    assert_false(ambiguous);
}

static void test_calls_decode_arm_a32_block_decoded_as_a32(void **state)
{
    /* push {r4, lr}; pop {r4, pc}: the first halfword rules Thumb out. */
    struct calls_insn b[2] = {
        { .pc = 0x2000, .size = 4, .bytes = { 0x10, 0x40, 0x2d, 0xe9 } },
        { .pc = 0x2004, .size = 4, .bytes = { 0x10, 0x80, 0xbd, 0xe8 } },
    };
    bool ambiguous;

    (void)state;
    assert_false(calls_arm_is_thumb(b, 2, &ambiguous));
    assert_false(ambiguous);
    assert_int_equal(calls_classify_block(CALLS_ISA_ARM, b, 2), R);
}

static void test_calls_decode_arm_ambiguous_block_finds_branch(void **state)
{
    static const uint8_t a32_bx_lr[] = { 0x1e, 0xff, 0x2f, 0xe1 };
    static const uint8_t a32_bl[] = { 0xff, 0xff, 0xff, 0xeb };
    static const uint8_t t32_bl[] = { 0xff, 0xf7, 0xfe, 0xff };
    static const uint8_t t32_pop_pc[] = { 0xbd, 0xe8, 0xf0, 0x81 };
    static const uint8_t t32_b_w[] = { 0xff, 0xf7, 0xf1, 0xbf };
    struct calls_insn in = { .pc = 0x3000, .size = 4 };
    bool ambiguous;

    (void)state;
    /* Each of these alone looks like a 32-bit Thumb instruction. */
    memcpy(in.bytes, a32_bx_lr, 4);
    calls_arm_is_thumb(&in, 1, &ambiguous);
    assert_true(ambiguous);
    assert_int_equal(classify_alone(a32_bx_lr, 0x3000), R);
    assert_int_equal(classify_alone(a32_bl, 0x3000), C);
    assert_int_equal(classify_alone(t32_bl, 0x3000), C);
    assert_int_equal(classify_alone(t32_pop_pc, 0x3000), R);
    assert_int_equal(classify_alone(t32_b_w, 0x3000), O);
}

static void test_calls_decode_last_instruction_only(void **state)
{
    /* call; nop: the block's class is the nop's. */
    struct calls_insn b[2] = {
        { .pc = 0x10, .size = 5, .bytes = { 0xe8, 0, 0, 0, 0 } },
        { .pc = 0x15, .size = 1, .bytes = { 0x90 } },
    };

    (void)state;
    assert_int_equal(calls_classify_block(CALLS_ISA_X86_64, b, 2), O);
    assert_int_equal(calls_classify_block(CALLS_ISA_X86_64, b, 1), C);
    assert_int_equal(calls_classify_block(CALLS_ISA_X86_64, b, 0), O);
}

/* One direct jump: its block of one instruction and the target found. */
struct jump {
    const char *text;           /* what the assembler was given */
    uint64_t pc;
    uint8_t size;
    uint8_t bytes[8];
    bool is_jump;
    uint64_t target;            /* as objdump prints it */
};

static void check_jumps(enum calls_isa isa, const struct jump *j, size_t n)
{
    size_t i;

    for (i = 0; i < n; i++) {
        struct calls_insn in = { .pc = j[i].pc, .size = j[i].size };
        uint64_t target = 0;
        bool got;

        memcpy(in.bytes, j[i].bytes, sizeof(j[i].bytes));
        got = calls_direct_jump(isa, &in, 1, &target);
        if (got != j[i].is_jump || (got && target != j[i].target)) {
            fail_msg("%s: jump %d to 0x%llx, expected %d to 0x%llx",
                     j[i].text, got, (unsigned long long)target,
                     j[i].is_jump, (unsigned long long)j[i].target);
        }
    }
}

#define CHECK_JUMPS(isa, table) \
    check_jumps(isa, table, sizeof(table) / sizeof(table[0]))

static void test_calls_decode_direct_jump_targets(void **state)
{
    static const struct jump x86[] = {
        { "jmp .+0x1000", 0, 5, { 0xe9, 0xfb, 0x0f, 0, 0 }, true, 0x1000 },
        { "jmp .-8", 5, 2, { 0xeb, 0xf6 }, true, (uint64_t)-3 },
        { "bnd jmp .+0x20", 7, 3, { 0xf2, 0xeb, 0x1d }, true, 0x27 },
        { "jmp *%rax", 0x15, 2, { 0xff, 0xe0 }, false, 0 },
        { "call rel32", 0, 5, { 0xe8, 0, 0, 0, 0 }, false, 0 },
    };
    static const struct jump a64[] = {
        { "b .-0x800", 0, 4, { 0x00, 0xfe, 0xff, 0x17 }, true,
          (uint64_t)-0x800 },
        { "b .+0x40", 4, 4, { 0x10, 0x00, 0x00, 0x14 }, true, 0x44 },
        { "bl .+8", 8, 4, { 0x02, 0x00, 0x00, 0x94 }, false, 0 },
    };
    static const struct jump rv[] = {
        { "j .-0x100", 0, 4, { 0x6f, 0xf0, 0x1f, 0xf0 }, true,
          (uint64_t)-0x100 },
        { "jal x0, .+0x800", 4, 4, { 0x6f, 0x00, 0x10, 0x00 }, true,
          0x804 },
        { "c.j .-0x20", 8, 2, { 0xc5, 0xb7 }, true, (uint64_t)-0x18 },
        { "jal ra, 0", 0, 4, { 0xef, 0x00, 0x00, 0x00 }, false, 0 },
    };
    static const struct jump arm[] = {
        { "b .+0x100 (A32)", 0, 4, { 0x3e, 0x00, 0x00, 0xea }, true, 0x100 },
        { "beq .+8 (A32)", 4, 4, { 0x00, 0x00, 0x00, 0x0a }, false, 0 },
        { "b.w .-0x1000", 8, 4, { 0xfe, 0xf7, 0xfe, 0xbf }, true,
          (uint64_t)-0xff8 },
        { "b.n .+0x10", 0xc, 2, { 0x06, 0xe0 }, true, 0x1c },
    };

    (void)state;
    CHECK_JUMPS(CALLS_ISA_X86_64, x86);
    CHECK_JUMPS(CALLS_ISA_AARCH64, a64);
    CHECK_JUMPS(CALLS_ISA_RISCV64, rv);
    CHECK_JUMPS(CALLS_ISA_ARM, arm);
}

static void test_calls_decode_x86_64_resolver_exit_is_tail(void **state)
{
    /* add $0x18,%rsp; [bnd] jmp *%r11: ld.so's lazy-binding resolver. */
    struct calls_insn b[2] = {
        { .pc = 0xa, .size = 4, .bytes = { 0x48, 0x83, 0xc4, 0x18 } },
        { .pc = 0xe, .size = 3, .bytes = { 0x41, 0xff, 0xe3 } },
    };
    struct calls_insn bnd = { .pc = 0xe, .size = 4,
                              .bytes = { 0xf2, 0x41, 0xff, 0xe3 } };

    (void)state;
    assert_int_equal(calls_classify_block(CALLS_ISA_X86_64, b, 2), T);
    /* Alone, or after anything else, it is a jump through a register. */
    assert_int_equal(calls_classify_block(CALLS_ISA_X86_64, &b[1], 1), I);
    b[1] = bnd;
    assert_int_equal(calls_classify_block(CALLS_ISA_X86_64, b, 2), T);
    b[0].bytes[2] = 0xc0;           /* add $0x18,%rax */
    assert_int_equal(calls_classify_block(CALLS_ISA_X86_64, b, 2), I);
}

static void test_calls_decode_abi_table(void **state)
{
    const struct calls_abi *arm = calls_abi_of("arm");
    const struct calls_abi *x86 = calls_abi_of("x86_64");

    (void)state;
    assert_non_null(arm);
    assert_int_equal(arm->isa, CALLS_ISA_ARM);
    assert_int_equal(arm->nr_mmap, 192);        /* mmap2 */
    assert_int_equal(arm->mmap_unit, 4096);
    assert_non_null(x86);
    assert_int_equal(x86->nr_mmap, 9);
    assert_int_equal(x86->nr_sigreturn[0], 15);
    assert_non_null(calls_abi_of("aarch64"));
    assert_non_null(calls_abi_of("riscv64"));
    assert_null(calls_abi_of("mips"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_calls_decode_x86_64_classes),
        cmocka_unit_test(test_calls_decode_aarch64_classes),
        cmocka_unit_test(test_calls_decode_riscv64_classes),
        cmocka_unit_test(test_calls_decode_riscv32_c_jal_is_call),
        cmocka_unit_test(test_calls_decode_a32_classes),
        cmocka_unit_test(test_calls_decode_thumb_classes),
        cmocka_unit_test(test_calls_decode_arm_mode_from_sizes_and_pc),
        cmocka_unit_test(test_calls_decode_arm_a32_block_decoded_as_a32),
        cmocka_unit_test(test_calls_decode_arm_ambiguous_block_finds_branch),
        cmocka_unit_test(test_calls_decode_last_instruction_only),
        cmocka_unit_test(test_calls_decode_direct_jump_targets),
        cmocka_unit_test(test_calls_decode_x86_64_resolver_exit_is_tail),
        cmocka_unit_test(test_calls_decode_abi_table),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
