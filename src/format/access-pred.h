/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The access predictor of packed chunks with QTRACE_CHUNK_ACCESSES
 * (docs/format.md, "Predicted accesses"), which the plugin's writer and
 * the reader run in lock step, each access by the same calls in the same
 * order. A load or store is known by its block and its place in the
 * block's accesses (its static access); the table remembers, for each,
 * its instruction, size and kind, its last address and a delta, and for
 * the block's first access how many accesses the block made. The delta
 * is a stride from the access's last address or, in streams with
 * QTRACE_CHUNK_ACCESS_REL, after a miss in stride mode, an offset from
 * the previous access's address, as the stack's accesses are at a fixed
 * offset from each other wherever the stack is (each miss switches the
 * mode). An access where its entry predicts costs no byte; a block
 * whose accesses are all so costs none.
 */
#ifndef QTRACE_FORMAT_ACCESS_PRED_H
#define QTRACE_FORMAT_ACCESS_PRED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Static accesses remembered per stream: a power of two. */
#define PACKED_ACC_SLOTS 4096u

/*
 * One static access (docs/format.md lists the fields): 32 bytes, two
 * to a cache line, the fields a lookup compares first.
 */
struct packed_acc {
    uint32_t tb;                    /* its block's id; 0: empty slot */
    uint16_t k;                     /* its place among the block's
                                       accesses, modulo 65536 */
    uint16_t n;                     /* k 0: the block's accesses last
                                       time, at most 65535 */
    uint64_t desc;                  /* packed_acc_desc(): instruction,
                                       pc offset, info; and
                                       PACKED_ACC_REL */
    uint64_t last;                  /* address the last time */
    uint64_t stride;                /* the delta: last address minus the
                                       one before, or with PACKED_ACC_REL
                                       minus the access before it */
};

/*
 * desc bit: the entry predicts from the previous access. It lies in no
 * descriptor's bits, the plugin's keys' included (pack.h).
 */
#define PACKED_ACC_REL (1ull << 30)

/* The descriptor as lookups compare it: without the mode. */
static inline uint64_t packed_acc_key(const struct packed_acc *a)
{
    return a->desc & ~PACKED_ACC_REL;
}

/* An access's instruction index, pc offset and info as one word. */
static inline uint64_t packed_acc_desc(uint32_t idx, uint32_t pc_off,
                                       uint8_t info)
{
    return (uint64_t)pc_off << 32 | (uint64_t)(idx & 0xffffu) << 8 | info;
}

static inline uint32_t packed_acc_idx(const struct packed_acc *a)
{
    return (uint32_t)(a->desc >> 8 & 0xffffu);
}

static inline uint32_t packed_acc_pc_off(const struct packed_acc *a)
{
    return (uint32_t)(a->desc >> 32);
}

static inline uint8_t packed_acc_info(const struct packed_acc *a)
{
    return (uint8_t)a->desc;
}

/*
 * The slot of access k of block tb: the block's accesses in consecutive
 * slots from its own, two to a cache line.
 */
static inline uint32_t packed_acc_base(uint32_t tb)
{
    return tb * 0x9e3779b1u >> 20;
}

static inline struct packed_acc *packed_acc_at(struct packed_acc *tab,
                                               uint32_t tb, uint32_t k)
{
    return &tab[(packed_acc_base(tb) + k) & (PACKED_ACC_SLOTS - 1)];
}

static inline bool packed_acc_is(const struct packed_acc *a, uint32_t tb,
                                 uint32_t k)
{
    return a->tb == tb && a->k == (uint16_t)k;
}

/* packed_acc_is in one compare: tb and k are the entry's first 6 bytes. */
static inline bool packed_acc_key_is(const struct packed_acc *a, uint32_t tb,
                                     uint32_t k)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    uint64_t key;

    _Static_assert(offsetof(struct packed_acc, k) == 4, "tb, then k");
    memcpy(&key, a, sizeof(key));
    return ((key ^ ((uint64_t)(k & 0xffffu) << 32 | tb)) &
            0xffffffffffffull) == 0;
#else
    return packed_acc_is(a, tb, k);
#endif
}

/*
 * The accesses block tb is predicted to make, a its first slot: the
 * slot's n if it is tb's access 0 (tb, k and n in one load).
 */
static inline uint32_t packed_acc_count_at(const struct packed_acc *a,
                                           uint32_t tb)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    uint64_t head;

    _Static_assert(offsetof(struct packed_acc, n) == 6, "tb, k, then n");
    memcpy(&head, a, sizeof(head));
    return (head & 0xffffffffffffull) == tb ? (uint32_t)(head >> 48) : 0;
#else
    return packed_acc_is(a, tb, 0) ? a->n : 0;
#endif
}

/* The same, the slot found from the table. */
static inline uint32_t packed_acc_count(struct packed_acc *tab, uint32_t tb)
{
    return packed_acc_count_at(packed_acc_at(tab, tb, 0), tb);
}

/*
 * The address the slot predicts for its next access, the access before
 * it at prev.
 */
static inline uint64_t packed_acc_next(const struct packed_acc *a,
                                       uint64_t prev)
{
    return (a->desc & PACKED_ACC_REL ? prev : a->last) + a->stride;
}

/*
 * The known access of slot a was made at vaddr, the access before it at
 * prev: a hit keeps the delta; a miss takes the delta of the vaddr, in
 * the other mode when rel (QTRACE_CHUNK_ACCESS_REL).
 */
static inline void packed_acc_made(struct packed_acc *a, uint64_t vaddr,
                                   uint64_t prev, bool rel)
{
    if (vaddr != packed_acc_next(a, prev)) {
        if (rel) {
            a->desc ^= PACKED_ACC_REL;
        }
        a->stride = vaddr - (a->desc & PACKED_ACC_REL ? prev : a->last);
    }
    a->last = vaddr;
}

/*
 * Access k of block tb, of descriptor desc, was made at vaddr, the
 * access before it at prev (after it was written or read): its slot a
 * learns it (packed_acc_made), or starts a new one: stride 0.
 */
static inline void packed_acc_learn(struct packed_acc *a, uint32_t tb,
                                    uint32_t k, uint64_t desc, uint64_t vaddr,
                                    uint64_t prev, bool rel)
{
    if (packed_acc_is(a, tb, k) && packed_acc_key(a) == desc) {
        packed_acc_made(a, vaddr, prev, rel);
        return;
    }
    a->tb = tb;
    a->k = (uint16_t)k;
    a->n = 0;
    a->desc = desc;
    a->last = vaddr;
    a->stride = 0;
}

/* packed_acc_learn, the slot found from the table. */
static inline void packed_acc_note(struct packed_acc *tab, uint32_t tb,
                                   uint32_t k, uint64_t desc, uint64_t vaddr,
                                   uint64_t prev, bool rel)
{
    packed_acc_learn(packed_acc_at(tab, tb, k), tb, k, desc, vaddr, prev,
                     rel);
}

/* Block tb made m accesses this time: its prediction for the next. */
static inline void packed_acc_end_block(struct packed_acc *tab, uint32_t tb,
                                        uint32_t m)
{
    struct packed_acc *a = packed_acc_at(tab, tb, 0);

    if (packed_acc_is(a, tb, 0)) {
        a->n = m > UINT16_MAX ? UINT16_MAX : (uint16_t)m;
    }
}

/* Forget everything (a new stream, or its restart). */
static inline void packed_acc_reset(struct packed_acc *tab)
{
    memset(tab, 0, PACKED_ACC_SLOTS * sizeof(*tab));
}

#endif /* QTRACE_FORMAT_ACCESS_PRED_H */
