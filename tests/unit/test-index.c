/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for src/format/index.c: an INDEX payload decodes to the
 * entries encoded, its footer names the chunk's offset, a malformed one
 * is refused; the payload scan finds the events of raw records and of
 * every packet kind, and says when a payload is cut.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "index.h"
#include "le.h"
#include "packed.h"

static const struct index_ids ids = {
    .exec_tb = 5, .mem_access = 9, .func_entry = 70, .func_exit = 71,
};

static void test_index_encode_decode_round_trip(void **state)
{
    struct index ix = { 0 }, back = { 0 };
    struct index_entry e = { .off = 0x100, .seq = 1, .vcpu = 0,
                             .stream = 1, .insns = 12345 };
    uint8_t *p;
    size_t len;

    (void)state;
    index_mask_set(e.mask, 5);
    index_mask_set(e.mask, 130);
    assert_int_equal(index_add(&ix, &e), 0);
    e.off = 0x9000;
    e.seq = 7;
    e.vcpu = 0xffffffffu;
    e.insns = 0;
    memset(e.mask, 0, sizeof(e.mask));
    index_mask_set(e.mask, 3);
    assert_int_equal(index_add(&ix, &e), 0);

    p = index_encode(&ix, 0x12345, &len);
    assert_non_null(p);
    /* Three words reach bit 130; the footer ends the payload. */
    assert_int_equal(load16(p + 8), 3);
    assert_int_equal(len, 16 + 2 * (32 + 24) + 16);
    assert_int_equal(load64(p + len - 16), 0x12345);
    assert_memory_equal(p + len - 8, INDEX_TAG, 8);

    assert_int_equal(index_decode(&back, p, len), 0);
    assert_int_equal(back.n, 2);
    assert_int_equal(back.e[0].insns, 12345);
    assert_true(index_mask_has(back.e[0].mask, 130));
    assert_false(index_mask_has(back.e[0].mask, 3));
    assert_int_equal(back.e[1].vcpu, 0xffffffffu);
    assert_int_equal(back.e[1].seq, 7);
    assert_true(index_mask_has(back.e[1].mask, 3));
    free(p);
    index_fini(&ix);
    index_fini(&back);
}

static void test_index_decode_refuses_short_entries(void **state)
{
    struct index ix = { 0 };
    uint8_t p[16 + 40 + 16] = { 0 };

    (void)state;
    store32(p, 8);          /* entry_size below its fixed fields */
    store32(p + 4, 1);
    store16(p + 8, 1);
    assert_int_equal(index_decode(&ix, p, sizeof(p)), -EBADMSG);
    store32(p, 40);
    store32(p + 4, 2);      /* two entries in the room of one */
    assert_int_equal(index_decode(&ix, p, sizeof(p)), -EBADMSG);
    index_fini(&ix);
}

/* A record of event id and size bytes at p. */
static void put_record(uint8_t *p, uint16_t id, uint16_t size)
{
    memset(p, 0, size);
    store16(p, id);
    store16(p + 2, size);
}

static void test_index_scan_raw_records(void **state)
{
    uint64_t mask[INDEX_WORDS] = { 0 };
    uint8_t p[48];

    (void)state;
    put_record(p, 2, 16);
    put_record(p + 16, 800, 32);
    assert_int_equal(index_scan_payload(p, sizeof(p), false, &ids, mask), 0);
    assert_true(index_mask_has(mask, 2));
    assert_true(index_mask_has(mask, 800));
    assert_false(index_mask_has(mask, 5));
    /* A size past the end: malformed. */
    store16(p + 18, 40);
    assert_int_equal(index_scan_payload(p, sizeof(p), false, &ids, mask),
                     -1);
}

static void test_index_scan_every_packet_kind(void **state)
{
    uint64_t mask[INDEX_WORDS] = { 0 };
    uint8_t p[64] = { 0 }, *q = p;

    (void)state;
    *q++ = 3;                   /* block: run 3, delta */
    q = packed_put_varint(q, 2);
    *q++ = PK_MEM_FULL;         /* idx, pc offset, info, vaddr, paddr */
    q = packed_put_varint(q, 1);
    q = packed_put_varint(q, 4);
    *q++ = PACKED_MEM_HAS_PADDR;
    q = packed_put_varint(q, 300);
    q = packed_put_varint(q, 0);
    *q++ = PK_FUNC_EXIT + 1;    /* four deltas */
    q = packed_put_varint(q, 1);
    q = packed_put_varint(q, 2);
    q = packed_put_varint(q, 3);
    q = packed_put_varint(q, 4);
    *q++ = PK_RECORD;           /* padding to 8, then a record */
    q = p + ((size_t)(q - p) + 7) / 8 * 8;
    put_record(q, 11, 16);
    q += 16;
    assert_int_equal(index_scan_payload(p, (size_t)(q - p), true, &ids,
                                        mask), 0);
    assert_true(index_mask_has(mask, ids.exec_tb));
    assert_true(index_mask_has(mask, ids.mem_access));
    assert_true(index_mask_has(mask, ids.func_exit));
    assert_false(index_mask_has(mask, ids.func_entry));
    assert_true(index_mask_has(mask, 11));
    /* Cut inside the memory packet. */
    assert_int_equal(index_scan_payload(p, 6, true, &ids, mask), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_index_encode_decode_round_trip),
        cmocka_unit_test(test_index_decode_refuses_short_entries),
        cmocka_unit_test(test_index_scan_raw_records),
        cmocka_unit_test(test_index_scan_every_packet_kind),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
