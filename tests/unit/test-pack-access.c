/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests of predicted accesses end to end (docs/format.md,
 * "Predicted accesses"): blocks and accesses staged as a vCPU stages them
 * (src/plugin/pack.h), packed by the writer thread's transcoding
 * (src/plugin/pack.c) and expanded by the reader (src/format/unpack.c)
 * give back exactly what went in: strided loops, wandering addresses, a
 * block whose accesses change in number or instruction, accesses split
 * by a record or by a chunk's end, a restart in the middle of a block,
 * physical addresses through the translation cache of system mode. A
 * strided loop costs no byte per iteration; a cut chunk never yields a
 * wrong record, and a record keeps its place among the accesses.
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
#include "access-pred.h"
#include "pack.h"
#include "project-catalog.h"
#include "tbtab.h"
#include "unpack.h"

#define STAGE_BYTES (1u << 20)
#define MAX_EVENTS 200000u

void *vbuf_reserve_slow(struct vbuf *vb, uint32_t size)
{
    (void)vb;
    (void)size;
    fail_msg("staged chunk full");
    return NULL;
}

/* What went in, in order: a block (mem false) or an access. */
struct event {
    bool mem;
    const struct tb_info *tb;       /* the block (of the access) */
    uint32_t idx;                   /* access: instruction index */
    uint8_t info;
    uint64_t vaddr;
    uint64_t paddr;                 /* system mode (phys_test) */
    uint64_t time;                  /* block: its start; access: insn */
};

/* The stream is system mode's: QTRACE_CHUNK_PHYS, physical addresses. */
static bool phys_test;

/*
 * The streams' predictor flag: QTRACE_CHUNK_ACCESS_REL, as the plugin
 * writes, or none, as traces written before it; each test's state says
 * (use_mode).
 */
static uint16_t rel_flag = QTRACE_CHUNK_ACCESS_REL;
static bool stride_only = true;

static void use_mode(void **state)
{
    rel_flag = *state ? 0 : QTRACE_CHUNK_ACCESS_REL;
}

static struct event events[MAX_EVENTS];
static size_t n_events;

/* Where each record staged among them lies: the events before it. */
static size_t rec_at[MAX_EVENTS];
static size_t n_recs;
static uint32_t test_stream = 100u;

struct stage {
    struct chunk *chunk;
    struct vbuf vb;
    struct pack_state ps;
    uint64_t icount;                /* the stream's instructions */
    uint64_t block_time;
    bool any_access;                /* since the start or last restart */
    bool chunk_access;              /* the chunk staged needs the flag */
};

static void stage_init(struct stage *st)
{
    if (!st->chunk) {
        st->chunk = calloc(1, sizeof(*st->chunk) + STAGE_BYTES);
        assert_non_null(st->chunk);
        st->chunk->cap = STAGE_BYTES;
    }
    memset(&st->vb, 0, sizeof(st->vb));
    st->vb.chunk = st->chunk;
    st->vb.pos = st->chunk->data;
    st->vb.end = st->chunk->data + STAGE_BYTES;
    st->vb.pack = &st->ps;
    pack_reset(&st->ps);
}

/* A block of n instructions at pc, 4 bytes each. */
static struct tb_info *new_block(uint64_t pc, uint32_t n)
{
    struct tb_info *tb = tbtab_new(n);
    uint32_t i;

    assert_non_null(tb);
    tb->pc = pc;
    tb->n_insns = n;
    tb->size = 4 * n;
    for (i = 0; i < n; i++) {
        tb->insns[i].pc = pc + 4 * i;
        tb->insns[i].idx = (uint16_t)i;
        tb->insns[i].tb = tb;
        tb->insns[i].size = 4;
        tb->insns[i].staged_head = staged_mem_head(i, 4 * i);
    }
    return tb;
}

static void stage_block(struct stage *st, const struct tb_info *tb)
{
    assert_true(pack_block(&st->vb, tb->id));
    assert_true(n_events < MAX_EVENTS);
    events[n_events++] = (struct event){ .tb = tb, .time = st->icount };
    st->block_time = st->icount;
    st->icount += tb->n_insns;
}

/*
 * As mem.c stages it: in system mode its translation if the cache lacks
 * it, then the instruction's head, the info, the address; in user mode
 * 8 bytes where the address fits, else the same.
 */
static void stage_access_at(struct stage *st, const struct tb_info *tb,
                            uint32_t idx, uint8_t info, uint64_t vaddr,
                            uint64_t paddr)
{
    uint64_t head = tb->insns[idx].staged_head | info;
    uint8_t *p;

    if (phys_test) {
        assert_true(pack_xlate(&st->ps, &st->vb, vaddr, paddr - vaddr));
    }
    p = vbuf_reserve(&st->vb, STAGED_MEM_BYTES);
    if (!phys_test && vaddr >> STAGED_SMEM_VADDR_BITS == 0) {
        uint64_t w = staged_smem(staged_smem_word0(staged_smem_head(idx),
                                                   info), vaddr);

        memcpy(p, &w, 8);
        st->vb.pos = p + STAGED_SMEM_BYTES;
    } else {
        memcpy(p, &head, 8);
        memcpy(p + 8, &vaddr, 8);
    }
    st->any_access = st->chunk_access = true;
    assert_true(n_events < MAX_EVENTS);
    events[n_events++] = (struct event){ .mem = true, .tb = tb,
                                         .idx = idx, .info = info,
                                         .vaddr = vaddr, .paddr = paddr,
                                         .time = st->block_time + idx };
}

static void stage_access(struct stage *st, const struct tb_info *tb,
                         uint32_t idx, uint8_t info, uint64_t vaddr)
{
    stage_access_at(st, tb, idx, info, vaddr, 0);
}

/* A record in the middle (a system call's): it is no access. */
static void stage_record(struct stage *st)
{
    struct qtrace_ev_vcpu_init *r = vbuf_record(&st->vb, sizeof(*r));

    memset(r, 0, sizeof(*r));
    r->hdr.id = QTRACE_EV_VCPU_INIT;
    r->hdr.size = sizeof(*r);
    r->hdr.time = st->icount;
    rec_at[n_recs++] = n_events;
}

/* What a lossy drop writes: the lost record; the block goes on. */
static void stage_restart(struct stage *st, const struct tb_info *tb)
{
    struct qtrace_ev_lost *r = vbuf_record(&st->vb, sizeof(*r));

    memset(r, 0, sizeof(*r));
    r->hdr.id = QTRACE_EV_LOST;
    r->hdr.size = sizeof(*r);
    r->hdr.time = st->block_time;
    r->block_insns = (uint32_t)(st->icount - st->block_time);
    /* The vCPU resets its packing state (and its translation cache). */
    pack_reset(&st->ps);
    pack_context(&st->vb, tb->id);
    st->any_access = false;
}

/* Pack what was staged since the last call (a chunk of the stream). */
static struct chunk *stage_pack(struct stage *st)
{
    const struct chunk *out;
    struct chunk *copy;
    char why[128] = "";

    st->chunk->len = (uint32_t)(st->vb.pos - st->chunk->data);
    st->chunk->flags = CHUNK_STAGED | QTRACE_CHUNK_ACCESSES | rel_flag |
                       (phys_test ? QTRACE_CHUNK_PHYS : 0);
    st->chunk->vcpu = 0;
    st->chunk->stream = test_stream;
    out = pack_transcode(st->chunk, why, sizeof(why));
    if (!out) {
        fail_msg("pack_transcode: %s", why);
    }
    /* Until the stream's first access, chunks read as plain ones. */
    assert_int_equal(out->flags, QTRACE_CHUNK_PACKED |
                     (st->chunk_access ? QTRACE_CHUNK_ACCESSES | rel_flag |
                      (phys_test ? QTRACE_CHUNK_PHYS : 0) : 0));
    st->chunk_access = st->any_access;
    copy = malloc(sizeof(*out) + out->len);
    assert_non_null(copy);
    memcpy(copy, out, sizeof(*out) + out->len);
    st->vb.pos = st->chunk->data;
    return copy;
}

/* The reader learns every block translated so far. */
static void note_blocks(struct unpacker *u)
{
    uint32_t id;

    for (id = 1; id <= tbtab_max_id(); id++) {
        const struct tb_info *tb = tbtab_get(id);
        struct qtrace_ev_tb_trans r;
        char why[128];

        memset(&r, 0, sizeof(r));
        r.hdr.id = QTRACE_EV_TB_TRANS;
        r.pc = tb->pc;
        r.tb = id;
        r.size = tb->size;
        r.n_insns = tb->n_insns;
        assert_int_equal(unpack_note_tb(u, (const uint8_t *)&r, why,
                                        sizeof(why)), 0);
    }
}

/* The next expected event that is a block or an access. */
static const struct event *expected(size_t *at)
{
    assert_true(*at < n_events);
    return &events[(*at)++];
}

static void check_block(const uint8_t *rec, const struct event *e)
{
    struct qtrace_ev_exec_tb r;

    memcpy(&r, rec, sizeof(r));
    assert_int_equal(r.hdr.id, QTRACE_EV_EXEC_TB);
    assert_int_equal(r.hdr.time, e->time);
    assert_int_equal(r.pc, e->tb->pc);
    assert_int_equal(r.tb, e->tb->id);
}

static void check_record(const uint8_t *rec, const struct event *e)
{
    struct qtrace_ev_mem_access r;

    if (!e->mem) {
        check_block(rec, e);
        return;
    }
    memcpy(&r, rec, sizeof(r));
    assert_int_equal(r.hdr.id, QTRACE_EV_MEM_ACCESS);
    assert_int_equal(r.hdr.time, e->time);
    assert_int_equal(r.pc, e->tb->insns[e->idx].pc);
    assert_int_equal(r.vaddr, e->vaddr);
    assert_int_equal(r.size, packed_mem_size(e->info));
    assert_int_equal(r.flags, packed_mem_flags(e->info) |
                     (phys_test ? QTRACE_MEM_HAS_PADDR : 0));
    assert_int_equal(r.paddr, phys_test ? e->paddr : 0);
}

/*
 * Expand the chunks in order and check every block and access against
 * what was staged, and that each record staged among them comes where
 * it was staged; other records carried as they are are skipped. Returns
 * the records the unpacker made.
 */
static size_t expect_events(struct chunk **chunks, size_t n_chunks)
{
    struct unpacker u;
    size_t at = 0, made = 0, recs = 0, i;

    assert_int_equal(unpack_init(&u, project_catalog(), NULL), 0);
    note_blocks(&u);
    for (i = 0; i < n_chunks; i++) {
        const struct chunk *c = chunks[i];
        struct unpack_cursor uc = { .pos = c->data, .end = c->data + c->len,
                                    .base = c->data };
        int ret;

        assert_int_equal(unpack_begin(&u, test_stream, c->flags, uc.why,
                                      sizeof(uc.why)), 0);
        while ((ret = unpack_next(&u, &uc)) > 0) {
            const struct qtrace_rec *r = (const void *)uc.rec;

            if (ret == 2) {
                /* A record staged among them: its place among events. */
                if (r->id == QTRACE_EV_VCPU_INIT) {
                    assert_true(recs < n_recs);
                    assert_int_equal(at, rec_at[recs]);
                    recs++;
                }
                uc.pos = uc.rec + r->size;
                continue;
            }
            check_record(uc.rec, expected(&at));
            made++;
        }
        if (ret < 0) {
            fail_msg("unpack_next: %s", uc.why);
        }
    }
    assert_int_equal(at, n_events);
    assert_int_equal(recs, n_recs);
    unpack_fini(&u);
    return made;
}

/*
 * Count the chunks' blocks and accesses as qtrace info does: packets
 * counted, not expanded, up to the stream's first access, then records
 * expanded. Returns the count.
 */
static uint64_t count_events(struct chunk **chunks, size_t n_chunks)
{
    static uint64_t counts[QTRACE_MAX_EVENTS];
    struct unpacker u;
    uint64_t n = 0;
    size_t i;

    memset(counts, 0, sizeof(counts));
    assert_int_equal(unpack_init(&u, project_catalog(), NULL), 0);
    note_blocks(&u);
    for (i = 0; i < n_chunks; i++) {
        const struct chunk *c = chunks[i];
        struct unpack_cursor uc = { .pos = c->data, .end = c->data + c->len,
                                    .base = c->data };
        int ret;

        assert_int_equal(unpack_begin(&u, test_stream, c->flags, uc.why,
                                      sizeof(uc.why)), 0);
        while ((ret = unpack_count(&u, &uc, counts, &n)) == 2) {
            uc.pos = uc.rec + ((const struct qtrace_rec *)uc.rec)->size;
        }
        if (ret == 3) {
            assert_true(c->flags & QTRACE_CHUNK_ACCESSES);
            while ((ret = unpack_next(&u, &uc)) > 0) {
                if (ret == 2) {
                    uc.pos = uc.rec +
                             ((const struct qtrace_rec *)uc.rec)->size;
                    continue;
                }
                counts[((const struct qtrace_rec *)uc.rec)->id]++;
            }
        }
        if (ret < 0) {
            fail_msg("counting chunk %zu: %s", i, uc.why);
        }
    }
    unpack_fini(&u);
    return counts[QTRACE_EV_EXEC_TB] + counts[QTRACE_EV_MEM_ACCESS];
}

/*
 * Read the chunks of a test back (expect_events, count_events), free
 * them and the staging chunk: returns the packed bytes they held.
 */
static size_t check_chunks(struct stage *st, struct chunk **chunks,
                           size_t n_chunks)
{
    size_t bytes = 0;

    expect_events(chunks, n_chunks);
    assert_int_equal(count_events(chunks, n_chunks), n_events);
    while (n_chunks) {
        bytes += chunks[--n_chunks]->len;
        free(chunks[n_chunks]);
    }
    free(st->chunk);
    return bytes;
}

static void begin_test(struct stage *st)
{
    stage_init(st);
    n_events = 0;
    n_recs = 0;
    st->icount = 0;
    st->any_access = st->chunk_access = false;
    test_stream++;
}

/* A loop of two strided accesses: after its first runs, no byte each. */
static void test_pack_access_strided_loop(void **state)
{
    struct stage st = { .chunk = NULL };
    struct tb_info *loop = new_block(0x401000, 3);
    struct tb_info *tail = new_block(0x401100, 2);
    struct chunk *c;
    uint32_t i;

    use_mode(state);
    begin_test(&st);
    for (i = 0; i < 1000; i++) {
        stage_block(&st, loop);
        stage_access(&st, loop, 0, 3, 0x600000 + 8 * i);
        stage_access(&st, loop, 2, 3 | PACKED_MEM_STORE,
                     0x7ff0000 - 16 * (uint64_t)i);
    }
    stage_block(&st, tail);
    c = stage_pack(&st);
    assert_int_equal(c->n_records, 3001);
    /*
     * Four iterations to learn (the first access starts the block
     * predictor again), then one run packet for the rest.
     */
    assert_true(c->len < 56);
    assert_int_equal(expect_events(&c, 1), 3001);
    assert_int_equal(count_events(&c, 1), 3001);
    free(c);
    free(st.chunk);
}

/*
 * User mode stages an access in 8 bytes when its address is below 2^47,
 * else in 16: a strided access that crosses it changes form and stays
 * predicted, alone in its block or next to a short one, before and
 * after a restart (the 16-byte ones take the short form's key).
 */
static void test_pack_access_forms(void **state)
{
    struct stage st = { .chunk = NULL };
    struct tb_info *alone = new_block(0x402000, 2);
    struct tb_info *pair = new_block(0x402100, 3);
    struct chunk *chunks[4];
    uint64_t high = (1ull << STAGED_SMEM_VADDR_BITS) - 40 * 64;
    size_t n_chunks = 0, bytes;
    uint32_t i;

    use_mode(state);
    begin_test(&st);
    for (i = 0; i < 400; i++) {
        stage_block(&st, alone);
        stage_access(&st, alone, 1, 2, high + 64 * (uint64_t)(i % 100));
        stage_block(&st, pair);
        stage_access(&st, pair, 0, 3 | PACKED_MEM_STORE,
                     high + 4096 - 8 * (uint64_t)i);
        stage_access(&st, pair, 2, 3, 0x500000 + 8 * (uint64_t)i);
        if (i == 250) {
            stage_restart(&st, pair);
            stage_access(&st, pair, 2, 3, 0x510000);
        }
        if (i % 100 == 99 && n_chunks < 3) {
            chunks[n_chunks++] = stage_pack(&st);
        }
    }
    chunks[n_chunks++] = stage_pack(&st);
    bytes = check_chunks(&st, chunks, n_chunks);
    /*
     * The loop wraps every 100 turns and restarts once; each form
     * change is predicted. Everything else is runs and hits: at most a
     * few bytes per turn where the forms mix in a block.
     */
    print_message("%u turns in %zu bytes\n", i, bytes);
    assert_true(bytes < 4 * i);
}

/*
 * Addresses that wander, a block whose accesses change in number and in
 * instruction, an access split from its block by a record, predictions
 * that miss by a byte and by far.
 */
static void test_pack_access_irregular(void **state)
{
    struct stage st = { .chunk = NULL };
    struct tb_info *a = new_block(0x402000, 4), *b = new_block(0x402100, 2);
    struct chunk *c;
    uint64_t seed = 88172645463325252ull;
    uint32_t i, k;

    use_mode(state);
    begin_test(&st);
    for (i = 0; i < 3000; i++) {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        stage_block(&st, a);
        for (k = 0; k < 1 + (i / 7) % 3; k++) {
            stage_access(&st, a, k, (uint8_t)k, 0x500000 + 8 * i + k);
        }
        if (i % 5 == 0) {
            stage_record(&st);
            stage_access(&st, a, 3, 2, seed);
        }
        stage_block(&st, b);
        stage_access(&st, b, (i % 11) ? 1 : 0, 3,
                     i % 3 ? 0x900000 + (seed & 0xff8) : UINT64_MAX - i);
    }
    c = stage_pack(&st);
    expect_events(&c, 1);
    assert_int_equal(count_events(&c, 1), n_events);
    free(c);
    free(st.chunk);
}

/*
 * Chunks end anywhere, also between a block and its accesses, and a
 * restart drops the predictor in the middle of a block: each chunk reads
 * on from the state the chunks before it left.
 */
static void test_pack_access_chunks_and_restart(void **state)
{
    struct stage st = { .chunk = NULL };
    struct tb_info *a = new_block(0x403000, 5), *b = new_block(0x403100, 1);
    struct chunk *chunks[64];
    size_t n_chunks = 0;
    uint32_t i, k;

    use_mode(state);
    begin_test(&st);
    for (i = 0; i < 600; i++) {
        stage_block(&st, i % 4 ? a : b);
        for (k = 0; k < (i % 4 ? 3u : 0u); k++) {
            stage_access(&st, a, k, 3, 0x800000 + 64 * i + 8 * k);
            if (k == 1 && i % 37 == 0) {
                chunks[n_chunks++] = stage_pack(&st);
            }
        }
        if (i % 97 == 0 && i % 4) {
            stage_restart(&st, a);
            stage_access(&st, a, 4, 3, 0x800000 + 64 * i + 32);
        }
        if (i % 50 == 49) {
            chunks[n_chunks++] = stage_pack(&st);
        }
    }
    chunks[n_chunks++] = stage_pack(&st);
    assert_true(n_chunks < 64);
    check_chunks(&st, chunks, n_chunks);
}

/*
 * Records between blocks, as the call tracker stages its events (after
 * the block before made its accesses, before the next block's id): after
 * blocks whose accesses were all predicted and after blocks with
 * misses, with chunks ending anywhere. Each record keeps its place.
 */
static void test_pack_access_between_blocks(void **state)
{
    struct stage st = { .chunk = NULL };
    struct tb_info *a = new_block(0x407000, 3), *b = new_block(0x407100, 2);
    struct chunk *chunks[64];
    size_t n_chunks = 0;
    uint32_t i;

    use_mode(state);
    begin_test(&st);
    for (i = 0; i < 900; i++) {
        const struct tb_info *tb = i % 3 ? a : b;

        if (i % 4 == 1 || i % 7 == 3) {
            stage_record(&st);
        }
        stage_block(&st, tb);
        stage_access(&st, tb, 0, 3, 0x600000 + 8 * i);
        if (tb == a) {
            stage_access(&st, a, 2, 2, i % 5 ? 0x610000 : 0x620000 + i);
            if (i % 11 == 0) {
                stage_access(&st, a, 2, 2, 0x630000);
            }
        }
        if (i % 61 == 60) {
            chunks[n_chunks++] = stage_pack(&st);
        }
    }
    chunks[n_chunks++] = stage_pack(&st);
    assert_true(n_chunks < 64);
    check_chunks(&st, chunks, n_chunks);
}

/*
 * A stream whose first chunks have blocks only (plain packed chunks, runs
 * of predicted blocks), then its first access in the next chunk, before
 * any block there: it belongs to the block that ended the chunk before.
 * Read whole or counted, each way gives back what went in.
 */
static void test_pack_access_late_first(void **state)
{
    struct stage st = { .chunk = NULL };
    struct tb_info *a = new_block(0x405000, 3), *b = new_block(0x405100, 2);
    const struct tb_info *cur;
    struct chunk *chunks[8];
    size_t n_chunks = 0;
    uint32_t i, round;

    use_mode(state);
    begin_test(&st);
    for (round = 0; round < 3; round++) {
        for (i = 0; i < 500; i++) {
            stage_block(&st, i % 3 ? a : b);
        }
        chunks[n_chunks++] = stage_pack(&st);
        assert_false(chunks[n_chunks - 1]->flags & QTRACE_CHUNK_ACCESSES);
    }
    /* The last block staged is a (499 % 3 == 1). */
    for (i = 0, cur = a; i < 300; i++) {
        stage_access(&st, cur, 1, 3, 0x900000 + 8 * i);
        cur = i % 3 ? a : b;
        stage_block(&st, cur);
        if (cur == a) {
            stage_access(&st, a, 0, 2, 0x910000 - 4 * i);
        }
        if (i == 150) {
            chunks[n_chunks++] = stage_pack(&st);
        }
    }
    chunks[n_chunks++] = stage_pack(&st);
    assert_true(chunks[3]->flags & QTRACE_CHUNK_ACCESSES);
    check_chunks(&st, chunks, n_chunks);
}

/*
 * System mode: a loop over four pages whose translations the cache
 * holds, one page remapped half-way, a restart (which empties the cache)
 * and chunks cut anywhere; every access gets its physical address back.
 * Returns the packed bytes; phys_test says whether the stream is system
 * mode's (without, the same accesses cost what they cost in user mode).
 */
static size_t run_phys_loop(void)
{
    struct stage st = { .chunk = NULL };
    struct tb_info *a = new_block(0x406000, 4), *b = new_block(0x406100, 1);
    const uint64_t base = 0xffff888000010000ull;
    struct chunk *chunks[64];
    size_t n_chunks = 0;
    uint32_t i, k;

    begin_test(&st);
    for (i = 0; i < 2000; i++) {
        stage_block(&st, i % 5 ? a : b);
        for (k = 0; k < (i % 5 ? 2u : 0u); k++) {
            /* Access 0 walks the four pages, 1 stays on a stack page. */
            uint64_t va = k ? 0xffffc90000004000ull - 8 * (i % 16) :
                              base + (64 * i) % 0x4000;
            uint64_t off = k ? 0x7000 - 0xffffc90000000000ull :
                           0x12340000 - 0xffff888000000000ull +
                           ((va >> 12) & 3) * 0x10000;

            if (!k && ((va >> 12) & 3) == 2 && i >= 1000) {
                off += 0x55000;         /* remapped */
            }
            stage_access_at(&st, a, k, 3, va, va + off);
        }
        if (i == 1500) {
            stage_restart(&st, a);
        }
        if (i % 170 == 169) {
            chunks[n_chunks++] = stage_pack(&st);
        }
    }
    chunks[n_chunks++] = stage_pack(&st);
    assert_true(n_chunks < 64);
    return check_chunks(&st, chunks, n_chunks);
}

static void test_pack_access_phys(void **state)
{
    size_t user, sys;

    (void)state;
    rel_flag = QTRACE_CHUNK_ACCESS_REL;
    user = run_phys_loop();
    phys_test = true;
    sys = run_phys_loop();
    phys_test = false;
    /*
     * Translation packets only where the cache lacks a page: the five
     * pages' first use, the remap, the five again after the restart;
     * each a tag and a varint of at most 10 bytes.
     */
    print_message("user mode %zu bytes, system mode %zu\n", user, sys);
    assert_true(sys > user);
    assert_true(sys <= user + 11 * 11);
}

/*
 * Recursion's stack: a call block stores the return address below the
 * stack pointer, a body block stores and loads at fixed offsets below
 * it, and the depth walks up and down at random. No access keeps a
 * stride, but each is at a fixed offset from the one before: with
 * QTRACE_CHUNK_ACCESS_REL (state NULL) only a change of direction
 * misses, and the trace is a fraction of the stride-only one's
 * (returned through bytes).
 */
static size_t stack_walk(void)
{
    struct stage st = { .chunk = NULL };
    struct tb_info *call = new_block(0x408000, 2);
    struct tb_info *body = new_block(0x408100, 4);
    struct chunk *chunks[8];
    uint64_t seed = 0x9e3779b97f4a7c15ull, sp = 0x7fff0000;
    size_t n_chunks = 0;
    uint32_t i;

    begin_test(&st);
    for (i = 0; i < 4000; i++) {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        sp += seed & 1 ? 48 : -48;
        stage_block(&st, call);
        stage_access(&st, call, 1, 3 | PACKED_MEM_STORE, sp - 8);
        stage_block(&st, body);
        stage_access(&st, body, 0, 3 | PACKED_MEM_STORE, sp - 16);
        stage_access(&st, body, 2, 2 | PACKED_MEM_STORE, sp - 20);
        stage_access(&st, body, 3, 3, sp - 32);
        if (i % 1500 == 1499) {
            chunks[n_chunks++] = stage_pack(&st);
        }
    }
    chunks[n_chunks++] = stage_pack(&st);
    return check_chunks(&st, chunks, n_chunks);
}

static void test_pack_access_stack(void **state)
{
    size_t rel, stride;

    (void)state;
    rel_flag = QTRACE_CHUNK_ACCESS_REL;
    rel = stack_walk();
    rel_flag = 0;
    stride = stack_walk();
    rel_flag = QTRACE_CHUNK_ACCESS_REL;
    print_message("4000 calls: %zu bytes, %zu with strides only\n", rel,
                  stride);
    /*
     * About half the calls change direction: a delta packet each, and
     * the blocks around it explicit; strides alone miss every access.
     */
    assert_true(rel < 4000 * 6);
    assert_true(rel * 3 < stride);
}

/* Every cut of a packed chunk fails or stops short: never a bad record. */
static void test_pack_access_cut(void **state)
{
    struct stage st = { .chunk = NULL };
    struct tb_info *a = new_block(0x404000, 2);
    struct chunk *c;
    uint32_t i, len;

    use_mode(state);
    begin_test(&st);
    for (i = 0; i < 40; i++) {
        stage_block(&st, a);
        stage_access(&st, a, 0, 3, 0x700000 + (i * i) * 8);
        stage_access(&st, a, 1, 3, 0x700000 + 8 * i);
    }
    c = stage_pack(&st);
    for (len = 0; len < c->len; len++) {
        struct unpacker u;
        struct unpack_cursor uc = { .pos = c->data, .end = c->data + len,
                                    .base = c->data };
        size_t at = 0;
        int ret;

        assert_int_equal(unpack_init(&u, project_catalog(), NULL), 0);
        note_blocks(&u);
        assert_int_equal(unpack_begin(&u, test_stream + 1000 + len,
                                      c->flags, uc.why, sizeof(uc.why)), 0);
        while ((ret = unpack_next(&u, &uc)) > 0) {
            check_record(uc.rec, expected(&at));
        }
        unpack_fini(&u);
    }
    free(c);
    free(st.chunk);
}

int main(void)
{
/*
 * A case twice: as the plugin writes (QTRACE_CHUNK_ACCESS_REL), then
 * with strides only, as traces written before it.
 */
#define BOTH_WAYS(f)                                                       \
    cmocka_unit_test(f),                                                   \
    { #f " (strides only)", f, NULL, NULL, &stride_only }

    const struct CMUnitTest tests[] = {
        BOTH_WAYS(test_pack_access_strided_loop),
        BOTH_WAYS(test_pack_access_forms),
        BOTH_WAYS(test_pack_access_irregular),
        BOTH_WAYS(test_pack_access_chunks_and_restart),
        BOTH_WAYS(test_pack_access_late_first),
        BOTH_WAYS(test_pack_access_between_blocks),
        BOTH_WAYS(test_pack_access_cut),
        cmocka_unit_test(test_pack_access_stack),
        cmocka_unit_test(test_pack_access_phys),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
