/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for src/plugin/xlate-flush.h: which instructions may change
 * a vCPU's translations or the memory map. The bytes are what GNU as
 * assembles for the instruction named beside them.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "xlate-flush.h"

#define X86(...) \
    xlate_flush_insn(XLATE_ISA_X86, (const uint8_t[]){ __VA_ARGS__ }, \
                     sizeof((const uint8_t[]){ __VA_ARGS__ }))

/* An aarch64 instruction word, stored little-endian. */
static enum xlate_flush a64(uint32_t w)
{
    uint8_t b[4] = { (uint8_t)w, (uint8_t)(w >> 8), (uint8_t)(w >> 16),
                     (uint8_t)(w >> 24) };

    return xlate_flush_insn(XLATE_ISA_AARCH64, b, sizeof(b));
}

static void test_isa_of(void **state)
{
    (void)state;
    assert_int_equal(xlate_isa_of("x86_64"), XLATE_ISA_X86);
    assert_int_equal(xlate_isa_of("i386"), XLATE_ISA_X86);
    assert_int_equal(xlate_isa_of("aarch64"), XLATE_ISA_AARCH64);
    assert_int_equal(xlate_isa_of("riscv64"), XLATE_ISA_NONE);
    assert_int_equal(xlate_isa_of("arm"), XLATE_ISA_NONE);
}

static void test_x86(void **state)
{
    (void)state;
    assert_int_equal(X86(0x0f, 0x22, 0xd8), XLATE_FLUSH_CPU); /* cr3 */
    assert_int_equal(X86(0x0f, 0x22, 0xe0), XLATE_FLUSH_CPU); /* cr4 */
    assert_int_equal(X86(0x41, 0x0f, 0x22, 0xd8), XLATE_FLUSH_CPU);
    assert_int_equal(X86(0x0f, 0x01, 0x38), XLATE_FLUSH_CPU); /* invlpg */
    assert_int_equal(X86(0x66, 0x0f, 0x38, 0x82, 0x08),
                     XLATE_FLUSH_CPU);                          /* invpcid */
    assert_int_equal(X86(0x0f, 0x30), XLATE_FLUSH_CPU);       /* wrmsr */
    assert_int_equal(X86(0x0f, 0xaa), XLATE_FLUSH_CPU);       /* rsm */
    assert_int_equal(X86(0xee), XLATE_FLUSH_MAP);             /* out */
    assert_int_equal(X86(0xe4, 0x71), XLATE_FLUSH_MAP);       /* in */
    assert_int_equal(X86(0xf3, 0x6e), XLATE_FLUSH_MAP);       /* rep outsb */
    /* Reads of the same registers, neighbours of the same opcodes. */
    assert_int_equal(X86(0x0f, 0x20, 0xd8), XLATE_KEEP);      /* from cr3 */
    assert_int_equal(X86(0x0f, 0x01, 0xf8), XLATE_KEEP);      /* swapgs */
    assert_int_equal(X86(0x0f, 0x01, 0x10), XLATE_KEEP);      /* lgdt */
    assert_int_equal(X86(0x0f, 0x32), XLATE_KEEP);            /* rdmsr */
    assert_int_equal(X86(0x48, 0x89, 0x03), XLATE_KEEP);      /* mov */
    assert_int_equal(X86(0xc3), XLATE_KEEP);                  /* ret */
    /* Cut short: nothing read past the end. */
    assert_int_equal(X86(0x0f), XLATE_KEEP);
    assert_int_equal(X86(0x0f, 0x01), XLATE_KEEP);
    assert_int_equal(X86(0x66, 0x66), XLATE_KEEP);
}

static void test_aarch64(void **state)
{
    (void)state;
    assert_int_equal(a64(0xd508831f), XLATE_FLUSH_CPU); /* tlbi vmalle1is */
    assert_int_equal(a64(0xd5088720), XLATE_FLUSH_CPU); /* tlbi vae1, x0 */
    assert_int_equal(a64(0xd5182000), XLATE_FLUSH_CPU); /* msr ttbr0_el1 */
    assert_int_equal(a64(0xd5182021), XLATE_FLUSH_CPU); /* msr ttbr1_el1 */
    assert_int_equal(a64(0xd5182040), XLATE_FLUSH_CPU); /* msr tcr_el1 */
    assert_int_equal(a64(0xd5181000), XLATE_FLUSH_CPU); /* msr sctlr_el1 */
    assert_int_equal(a64(0xd51c2000), XLATE_FLUSH_CPU); /* msr ttbr0_el2 */
    assert_int_equal(a64(0xd5382000), XLATE_KEEP);      /* mrs ttbr0_el1 */
    assert_int_equal(a64(0xd518d080), XLATE_KEEP);      /* msr tpidr_el1 */
    assert_int_equal(a64(0xd5033b9f), XLATE_KEEP);      /* dsb ish */
    assert_int_equal(a64(0xd503201f), XLATE_KEEP);      /* nop */
    assert_int_equal(xlate_flush_insn(XLATE_ISA_AARCH64,
                                      (const uint8_t[]){ 0x1f, 0x83 }, 2),
                     XLATE_KEEP);
}

static void test_reset_pc(void **state)
{
    (void)state;
    assert_true(xlate_reset_pc(XLATE_ISA_X86) == 0xfffffff0u);
    assert_true(xlate_reset_pc(XLATE_ISA_AARCH64) == UINT64_MAX);
    assert_int_equal(xlate_flush_insn(XLATE_ISA_NONE,
                                      (const uint8_t[]){ 0x0f, 0x30 }, 2),
                     XLATE_KEEP);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_isa_of),
        cmocka_unit_test(test_x86),
        cmocka_unit_test(test_aarch64),
        cmocka_unit_test(test_reset_pc),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
