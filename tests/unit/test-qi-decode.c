/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for the qemu-instr layer's access decoder and the info word
 * helpers of include/qemu-instr/events.h: instruction bytes as GNU as
 * encodes them (checked with objdump), with the accesses the
 * architecture manuals give each instruction.
 */
#include <capstone.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "qemu-instr/events.h"
#include "instrument/qi/qi-decode.h"

/* Info words by the layout of events.h, written out: size as log2. */
#define SIZE_BITS(shift) (((shift) & 3) | (((shift) & 4) << 3))
#define L(shift) SIZE_BITS(shift)
#define LS(shift) (SIZE_BITS(shift) | 0x04)
#define S(shift) (SIZE_BITS(shift) | 0x10)

struct pattern {
    const char *text;           /* what the assembler was given */
    uint8_t size;
    uint8_t bytes[8];           /* in memory order */
    size_t n;                   /* accesses expected */
    uint8_t infos[2];           /* their info words (size as log2) */
};

static void check(const struct pattern *p, size_t count, const char *mode)
{
    size_t i, k;

    for (i = 0; i < count; i++) {
        uint8_t got[QI_DECODE_MAX];
        size_t n = qi_decode_accesses(p[i].bytes, p[i].size, 0x1000,
                                      NULL, got);

        if (n != p[i].n) {
            fail_msg("%s %s: %zu accesses, expected %zu", mode, p[i].text,
                     n, p[i].n);
        }
        for (k = 0; k < n; k++) {
            if (got[k] != p[i].infos[k]) {
                fail_msg("%s %s: access %zu info 0x%x, expected 0x%x",
                         mode, p[i].text, k, got[k], p[i].infos[k]);
            }
        }
    }
}

static void test_qi_decode_x86_64_accesses_match_manual(void **state)
{
    static const struct pattern p[] = {
        { "mov %eax,0x10(%rip)", 6, { 0x89, 0x05, 0x10, 0, 0, 0 },
          1, { S(2), 0 } },
        { "mov 0x10(%rip),%edx", 6, { 0x8b, 0x15, 0x10, 0, 0, 0 },
          1, { L(2), 0 } },
        { "movsbq (%rdi),%rax", 4, { 0x48, 0x0f, 0xbe, 0x07 },
          1, { LS(0), 0 } },
        { "add %eax,(%rdi)", 2, { 0x01, 0x07 }, 2, { L(2), S(2) } },
        { "push (%rdi)", 2, { 0xff, 0x37 }, 2, { L(3), S(3) } },
        { "call *%rax", 2, { 0xff, 0xd0 }, 1, { S(3), 0 } },
        { "ret", 1, { 0xc3 }, 1, { L(3), 0 } },
        { "push %rbx", 1, { 0x53 }, 1, { S(3), 0 } },
        { "pop %rbx", 1, { 0x5b }, 1, { L(3), 0 } },
        { "movq %xmm0,(%rdi)", 4, { 0x66, 0x0f, 0xd6, 0x07 },
          1, { S(3), 0 } },
        { "lea 0x4(%rdi),%rax", 4, { 0x48, 0x8d, 0x47, 0x04 }, 0, { 0, 0 } },
        { "nopw (%rax,%rax,1)", 5, { 0x66, 0x0f, 0x1f, 0x04, 0x00 },
          0, { 0, 0 } },
    };

    (void)state;
    assert_true(qi_decode_setup("x86_64", false));
    assert_false(qi_decode_wants_text());
    check(p, sizeof(p) / sizeof(p[0]), "x86_64");
}

static void test_qi_decode_aarch64_accesses_match_manual(void **state)
{
    static const struct pattern p[] = {
        { "ldp x0, x1, [sp]", 4, { 0xe0, 0x07, 0x40, 0xa9 },
          2, { L(3), L(3) } },
        { "ldrsw x0, [x1]", 4, { 0x20, 0x00, 0x80, 0xb9 }, 1, { LS(2), 0 } },
        { "strb w0, [x1]", 4, { 0x20, 0x00, 0x00, 0x39 }, 1, { S(0), 0 } },
        { "str q0, [x2]", 4, { 0x40, 0x00, 0x80, 0x3d }, 1, { S(4), 0 } },
        { "stxr w3, x4, [x5]", 4, { 0xa4, 0x7c, 0x03, 0xc8 },
          1, { S(3), 0 } },
        { "ldrh w0, [x1, #2]", 4, { 0x20, 0x04, 0x40, 0x79 },
          1, { L(1), 0 } },
        /* Atomics are not listed (docs/instrument.md). */
        { "ldadd x0, x1, [x2]", 4, { 0x41, 0x00, 0x20, 0xf8 }, 0, { 0, 0 } },
    };

    (void)state;
    assert_true(qi_decode_setup("aarch64", false));
    check(p, sizeof(p) / sizeof(p[0]), "aarch64");
}

/*
 * x86 system mode: the same bytes mean other accesses in 16-bit code;
 * QEMU's text (capstone's AT&T output in the CPU's mode, as QEMU prints
 * it) picks the mode.
 */
static void test_qi_decode_x86_system_mode_follows_qemu_text(void **state)
{
    /* mov 0x1000,%dx in 16-bit code; mov (%rsi),%edx in 64-bit. */
    static const uint8_t code[] = { 0x8b, 0x16, 0x00, 0x10 };
    char text16[sizeof(((cs_insn *)0)->mnemonic) +
                sizeof(((cs_insn *)0)->op_str) + 1];
    uint8_t got[QI_DECODE_MAX];
    cs_insn *in;
    csh h;

    (void)state;
    assert_int_equal(cs_open(CS_ARCH_X86, CS_MODE_16, &h), CS_ERR_OK);
    cs_option(h, CS_OPT_SYNTAX, CS_OPT_SYNTAX_ATT);
    assert_int_equal(cs_disasm(h, code, sizeof(code), 0, 1, &in), 1);
    snprintf(text16, sizeof(text16), "%s %s", in->mnemonic, in->op_str);
    cs_free(in, 1);
    cs_close(&h);

    assert_true(qi_decode_setup("x86_64", true));
    assert_true(qi_decode_wants_text());
    assert_int_equal(qi_decode_accesses(code, sizeof(code), 0xffff0009,
                                        text16, got), 1);
    assert_int_equal(got[0], L(1));
    /* As 64-bit code (its own text), the first two bytes load 4. */
    assert_int_equal(qi_decode_accesses(code, 2, 0x1000, "movl (%rsi), %edx",
                                        got), 1);
    assert_int_equal(got[0], L(2));
}

static void test_qi_decode_other_targets_list_nothing(void **state)
{
    static const uint8_t sw[] = { 0x23, 0x20, 0xb5, 0x00 };
    uint8_t got[QI_DECODE_MAX];

    (void)state;
    assert_false(qi_decode_setup("riscv64", false));
    assert_int_equal(qi_decode_accesses(sw, sizeof(sw), 0, NULL, got), 0);
}

static void test_qi_mem_info_fields_round_trip(void **state)
{
    unsigned int shift;

    (void)state;
    for (shift = 0; shift <= 4; shift++) {
        uint8_t info = qi_mem_info_make(shift, true, false, true);

        assert_int_equal(qi_mem_info_size_shift(info), shift);
        assert_int_equal(qi_mem_info_size(info), 1u << shift);
        assert_true(qi_mem_info_is_store(info));
        assert_true(qi_mem_info_is_big_endian(info));
        assert_false(qi_mem_info_is_sign_extended(info));
    }
    /* TraceMemInfo's layout: size_shift:2, sign:1, endianness:1, store:1. */
    assert_int_equal(qi_mem_info_make(2, true, false, false), 0x12);
    assert_int_equal(qi_mem_info_make(1, false, true, false), 0x05);
    assert_int_equal(qi_mem_info_make(3, false, false, true), 0x0b);
    assert_int_equal(qi_mem_info_make(4, false, false, false), 0x20);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_qi_decode_x86_64_accesses_match_manual),
        cmocka_unit_test(test_qi_decode_aarch64_accesses_match_manual),
        cmocka_unit_test(test_qi_decode_x86_system_mode_follows_qemu_text),
        cmocka_unit_test(test_qi_decode_other_targets_list_nothing),
        cmocka_unit_test(test_qi_mem_info_fields_round_trip),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
