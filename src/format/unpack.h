/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Expanding packed vCPU chunks back into records (docs/format.md, "Packed
 * chunks"): the reader's side of src/format/packed.h. It runs the same
 * block predictor as the plugin, one per stream, and rebuilds exec_tb,
 * mem_access, func_entry and func_exit records with the layouts of the
 * trace's own catalog.
 * Single-threaded, owned by one reader.
 */
#ifndef QTRACE_FORMAT_UNPACK_H
#define QTRACE_FORMAT_UNPACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "budget.h"
#include "idmap.h"
#include "qtrace/catalog.h"

struct unpack_stream;

/*
 * Where unpack_next and unpack_count are in a packed chunk's payload, and
 * what they hand back: one argument, so that a call per record passes
 * little.
 */
struct unpack_cursor {
    const uint8_t *pos;             /* the next packet */
    const uint8_t *end;             /* the end of the payload */
    const uint8_t *base;            /* its start: a record packet's record
                                       starts at a multiple of 8 from it */
    const uint8_t *rec;             /* out: the record handed out */
    size_t avail;                   /* out: bytes readable from rec */
    char why[160];                  /* out: what was found wrong */
};

/* What a tb_trans record said about one translation. */
struct unpack_tb {
    uint64_t pc;
    uint32_t n_insns;               /* 0: no tb_trans seen */
};

/* Where a field of a rebuilt record goes (offsets from the catalog). */
struct unpack_layout {
    uint16_t id;                    /* event id, 0 if the catalog lacks it */
    uint16_t size;                  /* record size, rounded to 8 */
    uint16_t off[7];                /* per field, see unpack.c */
};

struct unpacker {
    struct unpack_layout exec_tb;   /* fields: pc, tb */
    struct unpack_layout mem;       /* pc, vaddr, paddr, size, flags, dev,
                                       value (optional) */
    struct unpack_layout func[2];   /* entry, exit: pc, from/to, depth,
                                       kind */
    bool mem_value;                 /* mem_access has a value argument */
    uint16_t tb_trans_id;
    uint16_t lost_id;               /* a lost record restarts the stream */
    uint16_t lost_insns;            /* offset of its block_insns */
    uint16_t tb_trans_pc, tb_trans_tb, tb_trans_n;   /* field offsets */
    uint16_t tb_trans_size;         /* offset of size, 0 if absent */

    /*
     * Translations by id: the plugin numbers them from 1, so a dense
     * array holds them; it grows only to about twice the translations
     * seen (plus a slack), and an id beyond goes to the sparse map.
     */
    struct unpack_tb *tb_dense;
    size_t tb_cap;                  /* entries of tb_dense */
    size_t tb_known;                /* tb_trans records noted */
    struct idmap tb_sparse;         /* id -> struct unpack_tb */

    struct idmap streams;           /* stream id -> struct unpack_stream * */
    struct unpack_stream *cur;      /* stream of the current chunk */
    struct budget *budget;          /* the reader's, or NULL */

    /*
     * Records the file may still hold: the END chunk's records count
     * when the reader found it at open, less what packets claimed and
     * the reader took from the file so far; UINT64_MAX when unknown. A
     * run longer than that, or one record more, is refused.
     */
    uint64_t records_bound;
    uint64_t records_left;
    uint64_t tb_bound;              /* END's translations=, or UINT64_MAX */

    bool skip_blocks;               /* blocks and accesses not wanted:
                                       their packets are stepped over */
    bool accesses;                  /* the chunk has QTRACE_CHUNK_ACCESSES */
    bool phys;                      /* and QTRACE_CHUNK_PHYS */
    bool access_rel;                /* and QTRACE_CHUNK_ACCESS_REL */
    uint32_t pending;               /* predicted blocks still to hand out */
    bool explicit_next;             /* then a predicted block whose
                                       accesses are packets */
    bool miss;                      /* a missed block follows them */
    int64_t miss_delta;             /* its id minus the block before it */
    uint32_t acc_pending;           /* predicted accesses of the current
                                       block still to hand out */
    uint64_t hits;                  /* accesses of a hits packet still to
                                       hand out */
    uint8_t mem_size[256];          /* packed_mem_size of each info */
    uint8_t mem_flags[256];         /* packed_mem_flags of each info */
    /*
     * Rebuilt records, 64 bytes each: accesses in one, the others in the
     * other, so that neither is cleared at every block (unpack.c,
     * rec_for). rec_holds: what each holds, every field its maker may
     * leave unwritten zero (0: not known); rec_made: the last one made.
     */
    uint64_t rec_buf[2][8];
    uint32_t rec_holds[2];
    const uint8_t *rec_made;
};

/* Whether the record at p is one the unpacker rebuilt. */
static inline bool unpack_rebuilt(const struct unpacker *u, const void *p)
{
    return p == (const void *)u->rec_buf[0] ||
           p == (const void *)u->rec_buf[1];
}

/*
 * Look up the events and fields it rebuilds (catalog-check.c has checked
 * their types); its tables take memory from budget (NULL: none). 0.
 */
int unpack_init(struct unpacker *u, const struct qtrace_catalog *cat,
                struct budget *budget);
void unpack_fini(struct unpacker *u);

/* Forget every stream's state (the reader went back to the start). */
void unpack_reset(struct unpacker *u);

/*
 * What the END chunk declares, or UINT64_MAX: the records the trace holds
 * in all (packets that would expand to more are refused) and the highest
 * translation id (a tb_trans above it is refused).
 */
void unpack_set_bounds(struct unpacker *u, uint64_t records,
                       uint64_t translations);

/*
 * A tb_trans record passed by (checked against its event's fixed size):
 * remember its pc and instruction count. -1 with why filled when its
 * n_insns is over its size (an instruction takes a byte at least) or the
 * memory budget is spent.
 */
int unpack_note_tb(struct unpacker *u, const uint8_t *rec, char *why,
                   size_t why_len);

/*
 * The next chunk is packed (chunk flags: QTRACE_CHUNK_PACKED, maybe
 * QTRACE_CHUNK_ACCESSES and QTRACE_CHUNK_PHYS) and belongs to this stream. 0, or -ENOMEM with
 * why filled.
 */
int unpack_begin(struct unpacker *u, uint32_t stream, uint16_t flags,
                 char *why, size_t why_len);

/* Whether records remain that the chunk's bytes no longer hold. */
static inline bool unpack_has_pending(const struct unpacker *u)
{
    return u->pending || u->explicit_next || u->miss || u->acc_pending ||
           u->hits;
}

/*
 * Next record from the packet stream at c->pos. Returns 1 with a rebuilt
 * record at c->rec (in u->rec_buf, c->avail bytes), 2 for a record carried
 * as is at c->rec in the payload with c->avail bytes left (the caller
 * checks it and moves c->pos past it), 0 when the chunk is used up, -1
 * with c->why filled when a packet is malformed or names a block without
 * tb_trans.
 */
int unpack_next(struct unpacker *u, struct unpack_cursor *c);

/*
 * Count the packets from c->pos without expanding them: block, memory and
 * function packets add to the counts of their events; a record packet
 * stops the walk with 2 and c->rec, c->avail as unpack_next (the caller
 * checks and counts it, then moves c->pos past it). Returns 0 at the end,
 * -1 with c->why on a malformed packet. *n gets the records counted. In a
 * chunk with QTRACE_CHUNK_ACCESSES, whose predicted blocks make accesses
 * only the predictor knows, only up to the stream's first access since
 * its start or last restart: there (or at once, past it) it stops with
 * 3, c->pos on the access's packet, for the caller to count unpack_next's
 * records from there on.
 */
int unpack_count(struct unpacker *u, struct unpack_cursor *c,
                 uint64_t *counts, uint64_t *n);

#endif /* QTRACE_FORMAT_UNPACK_H */
