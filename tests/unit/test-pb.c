/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for the protocol buffers writer (src/convert/pb.c): varint
 * bytes from protobuf's wire format rules (7 bits a byte, low group
 * first, continuation bit), keys, int64 as ten bytes when negative,
 * fixed64 little-endian, and nested messages whose length is put in
 * front when they end, also when it takes more than one byte.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "pb.h"

/* b's bytes equal the n bytes of want. */
static void assert_bytes(const struct pb_buf *b, const uint8_t *want,
                         size_t n)
{
    assert_false(b->oom);
    assert_int_equal(b->len, n);
    assert_memory_equal(b->data, want, n);
}

static void test_pb_varint_boundaries_encode(void **state)
{
    static const struct {
        uint64_t v;
        uint8_t bytes[PB_VARINT_MAX];
        size_t n;
    } cases[] = {
        { 0, { 0x00 }, 1 },
        { 1, { 0x01 }, 1 },
        { 127, { 0x7f }, 1 },
        { 128, { 0x80, 0x01 }, 2 },
        { 300, { 0xac, 0x02 }, 2 },
        { 16383, { 0xff, 0x7f }, 2 },
        { 16384, { 0x80, 0x80, 0x01 }, 3 },
        { 0xffffffffu, { 0xff, 0xff, 0xff, 0xff, 0x0f }, 5 },
        { UINT64_MAX, { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
                        0xff, 0x01 }, 10 },
    };
    uint8_t out[PB_VARINT_MAX];
    uint64_t back;
    size_t i, n;

    (void)state;
    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        n = pb_varint_enc(out, cases[i].v);
        assert_int_equal(n, cases[i].n);
        assert_memory_equal(out, cases[i].bytes, n);
        assert_int_equal(pb_varint_dec(out, n, &back), n);
        assert_true(back == cases[i].v);
    }
}

static void test_pb_varint_cut_short_decodes_nothing(void **state)
{
    static const uint8_t cut[] = { 0x80, 0x80 };
    static const uint8_t eleven[] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
                                      0xff, 0xff, 0xff, 0xff, 0x01 };
    uint64_t v = 7;

    (void)state;
    assert_int_equal(pb_varint_dec(cut, sizeof(cut), &v), 0);
    assert_int_equal(pb_varint_dec(eleven, sizeof(eleven), &v), 0);
    assert_int_equal(v, 7);
}

static void test_pb_scalar_fields_keys_and_values(void **state)
{
    /* Field 1 varint 150: protobuf's own example, 08 96 01. */
    static const uint8_t f1[] = { 0x08, 0x96, 0x01 };
    /* Field 87 varint 1: key 87 << 3 = 696 = b8 05. */
    static const uint8_t f87[] = { 0xb8, 0x05, 0x01 };
    /* int64 -1 in field 4: ten bytes of two's complement. */
    static const uint8_t neg[] = { 0x20, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
                                   0xff, 0xff, 0xff, 0x01 };
    /* fixed64 field 47: key 47 << 3 | 1 = 377 = f9 02, then LE bytes. */
    static const uint8_t fx[] = { 0xf9, 0x02, 0x08, 0x07, 0x06, 0x05, 0x04,
                                  0x03, 0x02, 0x01 };
    /* string field 2 "testing": 12 07 74 65 73 74 69 6e 67. */
    static const uint8_t str[] = { 0x12, 0x07, 't', 'e', 's', 't', 'i', 'n',
                                   'g' };
    struct pb_buf b = { NULL, 0, 0, false };

    (void)state;
    pb_uint(&b, 1, 150);
    assert_bytes(&b, f1, sizeof(f1));
    pb_reset(&b);
    pb_uint(&b, 87, 1);
    assert_bytes(&b, f87, sizeof(f87));
    pb_reset(&b);
    pb_int(&b, 4, -1);
    assert_bytes(&b, neg, sizeof(neg));
    pb_reset(&b);
    pb_fixed64(&b, 47, 0x0102030405060708ull);
    assert_bytes(&b, fx, sizeof(fx));
    pb_reset(&b);
    pb_str(&b, 2, "testing");
    assert_bytes(&b, str, sizeof(str));
    pb_free(&b);
    assert_null(b.data);
}

static void test_pb_nested_messages_get_their_lengths(void **state)
{
    /*
     * Field 3 { field 1: 150 } inside field 60 { ... }: protobuf's
     * nested example 1a 03 08 96 01, itself inside key 60 (e2 03).
     */
    static const uint8_t want[] = { 0xe2, 0x03, 0x05, 0x1a, 0x03, 0x08, 0x96,
                                    0x01 };
    struct pb_buf b = { NULL, 0, 0, false };
    pb_mark outer, inner;

    (void)state;
    outer = pb_begin(&b, 60);
    inner = pb_begin(&b, 3);
    pb_uint(&b, 1, 150);
    pb_end(&b, inner);
    pb_end(&b, outer);
    assert_bytes(&b, want, sizeof(want));
    pb_free(&b);
}

static void test_pb_long_nested_message_moves_content(void **state)
{
    struct pb_buf b = { NULL, 0, 0, false };
    char text[200];
    uint64_t len;
    pb_mark m;
    size_t n;

    (void)state;
    memset(text, 'x', sizeof(text) - 1);
    text[sizeof(text) - 1] = '\0';
    pb_uint(&b, 8, 5);
    m = pb_begin(&b, 11);
    pb_str(&b, 23, text);           /* 2-byte key, 2-byte length, 199 */
    pb_end(&b, m);
    /* 08 05, key 5a, length 203 (cb 01), 23 << 3 | 2 = b a 01, c7 01. */
    assert_false(b.oom);
    assert_int_equal(b.len, 2 + 1 + 2 + 2 + 2 + 199);
    assert_int_equal(b.data[2], 0x5a);
    n = pb_varint_dec(b.data + 3, b.len - 3, &len);
    assert_int_equal(n, 2);
    assert_int_equal(len, 203);
    assert_int_equal(b.data[5], 0xba);
    assert_int_equal(b.data[6], 0x01);
    assert_int_equal(b.data[7], 0xc7);
    assert_int_equal(b.data[8], 0x01);
    assert_int_equal(b.data[9], 'x');
    assert_int_equal(b.data[b.len - 1], 'x');
    pb_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pb_varint_boundaries_encode),
        cmocka_unit_test(test_pb_varint_cut_short_decodes_nothing),
        cmocka_unit_test(test_pb_scalar_fields_keys_and_values),
        cmocka_unit_test(test_pb_nested_messages_get_their_lengths),
        cmocka_unit_test(test_pb_long_nested_message_moves_content),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
