/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests of the packed encoding end to end: what a vCPU stages
 * (src/plugin/pack.h), the writer thread's transcoding (src/plugin/pack.c)
 * and the reader's expansion (src/format/unpack.c) give back exactly the
 * function records that went in, with extreme values and after a dropped
 * chunk restarts the stream, in the long staged form and in the call
 * tracker's short one; a cut packet is an error, never a record.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "qtrace-events.h"
#include "qtrace/catalog.h"
#include "qtrace/err.h"
#include "pack.h"
#include "project-catalog.h"
#include "tbtab.h"
#include "unpack.h"

#define STAGE_BYTES (64u << 10)
/*
 * The stream of the test running: each test stages a new stream, as each
 * vCPU start does, so that the writer's per-stream state starts afresh.
 */
static uint32_t test_stream = 7u;

/* Every test fits in one chunk: a full chunk is a test failure. */
void *vbuf_reserve_slow(struct vbuf *vb, uint32_t size)
{
    (void)vb;
    (void)size;
    fail_msg("staged chunk full");
    return NULL;
}

struct func {
    bool exit;
    uint8_t kind;
    uint64_t time, pc, other;
    uint32_t depth;
};

/* Ordinary calls, then the deltas that need every varint byte. */
static const struct func funcs[] = {
    { false, 0, 100, 0x401000, 0x400500, 1 },
    { false, 1, 120, 0x402000, 0x401010, 2 },
    { true, 2, 121, 0x402000, 0x401015, 2 },
    { true, 0, 121, 0x401000, 0x400505, 1 },
    { false, 2, UINT64_MAX, UINT64_MAX, 0, UINT32_MAX },
    { true, 3, 0, 0, UINT64_MAX, 0 },
    { true, 1, 1ull << 63, 0x8000000000000000ull, 1, 0x80000000u },
};
#define N_FUNCS (sizeof(funcs) / sizeof(funcs[0]))

struct stage {
    struct chunk *chunk;
    struct vbuf vb;
    struct pack_state ps;
};

static void stage_init(struct stage *st)
{
    st->chunk = calloc(1, sizeof(*st->chunk) + STAGE_BYTES);
    assert_non_null(st->chunk);
    st->chunk->cap = STAGE_BYTES;
    memset(&st->vb, 0, sizeof(st->vb));
    st->vb.chunk = st->chunk;
    st->vb.pos = st->chunk->data;
    st->vb.end = st->chunk->data + STAGE_BYTES;
    st->vb.pack = &st->ps;
    pack_reset(&st->ps);
    test_stream++;
}

static void stage_funcs(struct stage *st)
{
    size_t i;

    for (i = 0; i < N_FUNCS; i++) {
        const struct func *f = &funcs[i];

        pack_func(&st->vb, f->exit, f->kind, f->time, f->pc,
                  f->other, f->depth);
    }
}

/* What the plugin does when lossy=on drops the vCPU's chunk. */
static void stage_drop(struct stage *st, uint64_t time)
{
    struct qtrace_ev_lost *r;

    pack_reset(&st->ps);
    r = vbuf_record(&st->vb, sizeof(*r));
    memset(r, 0, sizeof(*r));
    r->hdr.id = QTRACE_EV_LOST;
    r->hdr.size = sizeof(*r);
    r->hdr.time = time;
    r->records = 3;
}

/* The packed chunk of what was staged (valid until the next call). */
static const struct chunk *stage_pack(struct stage *st)
{
    const struct chunk *out;
    char why[128] = "";

    st->chunk->len = (uint32_t)(st->vb.pos - st->chunk->data);
    st->chunk->flags = CHUNK_STAGED;
    st->chunk->vcpu = 0;
    st->chunk->stream = test_stream;
    out = pack_transcode(st->chunk, why, sizeof(why));
    if (!out) {
        fail_msg("pack_transcode: %s", why);
    }
    assert_int_equal(out->n_records,
                     pack_staged_records(st->chunk->data, st->chunk->len));
    return out;
}

static void check_func(const uint8_t *rec, const struct func *f)
{
    struct qtrace_ev_func_entry r;

    memcpy(&r, rec, sizeof(r));
    assert_int_equal(r.hdr.id, f->exit ? QTRACE_EV_FUNC_EXIT :
                     QTRACE_EV_FUNC_ENTRY);
    assert_int_equal(r.hdr.size, sizeof(r));
    assert_int_equal(r.hdr.time, f->time);
    assert_int_equal(r.pc, f->pc);
    assert_int_equal(r.from, f->other);
    assert_int_equal(r.depth, f->depth);
    assert_int_equal(r.kind, f->kind);
}

/* Expand c and check it holds funcs, then a lost record and funcs again. */
static void expect_funcs_drop_funcs(const struct chunk *c)
{
    struct unpacker u;
    struct unpack_cursor uc = { .pos = c->data, .end = c->data + c->len,
                                .base = c->data };
    size_t i, n_funcs = 0, n_lost = 0;
    int ret;

    assert_int_equal(unpack_init(&u, project_catalog(), NULL), 0);
    assert_int_equal(unpack_begin(&u, test_stream, QTRACE_CHUNK_PACKED,
                                  uc.why, sizeof(uc.why)), 0);
    while ((ret = unpack_next(&u, &uc)) > 0) {
        if (ret == 2) {
            assert_int_equal(n_funcs, N_FUNCS);
            assert_int_equal(((const struct qtrace_rec *)uc.rec)->id,
                             QTRACE_EV_LOST);
            uc.pos = uc.rec + ((const struct qtrace_rec *)uc.rec)->size;
            n_lost++;
            continue;
        }
        i = n_funcs++ % N_FUNCS;
        check_func(uc.rec, &funcs[i]);
    }
    if (ret < 0) {
        fail_msg("unpack_next: %s", uc.why);
    }
    assert_int_equal(n_funcs, 2 * N_FUNCS);
    assert_int_equal(n_lost, 1);
    unpack_fini(&u);
}

static void test_func_round_trip(void **state)
{
    struct stage st;

    (void)state;
    stage_init(&st);
    stage_funcs(&st);
    stage_drop(&st, 5000);
    stage_funcs(&st);
    expect_funcs_drop_funcs(stage_pack(&st));
    free(st.chunk);
}

/* A function packet costs bytes by its deltas, not by its values. */
static void test_func_small(void **state)
{
    struct stage st;
    const struct chunk *c;

    (void)state;
    stage_init(&st);
    pack_func(&st.vb, false, 0, 1000, 0x7f0000401000ull,
              0x7f0000400500ull, 10);
    pack_func(&st.vb, true, 0, 1010, 0x7f0000401000ull,
              0x7f0000400505ull, 10);
    c = stage_pack(&st);
    /*
     * The first counts from zero: tag, time 2 bytes, pc and from 7 each
     * (47-bit values, zigzag), depth 1. The second is the tag and four
     * one-byte deltas.
     */
    assert_int_equal(c->len, 18 + 5);
    assert_int_equal(c->data[0], PK_FUNC_ENTRY);
    assert_int_equal(c->data[18], PK_FUNC_EXIT);
    free(st.chunk);
}

static void test_func_count(void **state)
{
    struct stage st;
    const struct chunk *c;
    struct unpacker u;
    struct unpack_cursor uc;
    uint64_t counts[QTRACE_EV__COUNT] = { 0 }, n = 0;

    (void)state;
    stage_init(&st);
    stage_funcs(&st);
    c = stage_pack(&st);
    assert_int_equal(unpack_init(&u, project_catalog(), NULL), 0);
    uc = (struct unpack_cursor){ .pos = c->data, .end = c->data + c->len,
                                 .base = c->data };
    assert_int_equal(unpack_count(&u, &uc, counts, &n), 0);
    assert_int_equal(counts[QTRACE_EV_FUNC_ENTRY], 3);
    assert_int_equal(counts[QTRACE_EV_FUNC_EXIT], N_FUNCS - 3);
    assert_int_equal(n, N_FUNCS);
    unpack_fini(&u);
    free(st.chunk);
}

/*
 * The longest function packet (every delta as far from zero as it can
 * be) is PACKED_FUNC_MAX bytes, and every cut of it fails; none yields a
 * record.
 */
static void test_func_cut(void **state)
{
    struct stage st;
    const struct chunk *c;
    struct unpacker u;
    uint32_t len;

    (void)state;
    stage_init(&st);
    pack_func(&st.vb, true, 3, INT64_MAX, INT64_MAX, INT64_MAX,
              INT32_MAX);
    c = stage_pack(&st);
    assert_int_equal(c->len, PACKED_FUNC_MAX);
    for (len = 1; len < c->len; len++) {
        struct unpack_cursor uc = { .pos = c->data, .end = c->data + len,
                                    .base = c->data };
        uint64_t counts[QTRACE_EV__COUNT] = { 0 }, n = 0;

        assert_int_equal(unpack_init(&u, project_catalog(), NULL), 0);
        assert_int_equal(unpack_begin(&u, test_stream, QTRACE_CHUNK_PACKED,
                                      uc.why, sizeof(uc.why)), 0);
        assert_int_equal(unpack_next(&u, &uc), -1);
        assert_non_null(strstr(uc.why, "cut"));
        uc.pos = c->data;
        assert_int_equal(unpack_count(&u, &uc, counts, &n), -1);
        unpack_fini(&u);
    }
    free(st.chunk);
}

/* A trace whose catalog lacks the event cannot hold its packets. */
static void test_func_unknown_event(void **state)
{
    static const char text[] =
        "lost(uint64_t records, uint32_t block_insns) \"r %\" PRIu64\n";
    struct qtrace_catalog cat;
    struct qtrace_err err;
    struct stage st;
    const struct chunk *c;
    struct unpacker u;
    struct unpack_cursor uc;

    (void)state;
    assert_int_equal(qtrace_catalog_parse(&cat, text, &err), 0);
    stage_init(&st);
    pack_func(&st.vb, false, 0, 1, 2, 3, 4);
    c = stage_pack(&st);
    uc = (struct unpack_cursor){ .pos = c->data, .end = c->data + c->len,
                                 .base = c->data };
    assert_int_equal(unpack_init(&u, &cat, NULL), 0);
    assert_int_equal(unpack_begin(&u, test_stream, QTRACE_CHUNK_PACKED,
                                  uc.why, sizeof(uc.why)), 0);
    assert_int_equal(unpack_next(&u, &uc), -1);
    assert_non_null(strstr(uc.why, "func_entry"));
    unpack_fini(&u);
    qtrace_catalog_fini(&cat);
    free(st.chunk);
}

/* A translated block, as the plugin's table hands them out. */
static const struct tb_info *new_block(uint64_t pc, uint32_t size,
                                       uint16_t branch_size)
{
    struct tb_info *tb = tbtab_new(1);

    assert_non_null(tb);
    tb->pc = pc;
    tb->size = size;
    tb->branch_size = branch_size;
    return tb;
}

/* Expand c and check it holds the n function records of want. */
static void expect_funcs(const struct chunk *c, const struct func *want,
                         size_t n)
{
    struct unpacker u;
    struct unpack_cursor uc = { .pos = c->data, .end = c->data + c->len,
                                .base = c->data };
    size_t i = 0;
    int ret;

    assert_int_equal(unpack_init(&u, project_catalog(), NULL), 0);
    assert_int_equal(unpack_begin(&u, test_stream, QTRACE_CHUNK_PACKED,
                                  uc.why, sizeof(uc.why)), 0);
    while ((ret = unpack_next(&u, &uc)) > 0) {
        assert_true(i < n);
        check_func(uc.rec, &want[i++]);
    }
    if (ret < 0) {
        fail_msg("unpack_next: %s", uc.why);
    }
    assert_int_equal(i, n);
    unpack_fini(&u);
}

/*
 * The short form: the writer finds the addresses in the blocks the ids
 * name and the time from the chunk's t0, on either side of it, and the
 * long form in between counts from the same packets.
 */
static void test_qfunc_round_trip(void **state)
{
    const struct tb_info *callee = new_block(0x401000, 12, 0);
    const struct tb_info *caller = new_block(0x400500, 10, 5);
    const struct tb_info *site = new_block(0x40050a, 4, 0);
    const struct func want[] = {
        { false, 0, 1000005, 0x401000, 0x400505, 1 },
        { false, 1, 1000009, 0x402000, 0x401010, 2 },
        { true, 0, 999997, 0x401000, 0x40050a, 1 },
        { true, 0, 1000000ull + INT32_MAX, 0x7fffffff0000ull, 0x40050a,
          STAGED_QFUNC_DEPTH },
        { false, 0, 1000000 - (1ull << 31), 0x401000, 0x400505, 0 },
    };
    struct stage st;
    uint8_t *p;

    (void)state;
    stage_init(&st);
    st.chunk->t0 = 1000000;
    p = vbuf_reserve(&st.vb, STAGED_QENTRY_BYTES);
    pack_qentry_at(p, 5, 1, callee->id, caller->id);
    pack_func(&st.vb, false, 1, 1000009, 0x402000, 0x401010, 2);
    p = vbuf_reserve(&st.vb, STAGED_QEXIT_BYTES);
    pack_qexit_at(p, -3, 1, 0x401000, site->id);
    p = vbuf_reserve(&st.vb, STAGED_QEXIT_BYTES);
    pack_qexit_at(p, INT32_MAX, STAGED_QFUNC_DEPTH, 0x7fffffff0000ull,
                  site->id);
    p = vbuf_reserve(&st.vb, STAGED_QENTRY_BYTES);
    pack_qentry_at(p, INT32_MIN, 0, callee->id, caller->id);
    expect_funcs(stage_pack(&st), want, sizeof(want) / sizeof(want[0]));
    free(st.chunk);
}

/* The chunk's bytes staged so far, transcoded: NULL, why set, if bad. */
static const struct chunk *try_pack(struct stage *st, uint32_t len,
                                    char *why, size_t why_len)
{
    st->chunk->len = len;
    st->chunk->flags = CHUNK_STAGED;
    st->chunk->stream = test_stream;
    return pack_transcode(st->chunk, why, why_len);
}

/* A short event cut short, or naming no block, is an error. */
static void test_qfunc_bad(void **state)
{
    const struct tb_info *callee = new_block(0x401000, 12, 0);
    struct stage st;
    char why[128];
    uint32_t len;
    uint8_t *p;

    (void)state;
    stage_init(&st);
    p = vbuf_reserve(&st.vb, STAGED_QEXIT_BYTES);
    pack_qexit_at(p, 0, 1, 0x401000, callee->id);
    for (len = STAGED_WORD; len < STAGED_QEXIT_BYTES; len += STAGED_WORD) {
        why[0] = 0;
        assert_null(try_pack(&st, len, why, sizeof(why)));
        assert_non_null(strstr(why, "bad staged"));
    }
    assert_non_null(try_pack(&st, STAGED_QEXIT_BYTES, why, sizeof(why)));
    free(st.chunk);

    stage_init(&st);
    p = vbuf_reserve(&st.vb, STAGED_QENTRY_BYTES);
    pack_qentry_at(p, 0, 1, callee->id, tbtab_max_id() + 1);
    why[0] = 0;
    assert_null(try_pack(&st, STAGED_QENTRY_BYTES, why, sizeof(why)));
    assert_non_null(strstr(why, "bad staged function event at byte 0"));
    free(st.chunk);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_func_round_trip),
        cmocka_unit_test(test_func_small),
        cmocka_unit_test(test_func_count),
        cmocka_unit_test(test_func_cut),
        cmocka_unit_test(test_func_unknown_event),
        cmocka_unit_test(test_qfunc_round_trip),
        cmocka_unit_test(test_qfunc_bad),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
