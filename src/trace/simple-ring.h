/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The simple backend's ring: many tracing threads append records without
 * a lock, one drainer at a time (the writer thread, or a flush) takes the
 * committed ones out. The ring sees a record only as bytes whose first
 * byte, the low byte of its u64 type word (simple-format.h), says it is
 * committed, and whose u32 length sits at RING_LEN_AT.
 *
 * Protocol: a producer reserves [start, start + total) by moving head with
 * a compare-and-swap, checking against tail that the room is free; writes
 * every byte but the first; then stores the first byte (ST_TYPE_EVENT)
 * with release order. Free room is all zero, so the drainer, reading each
 * record's first byte with acquire order, sees 0 (not yet committed: it
 * stops there) or a whole record. After writing records out the drainer
 * zeroes their bytes and moves tail with release order.
 */
#ifndef QTRACE_TRACE_SIMPLE_RING_H
#define QTRACE_TRACE_SIMPLE_RING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define RING_LEN_AT 24              /* type, id, timestamp, then length */

struct st_ring {
    uint8_t *buf;                   /* size bytes; set once by init */
    size_t size;                    /* a power of two; set once by init */
    size_t head __attribute__((aligned(64)));  /* bytes ever reserved,
                                                  producers (CAS) */
    size_t tail __attribute__((aligned(64)));  /* bytes ever drained,
                                                  the drainer */
};

/* hidden: the hot path reaches it without a GOT load */
extern struct st_ring st_ring __attribute__((visibility("hidden")));

/*
 * Allocate the ring once (later calls do nothing): size_bytes is rounded
 * up to a power of two. False if memory is short. Any thread.
 */
bool st_ring_init(size_t size_bytes);

/*
 * Hot path (any tracing thread): no lock, no syscall, no allocation.
 * Reserve total bytes; false when they do not fit (the record is lost).
 */
static inline bool st_ring_reserve(size_t total, size_t *start)
{
    size_t head = __atomic_load_n(&st_ring.head, __ATOMIC_RELAXED);

    do {
        size_t tail = __atomic_load_n(&st_ring.tail, __ATOMIC_ACQUIRE);

        if (st_ring.size - (head - tail) < total) {
            return false;
        }
    } while (!__atomic_compare_exchange_n(&st_ring.head, &head,
                                          head + total, true,
                                          __ATOMIC_RELAXED,
                                          __ATOMIC_RELAXED));
    *start = head;
    return true;
}

/* The rare copy that wraps past the ring's end (out of line, cold). */
void st_ring_put_wrapped(size_t at, const void *src, size_t n)
    __attribute__((visibility("hidden"), cold));

/* Copy n bytes to ring position pos (any count of bytes ever written). */
static inline void st_ring_put(size_t pos, const void *src, size_t n)
{
    size_t at = pos & (st_ring.size - 1);

    if (__builtin_expect(at + n <= st_ring.size, 1)) {
        memcpy(st_ring.buf + at, src, n);
    } else {
        st_ring_put_wrapped(at, src, n);
    }
}

/* Publish the record reserved at start, whose other bytes are written. */
static inline void st_ring_commit(size_t start, uint8_t first_byte)
{
    __atomic_store_n(&st_ring.buf[start & (st_ring.size - 1)], first_byte,
                     __ATOMIC_RELEASE);
}

/*
 * Drainer side (one caller at a time, the caller serialises). The
 * committed records from tail on, stopping at the first one still being
 * written or at limit: returns their end (tail when there are none).
 */
size_t st_ring_committed_end(size_t limit);

/* The reservation head now: everything reserved before this call. */
size_t st_ring_head(void);

/*
 * The bytes [tail, end) as at most two spans (the ring wraps): fills
 * ptr[]/len[], returns how many spans.
 */
int st_ring_spans(size_t end, const uint8_t *ptr[2], size_t len[2]);

/* Zero [tail, end) and make it free room again. */
void st_ring_release(size_t end);

/* Bytes ever drained. */
size_t st_ring_tail(void);

#endif /* QTRACE_TRACE_SIMPLE_RING_H */
