/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The rings of ring=SIZE (see ring.h): a list of chunks per vCPU index,
 * oldest first. Writer thread only, so no lock; the counters others read
 * (ring_dropped at END, ring_chunks for the pool) are read on the writer
 * thread or under the writer's lock by the caller.
 */
#include <stddef.h>
#include <stdint.h>

#include "pack.h"
#include "ring.h"
#include "vcpu.h"

struct ring {
    struct chunk *head, *tail;  /* oldest, newest */
    size_t bytes;               /* record bytes of all its chunks */
    size_t n;                   /* chunks */
};

static struct {
    size_t bytes;               /* ring=: record bytes kept per vCPU */
    size_t max_chunks;          /* chunks a ring may hold at most */
    struct ring rings[MAX_VCPUS];
    uint64_t dropped;           /* records given up */
    size_t n_chunks;            /* chunks in all rings */
} rg;

void ring_setup(size_t bytes, size_t chunk_bytes)
{
    rg.bytes = bytes;
    /*
     * Chunks handed over part full (by a snapshot) still take a whole
     * chunk of memory: the count is bounded too, one more than the
     * bytes need, so that a ring still holds SIZE bytes beside them.
     */
    rg.max_chunks = chunk_bytes ? (bytes + chunk_bytes - 1) / chunk_bytes + 1
                                : 0;
}

bool ring_is_on(void)
{
    return rg.bytes != 0;
}

/* Records in c: a staged stream counts its blocks only by walking it. */
static uint64_t chunk_records(const struct chunk *c)
{
    if (c->flags & CHUNK_STAGED) {
        return pack_staged_records(c->data, c->len);
    }
    return c->n_records;
}

/* Unlink the oldest chunk of r. */
static struct chunk *pop_oldest(struct ring *r)
{
    struct chunk *c = r->head;

    r->head = c->next;
    if (!r->head) {
        r->tail = NULL;
    }
    c->next = NULL;
    r->bytes -= c->len;
    r->n--;
    rg.n_chunks--;
    return c;
}

/*
 * Too much when the chunks after the oldest alone hold SIZE bytes (the
 * oldest adds nothing the snapshot needs), or too many chunks.
 */
static bool over_bound(const struct ring *r)
{
    return r->n > 1 && (r->bytes - r->head->len >= rg.bytes ||
                        r->n > rg.max_chunks);
}

struct chunk *ring_keep(struct chunk *c)
{
    struct ring *r = &rg.rings[c->vcpu < MAX_VCPUS ? c->vcpu : 0];
    struct chunk *gone = NULL, **gone_tail = &gone;

    c->next = NULL;
    if (r->tail) {
        r->tail->next = c;
    } else {
        r->head = c;
    }
    r->tail = c;
    r->bytes += c->len;
    r->n++;
    rg.n_chunks++;
    while (over_bound(r)) {
        struct chunk *old = pop_oldest(r);

        rg.dropped += chunk_records(old);
        *gone_tail = old;
        gone_tail = &old->next;
    }
    return gone;
}

struct chunk *ring_peek(uint32_t vcpu, uint32_t *found)
{
    for (; vcpu < MAX_VCPUS; vcpu++) {
        if (rg.rings[vcpu].head) {
            *found = vcpu;
            return rg.rings[vcpu].head;
        }
    }
    return NULL;
}

/* The newest chunk of r marked cut, or NULL. */
static struct chunk *last_cut(const struct ring *r)
{
    struct chunk *c, *cut = NULL;

    for (c = r->head; c; c = c->next) {
        if (c->cut) {
            cut = c;
        }
    }
    return cut;
}

struct chunk *ring_take(uint32_t vcpu, bool to_cut)
{
    struct ring *r = &rg.rings[vcpu];
    struct chunk *all = r->head, *cut = to_cut ? last_cut(r) : NULL;

    if (cut && cut->next) {
        struct chunk *c;

        /* The chunks up to cut leave; the ones after it stay. */
        for (c = all; c != cut->next; c = c->next) {
            r->bytes -= c->len;
            r->n--;
            rg.n_chunks--;
        }
        r->head = cut->next;
        cut->next = NULL;
        return all;
    }
    rg.n_chunks -= r->n;
    r->head = r->tail = NULL;
    r->bytes = 0;
    r->n = 0;
    return all;
}

uint64_t ring_dropped(void)
{
    return rg.dropped;
}

size_t ring_chunks(void)
{
    return rg.n_chunks;
}
