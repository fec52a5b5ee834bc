/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for src/format/digits.h, against the C library's printf:
 * every power of ten and sixteen and its neighbours, the extremes, and a
 * spread of values of every bit length.
 */
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "digits.h"

/* digits_dec/_hex and their lengths give what printf gives for v. */
static void check(uint64_t v)
{
    char want[32], buf[40];
    char *end = buf + sizeof(buf) - 1, *p;

    *end = '\0';
    snprintf(want, sizeof(want), "%" PRIu64, v);
    p = digits_dec(end, v);
    assert_string_equal(p, want);
    assert_int_equal(digits_dec_len(v), strlen(want));
    assert_ptr_equal(digits_u64(end, v, 10), p);

    snprintf(want, sizeof(want), "%" PRIx64, v);
    p = digits_hex(end, v);
    assert_string_equal(p, want);
    assert_int_equal(digits_hex_len(v), strlen(want));
    assert_ptr_equal(digits_u64(end, v, 16), p);
}

static void test_powers_and_neighbours(void **state)
{
    uint64_t p;

    (void)state;
    check(0);
    check(UINT64_MAX);
    check(UINT64_MAX - 1);
    for (p = 1; p <= UINT64_MAX / 10; p *= 10) {
        check(p - 1);
        check(p);
        check(p + 1);
    }
    check(p);                       /* 10^19 */
    check(p - 1);
    for (p = 1; p != 0; p <<= 4) {
        check(p - 1);
        check(p);
        check(p + 1);
    }
}

static void test_every_bit_length(void **state)
{
    uint64_t x = 0x9e3779b97f4a7c15ull;
    unsigned int bits, i;

    (void)state;
    for (bits = 1; bits <= 64; bits++) {
        for (i = 0; i < 200; i++) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            check(bits == 64 ? x : x & ((1ull << bits) - 1));
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_powers_and_neighbours),
        cmocka_unit_test(test_every_bit_length),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
