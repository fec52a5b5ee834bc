/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for src/format/unpack.c against hostile input: a translation
 * id near UINT32_MAX costs one entry, not a table that large; a run past
 * the records the END chunk counts is refused, expanding or counting; a
 * tb_trans with more instructions than bytes is refused. Records and
 * packets are built by hand from docs/format.md:
 *   tb_trans  pc u64 @16, tb u32 @24, size u32 @28, n_insns u32 @32,
 *             code length @36; fixed 38, record 40 without code
 *   exec_tb   pc u64 @16, tb u32 @24; fixed 28, record 32
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "qtrace/catalog.h"
#include "packed.h"
#include "unpack.h"

static const char catalog_text[] =
    "tb_trans(uint64_t pc, uint32_t tb, uint32_t size, uint32_t n_insns, "
    "const uint8_t *code) \"x\"\n"
    "exec_tb(uint64_t pc, uint32_t tb) \"x\"\n";

static void put_le(uint8_t *p, uint64_t v, unsigned int n)
{
    unsigned int i;

    for (i = 0; i < n; i++) {
        p[i] = (uint8_t)(v >> (8 * i));
    }
}

static uint64_t get_le(const uint8_t *p, unsigned int n)
{
    uint64_t v = 0;
    unsigned int i;

    for (i = 0; i < n; i++) {
        v |= (uint64_t)p[i] << (8 * i);
    }
    return v;
}

static void tb_trans_record(uint8_t rec[40], uint64_t pc, uint32_t tb,
                            uint32_t size, uint32_t n_insns)
{
    memset(rec, 0, 40);
    put_le(rec, 1, 2);              /* id: tb_trans */
    put_le(rec + 2, 40, 2);
    put_le(rec + 16, pc, 8);
    put_le(rec + 24, tb, 4);
    put_le(rec + 28, size, 4);
    put_le(rec + 32, n_insns, 4);
}

/* LEB128 of v at p; returns the bytes written. */
static size_t put_varint(uint8_t *p, uint64_t v)
{
    size_t n = 0;

    do {
        p[n] = (uint8_t)(v & 0x7f) | (v > 0x7f ? 0x80 : 0);
        v >>= 7;
        n++;
    } while (v);
    return n;
}

struct fixture {
    struct qtrace_catalog cat;
    struct budget budget;
    struct unpacker u;
    char why[160];
};

static int setup(void **state)
{
    static struct fixture f;
    struct qtrace_err err;

    memset(&f, 0, sizeof(f));
    f.budget.limit = 1u << 20;
    assert_int_equal(qtrace_catalog_parse(&f.cat, catalog_text, &err), 0);
    assert_int_equal(unpack_init(&f.u, &f.cat, &f.budget), 0);
    *state = &f;
    return 0;
}

static int teardown(void **state)
{
    struct fixture *f = *state;

    unpack_fini(&f->u);
    qtrace_catalog_fini(&f->cat);
    return 0;
}

static void test_unpack_far_tb_id_costs_one_entry(void **state)
{
    struct fixture *f = *state;
    const uint32_t tb = 0xfffffff0u;
    uint8_t rec[40], pk[16];
    struct unpack_cursor uc = { .pos = pk, .base = pk };
    size_t n = 0;

    tb_trans_record(rec, 0x400000, tb, 4, 1);
    assert_int_equal(unpack_note_tb(&f->u, rec, f->why, sizeof(f->why)), 0);
    assert_int_equal(unpack_begin(&f->u, 0xfffffffeu, QTRACE_CHUNK_PACKED, f->why,
                                  sizeof(f->why)), 0);
    /* A block packet, no run: the id minus 0, zigzag (doubled). */
    pk[n++] = 0x00;
    n += put_varint(pk + n, 2ull * tb);
    uc.end = pk + n;
    assert_int_equal(unpack_next(&f->u, &uc), 1);
    assert_int_equal(get_le(uc.rec, 2), 2);
    assert_int_equal(get_le(uc.rec + 16, 8), 0x400000);
    assert_int_equal(get_le(uc.rec + 24, 4), tb);
    /* The stream's predictor (64 KiB) and small maps: far below 1 MiB. */
    assert_true(f->budget.used < 100u << 10);
}

static void test_unpack_run_past_end_records_refused(void **state)
{
    struct fixture *f = *state;
    uint8_t rec[40], pk[16];
    struct unpack_cursor uc = { .pos = pk, .base = pk };
    size_t n = 0;

    tb_trans_record(rec, 0x400000, 1, 4, 1);
    assert_int_equal(unpack_note_tb(&f->u, rec, f->why, sizeof(f->why)), 0);
    unpack_set_bounds(&f->u, 10, UINT64_MAX);
    assert_int_equal(unpack_begin(&f->u, 1, QTRACE_CHUNK_PACKED, f->why, sizeof(f->why)), 0);
    pk[n++] = 0x00;                 /* block 1 */
    n += put_varint(pk + n, 2);
    pk[n++] = 0x81;                 /* then a run of 2^32 - 1 */
    n += put_varint(pk + n, UINT32_MAX);
    uc.end = pk + n;
    assert_int_equal(unpack_next(&f->u, &uc), 1);
    assert_int_equal(unpack_next(&f->u, &uc), -1);
    assert_string_equal(uc.why, "with this packet the trace holds "
                        "4294967296 records or more, over the records=10 of "
                        "the END chunk");
}

static void test_unpack_count_past_end_records_refused(void **state)
{
    struct fixture *f = *state;
    uint64_t counts[QTRACE_MAX_EVENTS] = { 0 }, total = 0;
    uint8_t pk[16];
    struct unpack_cursor uc = { .pos = pk, .base = pk };
    size_t n = 0;

    unpack_set_bounds(&f->u, 10, UINT64_MAX);
    pk[n++] = 0x81;
    n += put_varint(pk + n, 11);
    uc.end = pk + n;
    assert_int_equal(unpack_count(&f->u, &uc, counts, &total), -1);
    assert_non_null(strstr(uc.why, "over the records=10 of the END chunk"));
    /* Rewinding restores the bound: 10 blocks then pass. */
    unpack_reset(&f->u);
    n = 1 + put_varint(pk + 1, 10);
    uc.pos = pk;
    uc.end = pk + n;
    assert_int_equal(unpack_count(&f->u, &uc, counts, &total), 0);
    assert_int_equal(total, 10);
}

/* END's translations= bounds tb_trans ids: the last one passes. */
static void test_unpack_tb_over_translations_refused(void **state)
{
    struct fixture *f = *state;
    uint8_t rec[40];

    unpack_set_bounds(&f->u, UINT64_MAX, 5);
    tb_trans_record(rec, 0x400000, 5, 4, 1);
    assert_int_equal(unpack_note_tb(&f->u, rec, f->why, sizeof(f->why)), 0);
    tb_trans_record(rec, 0x400000, 6, 4, 1);
    assert_int_equal(unpack_note_tb(&f->u, rec, f->why, sizeof(f->why)), -1);
    assert_string_equal(f->why, "tb_trans of block 6, over the "
                        "translations=5 of the END chunk");
}

static void test_unpack_more_insns_than_bytes_refused(void **state)
{
    struct fixture *f = *state;
    uint8_t rec[40];

    tb_trans_record(rec, 0x400000, 3, 4, 5);
    assert_int_equal(unpack_note_tb(&f->u, rec, f->why, sizeof(f->why)), -1);
    assert_string_equal(f->why, "tb_trans of block 3 has 5 instructions in "
                        "4 bytes");
    tb_trans_record(rec, 0x400000, 3, 4, 4);
    assert_int_equal(unpack_note_tb(&f->u, rec, f->why, sizeof(f->why)), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_unpack_far_tb_id_costs_one_entry,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_unpack_run_past_end_records_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_unpack_count_past_end_records_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_unpack_tb_over_translations_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_unpack_more_insns_than_bytes_refused, setup, teardown),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
