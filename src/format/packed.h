/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The packed encoding of vCPU chunks (docs/format.md, "Packed chunks"),
 * shared by the plugin that writes it and the reader that expands it:
 * packet tags, the block predictor both sides run in lock step, and the
 * variable-length integers. Block executions cost bytes only when the
 * predictor misses, the way hardware trace encoders compress branches.
 */
#ifndef QTRACE_FORMAT_PACKED_H
#define QTRACE_FORMAT_PACKED_H

#include <stddef.h>
#include <stdint.h>

#include "qtrace/format.h"

/* chunk_hdr.flags bit: the payload is a packet stream, not records. */
#define QTRACE_CHUNK_PACKED 0x0001u
/*
 * With QTRACE_CHUNK_PACKED: the accesses of the stream's blocks go
 * through the access predictor (access-pred.h): a predicted block makes
 * its predicted accesses, and the access packets below say where an
 * explicit block's accesses were foreseen and where not.
 */
#define QTRACE_CHUNK_ACCESSES 0x0004u
/*
 * With QTRACE_CHUNK_ACCESSES (system mode): every access has a physical
 * address, its virtual one plus the offset the stream's translation
 * cache holds for its page; a translation packet comes first where that
 * offset changes (docs/format.md, "Physical addresses").
 */
#define QTRACE_CHUNK_PHYS 0x0008u
/*
 * With QTRACE_CHUNK_ACCESSES: a static access that misses switches
 * between predicting a stride from its own last address and an offset
 * from the previous access's (access-pred.h, docs/format.md, "Predicted
 * accesses"). Without it, as traces written before it: a stride only.
 */
#define QTRACE_CHUNK_ACCESS_REL 0x0010u

/* The DATA chunk flags a reader knows (QTRACE_CHUNK_ZSTD: zchunk.h). */
#define QTRACE_CHUNK_PACKED_FLAGS                                        \
    (QTRACE_CHUNK_PACKED | QTRACE_CHUNK_ACCESSES | QTRACE_CHUNK_PHYS |     \
     QTRACE_CHUNK_ACCESS_REL)

/*
 * Packets. A block packet names a block the predictor did not foresee,
 * after RUN predicted ones; a record packet carries an ordinary record
 * (8-byte aligned from the payload start); a memory packet is a load or
 * store of the current block in user mode; a function packet is a
 * func_entry or func_exit whose kind is in the tag.
 */
#define PK_BLOCK_SHORT_MAX 0x7fu    /* 0x00..0x7f: run in the tag */
#define PK_BLOCK 0x80u              /* varint run, zigzag id delta */
#define PK_RUN 0x81u                /* varint run: predicted blocks only */
#define PK_RECORD 0x82u             /* padding to 8, then one record */
#define PK_MEM 0x83u                /* see packed_mem_* below */
#define PK_FUNC_ENTRY 0x84u         /* + kind 0..3 */
#define PK_FUNC_EXIT 0x88u          /* + kind 0..3 */
#define PK_FUNC_KINDS 4u
#define PK_MEM_FULL 0x8cu           /* PK_MEM, then paddr and value */
/* QTRACE_CHUNK_ACCESSES chunks only: */
#define PK_BLOCK_EXPLICIT 0x8du     /* varint run, then one more predicted
                                       block whose accesses follow */
#define PK_HITS 0x8eu               /* varint n: n accesses as predicted */
#define PK_XLATE 0x8fu              /* QTRACE_CHUNK_PHYS: zigzag varint,
                                       the next access's page offset minus
                                       the last translation packet's */
#define PK_HITS_SHORT 0x90u         /* + n - 1 for n 1..32 */
#define PK_HITS_SHORT_MAX 32u
#define PK_DELTA_SHORT 0xb0u        /* + zigzag delta 0..0x4e */
#define PK_DELTA_SHORT_MAX 0x4eu
#define PK_DELTA 0xffu              /* varint zigzag delta */

/* Predictor slots per stream: a power of two. */
#define PACKED_SLOTS 16384u

/*
 * Slot of the block that follows prev (itself after prev2). Two blocks of
 * history tell apart the successors of a dispatch block that a single
 * block cannot.
 */
static inline uint32_t packed_slot(uint32_t prev, uint32_t prev2)
{
    uint32_t h = prev * 0x9e3779b1u ^ prev2 * 0x85ebca77u;

    return (h >> 16) & (PACKED_SLOTS - 1);
}

/*
 * The translation cache of a stream with QTRACE_CHUNK_PHYS: per 4 KiB
 * virtual page (hashed to a slot, a power of two), paddr - vaddr. Zero at
 * the start of the stream and at every restart.
 */
#define PACKED_XLATE_SLOTS 1024u
#define PACKED_XLATE_PAGE_BITS 12u

static inline uint32_t packed_xlate_slot(uint64_t vaddr)
{
    return (uint32_t)(vaddr >> PACKED_XLATE_PAGE_BITS) &
           (PACKED_XLATE_SLOTS - 1);
}

/* Worst-case bytes of one block, memory and function packet. */
#define PACKED_BLOCK_MAX 11u
#define PACKED_MEM_MAX 22u
#define PACKED_MEM_FULL_MAX 42u /* PK_MEM's, two more 64-bit varints */
#define PACKED_FUNC_MAX 36u     /* tag, three 64-bit and a 33-bit varint */

/* True if tag starts a function packet. */
static inline int packed_is_func(uint8_t tag)
{
    return tag >= PK_FUNC_ENTRY && tag < PK_FUNC_EXIT + PK_FUNC_KINDS;
}

/* mem packet info byte: log2 size in bits 0-1..., flags above. */
#define PACKED_MEM_SHIFT_MASK 0x07u
#define PACKED_MEM_STORE 0x08u
#define PACKED_MEM_SIGNED 0x10u
#define PACKED_MEM_BIG_ENDIAN 0x20u
/* PK_MEM_FULL only: the optional fields that follow. */
#define PACKED_MEM_HAS_PADDR 0x40u
#define PACKED_MEM_HAS_VALUE 0x80u

/* The mem_access flags (QTRACE_MEM_*) an info byte stands for. */
static inline uint8_t packed_mem_flags(uint8_t info)
{
    return (uint8_t)(((info & PACKED_MEM_STORE) ? QTRACE_MEM_STORE : 0) |
                     ((info & PACKED_MEM_SIGNED) ? QTRACE_MEM_SIGNED : 0) |
                     ((info & PACKED_MEM_BIG_ENDIAN) ?
                      QTRACE_MEM_BIG_ENDIAN : 0) |
                     ((info & PACKED_MEM_HAS_PADDR) ?
                      QTRACE_MEM_HAS_PADDR : 0) |
                     ((info & PACKED_MEM_HAS_VALUE) ?
                      QTRACE_MEM_HAS_VALUE : 0));
}

/* The access size in bytes an info byte stands for. */
static inline uint8_t packed_mem_size(uint8_t info)
{
    return (uint8_t)(1u << (info & PACKED_MEM_SHIFT_MASK));
}

static inline uint8_t *packed_put_varint(uint8_t *p, uint64_t v)
{
    while (v >= 0x80) {
        *p++ = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    *p++ = (uint8_t)v;
    return p;
}

static inline uint64_t packed_zigzag(int64_t v)
{
    return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

static inline int64_t packed_unzigzag(uint64_t v)
{
    return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

/*
 * Read a varint at *pp (not past end). Returns 0 and advances, or -1 on a
 * varint that is cut or longer than 10 bytes.
 */
static inline int packed_get_varint(const uint8_t **pp, const uint8_t *end,
                                    uint64_t *v)
{
    const uint8_t *p = *pp;
    uint64_t out = 0;
    unsigned int shift = 0;

    while (p < end && shift < 70) {
        uint8_t b = *p++;

        out |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) {
            *pp = p;
            *v = out;
            return 0;
        }
        shift += 7;
    }
    return -1;
}

/*
 * Step over a memory packet after its tag (PK_MEM, or PK_MEM_FULL when
 * full): 0, or -1 when it is cut.
 */
static inline int packed_skip_mem(const uint8_t **pp, const uint8_t *end,
                                  int full)
{
    uint64_t v;
    uint8_t info;

    if (packed_get_varint(pp, end, &v) < 0 ||
        packed_get_varint(pp, end, &v) < 0 || *pp >= end) {
        return -1;
    }
    info = *(*pp)++;
    if (packed_get_varint(pp, end, &v) < 0) {
        return -1;
    }
    if (full && (info & PACKED_MEM_HAS_PADDR) &&
        packed_get_varint(pp, end, &v) < 0) {
        return -1;
    }
    if (full && (info & PACKED_MEM_HAS_VALUE) &&
        packed_get_varint(pp, end, &v) < 0) {
        return -1;
    }
    return 0;
}

#endif /* QTRACE_FORMAT_PACKED_H */
