/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The simple backend's ring, drainer side and set-up (the protocol is in
 * simple-ring.h). Runs on the writer thread or a flushing caller, one at
 * a time: backend-simple.c holds its file lock around every drain.
 */
#include <pthread.h>
#include <stdlib.h>

#include "simple-ring.h"

struct st_ring st_ring;

static pthread_mutex_t init_lock = PTHREAD_MUTEX_INITIALIZER;

static size_t round_up_pow2(size_t n)
{
    size_t p = 1;

    while (p < n) {
        p <<= 1;
    }
    return p;
}

bool st_ring_init(size_t size_bytes)
{
    bool ok = true;

    pthread_mutex_lock(&init_lock);
    if (!st_ring.buf) {
        size_t size = round_up_pow2(size_bytes);
        /* calloc: free room must read as zero (not committed) */
        uint8_t *buf = calloc(1, size);

        if (buf) {
            st_ring.size = size;
            __atomic_store_n(&st_ring.buf, buf, __ATOMIC_RELEASE);
        }
        ok = buf != NULL;
    }
    pthread_mutex_unlock(&init_lock);
    return ok;
}

void st_ring_put_wrapped(size_t at, const void *src, size_t n)
{
    size_t first = st_ring.size - at;

    memcpy(st_ring.buf + at, src, first);
    memcpy(st_ring.buf, (const uint8_t *)src + first, n - first);
}

/* The u32 at ring position pos, which may wrap. */
static uint32_t get_u32(size_t pos)
{
    uint8_t b[4];
    size_t i;
    uint32_t v;

    for (i = 0; i < sizeof(b); i++) {
        b[i] = st_ring.buf[(pos + i) & (st_ring.size - 1)];
    }
    memcpy(&v, b, sizeof(v));
    return v;
}

size_t st_ring_committed_end(size_t limit)
{
    size_t pos = __atomic_load_n(&st_ring.tail, __ATOMIC_RELAXED);

    while (pos < limit) {
        uint8_t first = __atomic_load_n(
            &st_ring.buf[pos & (st_ring.size - 1)], __ATOMIC_ACQUIRE);

        if (!first) {
            break;                  /* reserved, still being written */
        }
        /* length counts from the id on, after the u64 type word */
        pos += 8 + get_u32(pos + RING_LEN_AT);
    }
    return pos;
}

size_t st_ring_head(void)
{
    return __atomic_load_n(&st_ring.head, __ATOMIC_ACQUIRE);
}

size_t st_ring_tail(void)
{
    return __atomic_load_n(&st_ring.tail, __ATOMIC_RELAXED);
}

int st_ring_spans(size_t end, const uint8_t *ptr[2], size_t len[2])
{
    size_t tail = st_ring_tail();
    size_t n = end - tail;
    size_t at = tail & (st_ring.size - 1);
    size_t first = n < st_ring.size - at ? n : st_ring.size - at;

    if (n == 0) {
        return 0;
    }
    ptr[0] = st_ring.buf + at;
    len[0] = first;
    if (first == n) {
        return 1;
    }
    ptr[1] = st_ring.buf;
    len[1] = n - first;
    return 2;
}

void st_ring_release(size_t end)
{
    const uint8_t *ptr[2];
    size_t len[2];
    int n = st_ring_spans(end, ptr, len);
    int i;

    for (i = 0; i < n; i++) {
        memset((uint8_t *)ptr[i], 0, len[i]);
    }
    /* release: producers that see the new tail see the zeroes too */
    __atomic_store_n(&st_ring.tail, end, __ATOMIC_RELEASE);
}
