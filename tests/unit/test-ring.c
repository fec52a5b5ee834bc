/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests of the flight recorder's rings (src/plugin/ring.c): a ring
 * keeps SIZE bytes besides its oldest chunk and gives the oldest up past
 * that, keeps at most one chunk more than SIZE needs however small its
 * chunks, counts the records of what it gives up (a staged chunk's
 * blocks by walking it), empties one vCPU's ring at a time, and to a
 * snapshot trigger gives its chunks up to the last one marked cut.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "pack.h"
#include "ring.h"

#define CHUNK (64u << 10)

/* pack.c's block slow path is not used here. */
void *vbuf_reserve_slow(struct vbuf *vb, uint32_t size)
{
    (void)vb;
    (void)size;
    fail_msg("no reservation expected");
    return NULL;
}

/* A chunk of vcpu holding len bytes of records, n of them. */
static struct chunk *new_chunk(uint32_t vcpu, uint32_t len, uint32_t n)
{
    struct chunk *c = calloc(1, sizeof(*c) + CHUNK);

    assert_non_null(c);
    c->vcpu = vcpu;
    c->cap = CHUNK;
    c->len = len;
    c->n_records = n;
    return c;
}

static void free_chain(struct chunk *c)
{
    while (c) {
        struct chunk *next = c->next;

        free(c);
        c = next;
    }
}

static size_t chain_len(const struct chunk *c)
{
    size_t n = 0;

    for (; c; c = c->next) {
        n++;
    }
    return n;
}

static void test_ring_full_chunks_drop_oldest_past_size(void **state)
{
    struct chunk *kept[6];
    uint64_t before = ring_dropped();
    uint32_t found = 99;
    int i;

    (void)state;
    ring_setup(4 * CHUNK, CHUNK);
    for (i = 0; i < 4; i++) {
        kept[i] = new_chunk(1, CHUNK, 10);
        assert_null(ring_keep(kept[i]));
    }
    /* Four chunks are SIZE: a fifth makes the oldest needless. */
    kept[4] = new_chunk(1, CHUNK, 10);
    assert_ptr_equal(ring_keep(kept[4]), kept[0]);
    assert_null(kept[0]->next);
    free(kept[0]);
    assert_int_equal(ring_dropped() - before, 10);
    assert_ptr_equal(ring_peek(0, &found), kept[1]);
    assert_int_equal(found, 1);
    assert_int_equal(chain_len(kept[1]), 4);
    assert_ptr_equal(kept[1]->next->next->next, kept[4]);
    free_chain(ring_take(1, false));
    assert_null(ring_peek(0, &found));
    assert_int_equal(ring_chunks(), 0);
}

static void test_ring_small_chunks_bounded_by_count(void **state)
{
    uint64_t before = ring_dropped();
    int i;

    (void)state;
    ring_setup(2 * CHUNK, CHUNK);
    /* Chunks handed over nearly empty: at most 2 + 1 stay. */
    for (i = 0; i < 20; i++) {
        free_chain(ring_keep(new_chunk(2, 100, 3)));
    }
    assert_int_equal(ring_chunks(), 3);
    assert_int_equal(ring_dropped() - before, 17 * 3);
    free_chain(ring_take(2, false));
}

static void test_ring_staged_blocks_counted_when_dropped(void **state)
{
    uint64_t before = ring_dropped();
    struct chunk *c;
    uint32_t ids[5] = { 1, 2, 3, 4, 5 };

    (void)state;
    ring_setup(2 * CHUNK, CHUNK);
    /* A staged chunk: 5 block words; its vCPU counted no record. */
    c = new_chunk(3, sizeof(ids), 0);
    c->flags = CHUNK_STAGED;
    memcpy(c->data, ids, sizeof(ids));
    assert_null(ring_keep(c));
    assert_null(ring_keep(new_chunk(3, CHUNK, 1)));
    /* Two full chunks after it are SIZE: it goes. */
    assert_ptr_equal(ring_keep(new_chunk(3, CHUNK, 1)), c);
    free(c);
    assert_int_equal(ring_dropped() - before, 5);
    free_chain(ring_take(3, false));
}

static void test_ring_take_empties_one_vcpu(void **state)
{
    uint32_t found = 0;

    (void)state;
    ring_setup(2 * CHUNK, CHUNK);
    assert_null(ring_keep(new_chunk(4, 10, 1)));
    assert_null(ring_keep(new_chunk(7, 10, 1)));
    assert_null(ring_keep(new_chunk(7, 10, 1)));
    assert_int_equal(ring_chunks(), 3);
    assert_non_null(ring_peek(0, &found));
    assert_int_equal(found, 4);
    free_chain(ring_take(4, false));
    assert_non_null(ring_peek(0, &found));
    assert_int_equal(found, 7);
    assert_int_equal(ring_chunks(), 2);
    free_chain(ring_take(7, false));
    assert_null(ring_peek(0, &found));
}

static void test_ring_take_to_cut_keeps_later_chunks(void **state)
{
    struct chunk *a = new_chunk(3, 10, 1), *b = new_chunk(3, 20, 2);
    struct chunk *c = new_chunk(3, 30, 3), *d = new_chunk(3, 40, 4);
    struct chunk *got;
    uint32_t found = 0;

    (void)state;
    ring_setup(4 * CHUNK, CHUNK);
    a->cut = true;
    b->cut = true;
    assert_null(ring_keep(a));
    assert_null(ring_keep(b));
    assert_null(ring_keep(c));
    assert_null(ring_keep(d));
    /* Up to the newest cut, b: c and d stay, oldest first. */
    got = ring_take(3, true);
    assert_ptr_equal(got, a);
    assert_int_equal(chain_len(got), 2);
    assert_ptr_equal(got->next, b);
    assert_null(b->next);
    assert_int_equal(ring_chunks(), 2);
    assert_ptr_equal(ring_peek(0, &found), c);
    assert_int_equal(found, 3);
    free_chain(got);
    /* No cut left: everything, as without to_cut. */
    got = ring_take(3, true);
    assert_ptr_equal(got, c);
    assert_int_equal(chain_len(got), 2);
    assert_int_equal(ring_chunks(), 0);
    assert_null(ring_peek(0, &found));
    free_chain(got);
    /* A cut at the newest chunk takes all; the ring still accepts. */
    c = new_chunk(3, 10, 1);
    c->cut = true;
    assert_null(ring_keep(new_chunk(3, 10, 1)));
    assert_null(ring_keep(c));
    got = ring_take(3, true);
    assert_int_equal(chain_len(got), 2);
    assert_null(ring_peek(0, &found));
    free_chain(got);
    assert_null(ring_keep(new_chunk(3, 10, 1)));
    assert_int_equal(ring_chunks(), 1);
    free_chain(ring_take(3, false));
}

static void test_ring_sealed_chunks_outlive_later_ones(void **state)
{
    struct chunk *x = new_chunk(5, CHUNK, 10), *y = new_chunk(5, 8, 1);
    struct chunk *got, *gone;
    uint32_t found = 0;
    int i;

    (void)state;
    ring_setup(2 * CHUNK, CHUNK);
    y->cut = true;
    assert_null(ring_keep(x));
    assert_null(ring_keep(y));
    /* Full chunks after the cut push out each other, never x or y. */
    for (i = 0; i < 5; i++) {
        gone = ring_keep(new_chunk(5, CHUNK, 100));
        assert_true(i < 2 ? gone == NULL : chain_len(gone) == 1);
        free_chain(gone);
    }
    assert_int_equal(ring_chunks(), 4);
    got = ring_take(5, true);
    assert_ptr_equal(got, x);
    assert_ptr_equal(got->next, y);
    assert_null(y->next);
    free_chain(got);
    /* The two newest full chunks stay for the next snapshot. */
    assert_int_equal(chain_len(ring_peek(0, &found)), 2);
    assert_int_equal(found, 5);
    free_chain(ring_take(5, false));
    assert_int_equal(ring_chunks(), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ring_full_chunks_drop_oldest_past_size),
        cmocka_unit_test(test_ring_small_chunks_bounded_by_count),
        cmocka_unit_test(test_ring_staged_blocks_counted_when_dropped),
        cmocka_unit_test(test_ring_take_empties_one_vcpu),
        cmocka_unit_test(test_ring_take_to_cut_keeps_later_chunks),
        cmocka_unit_test(test_ring_sealed_chunks_outlive_later_ones),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
