/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The INDEX chunk (docs/format.md, "INDEX chunk"): which events each DATA
 * chunk holds, where it is and how far its vCPU had run. The file writer
 * builds it from the summaries the plugin gives with each chunk; the
 * reader loads it, or rebuilds it by scanning a trace that lacks one.
 * Also the scan both use to find the events of a decoded payload.
 * Single-threaded: owned by one writer or one reader.
 */
#ifndef QTRACE_FORMAT_INDEX_H
#define QTRACE_FORMAT_INDEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "budget.h"
#include "qtrace/catalog.h"
#include "qtrace/format.h"

#define INDEX_WORDS (QTRACE_MAX_EVENTS / 64)    /* u64 words of a mask */
#define INDEX_HDR_SIZE 16u              /* payload header */
#define INDEX_ENTRY_FIXED 32u           /* entry bytes before the mask */
#define INDEX_FOOTER_SIZE 16u           /* chunk offset and the tag */
#define INDEX_TAG "QTRINDEX"            /* 8 bytes, no NUL, ends the file */

/* One DATA chunk, as the index holds it. */
struct index_entry {
    uint64_t off;                       /* file offset of its header */
    uint64_t seq;                       /* its chunk number */
    uint32_t vcpu;
    uint32_t stream;
    uint64_t insns;                     /* vCPU's count at hand-over; 0 */
    uint64_t mask[INDEX_WORDS];         /* bit id: holds event id */
};

struct index {
    struct index_entry *e;
    size_t n;
    size_t cap;
    struct budget *budget;              /* the reader's; NULL: no limit */
    char why[160];                      /* why index_add last failed */
};

/* Event ids of what packets stand for, 0 when the catalog lacks one. */
struct index_ids {
    uint16_t exec_tb;
    uint16_t mem_access;
    uint16_t func_entry;
    uint16_t func_exit;
};

static inline void index_mask_set(uint64_t *mask, unsigned int id)
{
    if (id < QTRACE_MAX_EVENTS) {
        mask[id / 64] |= 1ull << (id % 64);
    }
}

static inline bool index_mask_has(const uint64_t *mask, unsigned int id)
{
    return id < QTRACE_MAX_EVENTS && (mask[id / 64] >> (id % 64)) & 1;
}

/* True when the masks share an event. */
bool index_mask_meets(const uint64_t *a, const uint64_t *b);

/* The ids of a catalog's packet events. */
void index_ids_find(struct index_ids *ids, const struct qtrace_catalog *cat);

/*
 * Set in mask the events of a decoded DATA payload (records, or packets
 * when packed). Returns 0, or -1 when the payload is malformed (what was
 * found before is kept).
 */
int index_scan_payload(const uint8_t *p, size_t len, uint16_t flags,
                       const struct index_ids *ids, uint64_t *mask);

/*
 * index_scan_payload, also giving in *blocks the exec_tb records the
 * block packets stand for (saturating at UINT64_MAX).
 */
int index_scan_blocks(const uint8_t *p, size_t len, uint16_t flags,
                      const struct index_ids *ids, uint64_t *mask,
                      uint64_t *blocks);

/* A record of a payload: its bytes (size from its header, checked). */
typedef void (*index_record_fn)(void *arg, const uint8_t *rec, size_t size);

/*
 * Call fn for every record a decoded DATA payload carries as it is (every
 * record of a raw payload, the record packets of a packed one: what no
 * packet rebuilds), in order, without expanding anything. Returns 0, or
 * -1 when the payload is malformed (fn has seen what came before).
 */
int index_each_record(const uint8_t *p, size_t len, uint16_t flags,
                      index_record_fn fn, void *arg);

/*
 * Append an entry (copied); 0, or -ENOMEM with ix->why saying whether
 * the memory or ix's budget ran out.
 */
int index_add(struct index *ix, const struct index_entry *e);
/* Release the entries; ix is empty again, with the same budget. */
void index_fini(struct index *ix);

/*
 * The payload of an INDEX chunk whose header will be at chunk_off:
 * malloc'd, *len bytes. NULL when out of memory.
 */
uint8_t *index_encode(const struct index *ix, uint64_t chunk_off,
                      size_t *len);

/*
 * Parse an INDEX payload into ix (empty on entry). -EBADMSG when it is
 * malformed, -ENOMEM.
 */
int index_decode(struct index *ix, const uint8_t *p, size_t len);

#endif /* QTRACE_FORMAT_INDEX_H */
