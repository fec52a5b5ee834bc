/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for src/format/zchunk.c: what the plugin compresses, libzstd
 * reads back; what libzstd compresses, the reader's side reads back; data
 * that does not shrink is left alone; bad frames are refused.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <zstd.h>

#include "zchunk.h"

#define LEN 100000

/* Trace-like bytes: a repeating record pattern with a counter in it. */
static uint8_t *patterned(void)
{
    uint8_t *p = malloc(LEN);
    size_t i;

    assert_non_null(p);
    for (i = 0; i < LEN; i++) {
        p[i] = (uint8_t)(i % 16 < 8 ? i / 16 : i % 5);
    }
    return p;
}

static void test_deflate_is_a_zstd_frame_of_the_input(void **state)
{
    struct zchunk_deflater *z = zchunk_deflater_new(1);
    uint8_t *in = patterned(), *back = malloc(LEN);
    const void *out = NULL;
    size_t n;

    (void)state;
    assert_non_null(z);
    n = zchunk_deflate(z, in, LEN, &out);
    assert_true(n > 0 && n < LEN / 4);
    assert_int_equal(ZSTD_getFrameContentSize(out, n), LEN);
    assert_int_equal(ZSTD_decompress(back, LEN, out, n), LEN);
    assert_memory_equal(back, in, LEN);
    zchunk_deflater_free(z);
    free(in);
    free(back);
}

static void test_incompressible_input_left_alone(void **state)
{
    struct zchunk_deflater *z = zchunk_deflater_new(3);
    uint8_t *in = malloc(LEN);
    const void *out = NULL;
    uint32_t x = 2463534242u;
    size_t i;

    (void)state;
    assert_non_null(in);
    for (i = 0; i < LEN; i++) {     /* xorshift: no pattern to find */
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        in[i] = (uint8_t)x;
    }
    assert_int_equal(zchunk_deflate(z, in, LEN, &out), 0);
    assert_null(out);
    zchunk_deflater_free(z);
    free(in);
}

static void test_inflate_reads_libzstd_frames(void **state)
{
    struct zchunk_inflater zi = { 0 };
    uint8_t *in = patterned();
    size_t cap = ZSTD_compressBound(LEN);
    uint8_t *frame = malloc(cap);
    const uint8_t *out;
    size_t n, out_len;
    char why[128];

    (void)state;
    n = ZSTD_compress(frame, cap, in, LEN, 9);
    assert_false(ZSTD_isError(n));
    assert_int_equal(zchunk_inflate(&zi, frame, n, LEN, &out, &out_len,
                                    why, sizeof(why)), 0);
    assert_int_equal(out_len, LEN);
    assert_memory_equal(out, in, LEN);
    /* Twice with the same buffer. */
    assert_int_equal(zchunk_inflate(&zi, frame, n, LEN, &out, &out_len,
                                    why, sizeof(why)), 0);
    assert_memory_equal(out, in, LEN);
    zchunk_inflater_fini(&zi);
    free(frame);
    free(in);
}

static void test_inflate_refuses_bad_frames(void **state)
{
    struct zchunk_inflater zi = { 0 };
    uint8_t *in = patterned();
    size_t cap = ZSTD_compressBound(LEN);
    uint8_t *frame = malloc(cap);
    const uint8_t *out;
    size_t n, out_len;
    char why[128];

    (void)state;
    n = ZSTD_compress(frame, cap, in, LEN, 1);
    assert_int_equal(zchunk_inflate(&zi, frame, n, LEN - 1, &out, &out_len,
                                    why, sizeof(why)), -1);
    assert_string_equal(why, "zstd frame of 100000 bytes, over the "
                        "99999-byte limit");
    assert_int_equal(zchunk_inflate(&zi, frame, n / 2, LEN, &out, &out_len,
                                    why, sizeof(why)), -1);
    assert_true(strncmp(why, "zstd: ", 6) == 0);
    assert_int_equal(zchunk_inflate(&zi, in, LEN, LEN, &out, &out_len, why,
                                    sizeof(why)), -1);
    assert_string_equal(why, "not a zstd frame with its content size");
    zchunk_inflater_fini(&zi);
    free(frame);
    free(in);
}

static void test_levels_span_zstd_range(void **state)
{
    (void)state;
    assert_true(zchunk_min_level() < 0);
    assert_true(zchunk_max_level() >= 19);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_deflate_is_a_zstd_frame_of_the_input),
        cmocka_unit_test(test_incompressible_input_left_alone),
        cmocka_unit_test(test_inflate_reads_libzstd_frames),
        cmocka_unit_test(test_inflate_refuses_bad_frames),
        cmocka_unit_test(test_levels_span_zstd_range),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
