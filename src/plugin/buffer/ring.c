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
#include "../core/vcpu.h"

/*
 * A ring's chunks, oldest first. The chunks up to seal (a snapshot
 * trigger's cut chunk, not written yet) are sealed: what comes after
 * them never pushes them out, so that the snapshot still holds the
 * moments before its trigger when the vCPU has run on meanwhile. Each
 * part is bounded on its own.
 */
struct ring {
    struct chunk *head, *tail;  /* oldest, newest */
    size_t bytes;               /* record bytes of all its chunks */
    size_t n;                   /* chunks */
    struct chunk *seal;         /* the newest sealed chunk, or NULL */
    size_t seal_bytes, seal_n;  /* of the sealed chunks, head to seal */
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

/*
 * Too much when the chunks after the oldest alone hold SIZE bytes (the
 * oldest adds nothing the snapshot needs), or too many chunks.
 */
static bool over_bound(size_t n, size_t bytes, const struct chunk *oldest)
{
    return n > 1 && (bytes - oldest->len >= rg.bytes || n > rg.max_chunks);
}

/* Unlink the chunk after prev (NULL: the head) of r: given up. */
static struct chunk *unlink_after(struct ring *r, struct chunk *prev)
{
    struct chunk *c = prev ? prev->next : r->head;

    if (prev) {
        prev->next = c->next;
    } else {
        r->head = c->next;
    }
    if (r->tail == c) {
        r->tail = prev;
    }
    c->next = NULL;
    r->bytes -= c->len;
    r->n--;
    rg.n_chunks--;
    rg.dropped += chunk_records(c);
    return c;
}

/* Give up chunks beyond each part's bound, onto *gone_tail. */
static void enforce_bounds(struct ring *r, struct chunk ***gone_tail)
{
    struct chunk *old;

    for (;;) {
        struct chunk *first = r->seal ? r->seal->next : r->head;

        if (!first || !over_bound(r->n - r->seal_n, r->bytes - r->seal_bytes,
                                  first)) {
            break;
        }
        old = unlink_after(r, r->seal);
        **gone_tail = old;
        *gone_tail = &old->next;
    }
    while (r->seal && over_bound(r->seal_n, r->seal_bytes, r->head)) {
        r->seal_bytes -= r->head->len;
        r->seal_n--;
        old = unlink_after(r, NULL);
        **gone_tail = old;
        *gone_tail = &old->next;
    }
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
    if (c->cut) {
        /* Everything up to the cut waits for its snapshot. */
        r->seal = c;
        r->seal_bytes = r->bytes;
        r->seal_n = r->n;
    }
    enforce_bounds(r, &gone_tail);
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

struct chunk *ring_take(uint32_t vcpu, bool to_cut)
{
    struct ring *r = &rg.rings[vcpu];
    struct chunk *all = r->head, *seal = r->seal;

    if (to_cut && seal) {
        /* The sealed chunks leave; the ones after them stay. */
        r->head = seal->next;
        if (!r->head) {
            r->tail = NULL;
        }
        seal->next = NULL;
        r->bytes -= r->seal_bytes;
        r->n -= r->seal_n;
        rg.n_chunks -= r->seal_n;
    } else {
        rg.n_chunks -= r->n;
        r->head = r->tail = NULL;
        r->bytes = 0;
        r->n = 0;
    }
    r->seal = NULL;
    r->seal_bytes = r->seal_n = 0;
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
