/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The INDEX chunk and the payload scan (see index.h). Payload layout, all
 * little-endian (docs/format.md, "INDEX chunk"):
 *
 *   header  u32 entry_size, u32 n_entries, u16 mask_words, u16 0, u32 0
 *   entry   u64 offset, u64 seq, u32 vcpu, u32 stream, u64 insns,
 *           u64 mask[mask_words]            (n_entries times)
 *   footer  u64 offset of the INDEX chunk's own header, "QTRINDEX"
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "index.h"
#include "le.h"
#include "packed.h"
#include "qtrace/format.h"

bool index_mask_meets(const uint64_t *a, const uint64_t *b)
{
    unsigned int i;

    for (i = 0; i < INDEX_WORDS; i++) {
        if (a[i] & b[i]) {
            return true;
        }
    }
    return false;
}

static uint16_t id_of(const struct qtrace_catalog *cat, const char *name)
{
    const struct qtrace_event_desc *ev = qtrace_catalog_find(cat, name);

    return ev ? (uint16_t)ev->id : 0;
}

void index_ids_find(struct index_ids *ids, const struct qtrace_catalog *cat)
{
    ids->exec_tb = id_of(cat, "exec_tb");
    ids->mem_access = id_of(cat, "mem_access");
    ids->func_entry = id_of(cat, "func_entry");
    ids->func_exit = id_of(cat, "func_exit");
}

static int scan_records(const uint8_t *p, const uint8_t *end, uint64_t *mask)
{
    while (end - p >= (ptrdiff_t)sizeof(struct qtrace_rec)) {
        uint32_t size = load16(p + 2);

        if (size < sizeof(struct qtrace_rec) || size % QTRACE_REC_ALIGN ||
            size > (size_t)(end - p)) {
            return -1;
        }
        index_mask_set(mask, load16(p));
        p += size;
    }
    return p == end ? 0 : -1;
}

/* Skip n varints at *pp; -1 when one is cut. */
static int skip_varints(const uint8_t **pp, const uint8_t *end, int n)
{
    uint64_t v;

    while (n-- > 0) {
        if (packed_get_varint(pp, end, &v) < 0) {
            return -1;
        }
    }
    return 0;
}

/* A block packet: its run (and id) skipped, its blocks added up. */
static int scan_block_packet(uint8_t tag, const uint8_t **pp,
                             const uint8_t *end, uint64_t *blocks)
{
    uint64_t run = tag;

    if ((tag == PK_BLOCK || tag == PK_RUN) &&
        packed_get_varint(pp, end, &run) < 0) {
        return -1;
    }
    /* Saturating: the sum is compared with a bound, never used as is. */
    run += tag != PK_RUN;
    *blocks = run > UINT64_MAX - *blocks ? UINT64_MAX : *blocks + run;
    return tag == PK_RUN ? 0 : skip_varints(pp, end, 1);
}

/*
 * A packet of predicted accesses (QTRACE_CHUNK_ACCESSES): its varint
 * skipped. A block of such a chunk may make accesses too (its predicted
 * ones): scan_packet marks them with every block, which is safe (a mask
 * may say more than a chunk holds, never less).
 */
static int scan_access_packet(uint8_t tag, const uint8_t **pp,
                              const uint8_t *end, uint64_t *blocks)
{
    if (tag == PK_BLOCK_EXPLICIT) {
        return scan_block_packet(PK_BLOCK, pp, end, blocks) < 0 ? -1 : 0;
    }
    if (tag == PK_HITS || tag == PK_DELTA) {
        return skip_varints(pp, end, 1);
    }
    return 0;
}

/*
 * One packet after its tag; returns 0, or -1 when it is malformed. *recp
 * gets the record a record packet carries, NULL for other packets.
 */
static int scan_packet(uint8_t tag, const uint8_t *base, const uint8_t **pp,
                       const uint8_t *end, bool accesses,
                       const struct index_ids *ids, uint64_t *mask,
                       uint64_t *blocks, const uint8_t **recp)
{
    const uint8_t *rec;
    uint32_t size;

    *recp = NULL;

    if (tag <= PK_BLOCK_SHORT_MAX || tag == PK_BLOCK || tag == PK_RUN) {
        index_mask_set(mask, ids->exec_tb);
        if (accesses) {
            index_mask_set(mask, ids->mem_access);
        }
        return scan_block_packet(tag, pp, end, blocks);
    }
    if (accesses && tag == PK_XLATE) {
        /* Only with QTRACE_CHUNK_PHYS; a reader refuses it elsewhere. */
        return skip_varints(pp, end, 1);
    }
    if (accesses && (tag == PK_BLOCK_EXPLICIT || tag == PK_HITS ||
                     tag >= PK_HITS_SHORT)) {
        index_mask_set(mask, ids->exec_tb);
        index_mask_set(mask, ids->mem_access);
        return scan_access_packet(tag, pp, end, blocks);
    }
    if (tag == PK_MEM || tag == PK_MEM_FULL) {
        index_mask_set(mask, ids->mem_access);
        return packed_skip_mem(pp, end, tag == PK_MEM_FULL);
    }
    if (packed_is_func(tag)) {
        index_mask_set(mask, tag >= PK_FUNC_EXIT ? ids->func_exit :
                       ids->func_entry);
        return skip_varints(pp, end, 4);
    }
    if (tag != PK_RECORD) {
        return -1;
    }
    rec = base + (((size_t)(*pp - base) + 7) & ~(size_t)7);
    if (rec > end || end - rec < (ptrdiff_t)sizeof(struct qtrace_rec)) {
        return -1;
    }
    size = load16(rec + 2);
    if (size < sizeof(struct qtrace_rec) || size > (size_t)(end - rec)) {
        return -1;
    }
    index_mask_set(mask, load16(rec));
    *pp = rec + size;
    *recp = rec;
    return 0;
}

int index_scan_blocks(const uint8_t *p, size_t len, uint16_t flags,
                      const struct index_ids *ids, uint64_t *mask,
                      uint64_t *blocks)
{
    const uint8_t *base = p, *end = p + len, *rec;
    bool accesses = flags & QTRACE_CHUNK_ACCESSES;

    *blocks = 0;
    if (!(flags & QTRACE_CHUNK_PACKED)) {
        return scan_records(p, end, mask);
    }
    while (p < end) {
        uint8_t tag = *p++;

        if (scan_packet(tag, base, &p, end, accesses, ids, mask,
                        blocks, &rec) < 0) {
            return -1;
        }
    }
    return 0;
}

int index_each_record(const uint8_t *p, size_t len, uint16_t flags,
                      index_record_fn fn, void *arg)
{
    static const struct index_ids no_ids;
    const uint8_t *base = p, *end = p + len, *rec;
    bool accesses = flags & QTRACE_CHUNK_ACCESSES;
    uint64_t mask[INDEX_WORDS] = { 0 }, blocks = 0;
    uint32_t size;

    if (!(flags & QTRACE_CHUNK_PACKED)) {
        while (end - p >= (ptrdiff_t)sizeof(struct qtrace_rec)) {
            size = load16(p + 2);
            if (size < sizeof(struct qtrace_rec) || size % QTRACE_REC_ALIGN ||
                size > (size_t)(end - p)) {
                return -1;
            }
            fn(arg, p, size);
            p += size;
        }
        return p == end ? 0 : -1;
    }
    while (p < end) {
        uint8_t tag = *p++;

        if (scan_packet(tag, base, &p, end, accesses, &no_ids, mask,
                        &blocks, &rec) < 0) {
            return -1;
        }
        if (rec) {
            fn(arg, rec, (size_t)(p - rec));
        }
    }
    return 0;
}

int index_scan_payload(const uint8_t *p, size_t len, uint16_t flags,
                       const struct index_ids *ids, uint64_t *mask)
{
    uint64_t blocks;

    return index_scan_blocks(p, len, flags, ids, mask, &blocks);
}

int index_add(struct index *ix, const struct index_entry *e)
{
    if (ix->n == ix->cap) {
        size_t cap = ix->cap ? 2 * ix->cap : 256;
        struct index_entry *more;

        if (!budget_take(ix->budget, (cap - ix->cap) * sizeof(*more),
                         ix->why, sizeof(ix->why))) {
            return -ENOMEM;
        }
        more = realloc(ix->e, cap * sizeof(*more));
        if (!more) {
            budget_give(ix->budget, (cap - ix->cap) * sizeof(*more));
            snprintf(ix->why, sizeof(ix->why), "%s", strerror(ENOMEM));
            return -ENOMEM;
        }
        ix->e = more;
        ix->cap = cap;
    }
    ix->e[ix->n++] = *e;
    return 0;
}

void index_fini(struct index *ix)
{
    struct budget *budget = ix->budget;

    budget_give(budget, ix->cap * sizeof(*ix->e));
    free(ix->e);
    memset(ix, 0, sizeof(*ix));
    ix->budget = budget;
}

/* Mask words the file needs: up to the highest event any chunk holds. */
static unsigned int used_words(const struct index *ix)
{
    unsigned int words = 1, w;
    size_t i;

    for (i = 0; i < ix->n; i++) {
        for (w = words; w < INDEX_WORDS; w++) {
            if (ix->e[i].mask[w]) {
                words = w + 1;
            }
        }
    }
    return words;
}

uint8_t *index_encode(const struct index *ix, uint64_t chunk_off,
                      size_t *len)
{
    unsigned int words = used_words(ix), w;
    size_t entry_size = INDEX_ENTRY_FIXED + 8u * words;
    uint8_t *buf, *q;
    size_t i;

    *len = INDEX_HDR_SIZE + ix->n * entry_size + INDEX_FOOTER_SIZE;
    buf = calloc(1, *len);
    if (!buf) {
        return NULL;
    }
    store32(buf, (uint32_t)entry_size);
    store32(buf + 4, (uint32_t)ix->n);
    store16(buf + 8, (uint16_t)words);
    q = buf + INDEX_HDR_SIZE;
    for (i = 0; i < ix->n; i++, q += entry_size) {
        const struct index_entry *e = &ix->e[i];

        store64(q, e->off);
        store64(q + 8, e->seq);
        store32(q + 16, e->vcpu);
        store32(q + 20, e->stream);
        store64(q + 24, e->insns);
        for (w = 0; w < words; w++) {
            store64(q + INDEX_ENTRY_FIXED + 8 * w, e->mask[w]);
        }
    }
    store64(q, chunk_off);
    memcpy(q + 8, INDEX_TAG, 8);
    return buf;
}

int index_decode(struct index *ix, const uint8_t *p, size_t len)
{
    struct index_entry e;
    uint32_t entry_size, n, i, w, words;
    const uint8_t *q;

    if (len < INDEX_HDR_SIZE + INDEX_FOOTER_SIZE) {
        return -EBADMSG;
    }
    entry_size = load32(p);
    n = load32(p + 4);
    words = load16(p + 8);
    /* A later writer may add fields: an entry may be longer, not shorter. */
    if (words == 0 || entry_size < INDEX_ENTRY_FIXED + 8u * words ||
        (len - INDEX_HDR_SIZE - INDEX_FOOTER_SIZE) / entry_size < n) {
        return -EBADMSG;
    }
    if (words > INDEX_WORDS) {
        words = INDEX_WORDS;
    }
    q = p + INDEX_HDR_SIZE;
    for (i = 0; i < n; i++, q += entry_size) {
        memset(&e, 0, sizeof(e));
        e.off = load64(q);
        e.seq = load64(q + 8);
        e.vcpu = load32(q + 16);
        e.stream = load32(q + 20);
        e.insns = load64(q + 24);
        for (w = 0; w < words; w++) {
            e.mask[w] = load64(q + INDEX_ENTRY_FIXED + 8 * w);
        }
        if (index_add(ix, &e) < 0) {
            return -ENOMEM;
        }
    }
    return 0;
}
