/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests of the marker decoders (src/plugin/window/marker.c) on the
 * encodings include/qtrace/marker.h documents, and on their neighbours:
 * the same instruction with another register, displacement or
 * immediate, a kind past the last one, a size that does not fit.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "window/marker.h"

static enum marker_kind decode(const char *target, const uint8_t *code,
                               size_t size)
{
    marker_decode_fn fn = marker_decoder(target);

    assert_non_null(fn);
    return fn(code, size);
}

/* w as the four bytes a little-endian guest stores it in. */
static enum marker_kind decode_word(const char *target, uint32_t w)
{
    uint8_t code[4] = { (uint8_t)w, (uint8_t)(w >> 8), (uint8_t)(w >> 16),
                        (uint8_t)(w >> 24) };

    return decode(target, code, sizeof(code));
}

static void test_marker_x86(void **state)
{
    uint8_t code[7] = { 0x0f, 0x1f, 0x80, 0x51, 0x54, 0x01, 0x00 };
    unsigned int k;

    (void)state;
    for (k = 1; k <= 3; k++) {
        code[5] = (uint8_t)k;
        assert_int_equal(decode("x86_64", code, 7), k);
        assert_int_equal(decode("i386", code, 7), k);
    }
    code[5] = 4;    /* a kind of later versions */
    assert_int_equal(decode("x86_64", code, 7), MARKER_NONE);
    code[5] = 1;
    code[6] = 1;    /* displacement 0x1015451 */
    assert_int_equal(decode("x86_64", code, 7), MARKER_NONE);
    code[6] = 0;
    code[2] = 0x81;   /* (%rcx) */
    assert_int_equal(decode("x86_64", code, 7), MARKER_NONE);
    code[2] = 0x80;
    assert_int_equal(decode("x86_64", code, 6), MARKER_NONE);
}

static void test_marker_aarch64(void **state)
{
    (void)state;
    assert_int_equal(decode_word("aarch64", 0xf2ca203fu), MARKER_START);
    assert_int_equal(decode_word("aarch64", 0xf2ca205fu), MARKER_STOP);
    assert_int_equal(decode_word("aarch64", 0xf2ca207fu), MARKER_SNAPSHOT);
    /* movk x1, #0x5101, lsl #32 writes x1: no marker. */
    assert_int_equal(decode_word("aarch64", 0xf2ca2021u), MARKER_NONE);
    /* lsl #16 instead of #32. */
    assert_int_equal(decode_word("aarch64", 0xf2aa203fu), MARKER_NONE);
    /* #0x5201, lsl #32. */
    assert_int_equal(decode_word("aarch64", 0xf2ca403fu), MARKER_NONE);
    assert_int_equal(decode_word("aarch64", 0xf2ca201fu), MARKER_NONE);
}

static void test_marker_arm(void **state)
{
    (void)state;
    assert_int_equal(decode_word("arm", 0xe320f051u), MARKER_START);
    assert_int_equal(decode_word("arm", 0xe320f053u), MARKER_SNAPSHOT);
    assert_int_equal(decode_word("arm", 0xe320f000u), MARKER_NONE); /* nop */
    assert_int_equal(decode_word("arm", 0xe320f054u), MARKER_NONE);
    /* Thumb-2 hint.w #0x52: halfwords 0xf3af, 0x8052. */
    assert_int_equal(decode_word("arm", 0x8052f3afu), MARKER_STOP);
    assert_int_equal(decode_word("arm", 0x8000f3afu), MARKER_NONE);
}

static void test_marker_riscv(void **state)
{
    (void)state;
    assert_int_equal(decode_word("riscv64", 0x51102013u), MARKER_START);
    assert_int_equal(decode_word("riscv64", 0x51202013u), MARKER_STOP);
    assert_int_equal(decode_word("riscv32", 0x51302013u), MARKER_SNAPSHOT);
    /* slti ra, zero, 0x511 writes ra. */
    assert_int_equal(decode_word("riscv64", 0x51102093u), MARKER_NONE);
    /* slti zero, a0, 0x511: another source register. */
    assert_int_equal(decode_word("riscv64", 0x51152013u), MARKER_NONE);
    assert_int_equal(decode_word("riscv64", 0x00000013u), MARKER_NONE);
}

static void test_marker_unknown_target(void **state)
{
    (void)state;
    assert_null(marker_decoder("s390x"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_marker_x86),
        cmocka_unit_test(test_marker_aarch64),
        cmocka_unit_test(test_marker_arm),
        cmocka_unit_test(test_marker_riscv),
        cmocka_unit_test(test_marker_unknown_target),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
