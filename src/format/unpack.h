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

#include "qtrace/catalog.h"

struct unpack_stream;

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

    uint64_t *tb_pc;                /* by translation id */
    uint32_t *tb_insns;
    size_t tb_cap;

    struct unpack_stream **streams; /* by stream id, grown on demand */
    size_t n_streams;
    struct unpack_stream *cur;      /* stream of the current chunk */

    bool skip_blocks;               /* blocks and accesses not wanted:
                                       their packets are stepped over */
    uint32_t pending;               /* predicted blocks still to hand out */
    bool miss;                      /* a missed block follows them */
    int64_t miss_delta;             /* its id minus the block before it */
    uint64_t rec_buf[8];            /* a rebuilt record (64 bytes) */
};

/* Look up the events and fields it rebuilds; -ENOMEM or 0. */
int unpack_init(struct unpacker *u, const struct qtrace_catalog *cat);
void unpack_fini(struct unpacker *u);

/* Forget every stream's state (the reader went back to the start). */
void unpack_reset(struct unpacker *u);

/* A tb_trans record passed by (raw chunk): remember pc and size. */
void unpack_note_tb(struct unpacker *u, const uint8_t *rec);

/* The next chunk is packed and belongs to this stream. 0 or -ENOMEM. */
int unpack_begin(struct unpacker *u, uint32_t stream);

/*
 * Next record from the packet stream at *pp (payload from base to end).
 * Returns 1 with a rebuilt record at *rec (u->rec_buf, *avail bytes), 2
 * for a record carried as is at *rec in the payload with *avail bytes
 * left (the caller checks it and moves *pp past it), 0 when the chunk is
 * used up, -1 with why filled when a packet is malformed or names a block
 * without tb_trans.
 */
int unpack_next(struct unpacker *u, const uint8_t *base, const uint8_t **pp,
                const uint8_t *end, const uint8_t **rec, size_t *avail,
                char *why, size_t why_len);

/*
 * Count the packets from *pp to end without expanding them: block,
 * memory and function packets add to the counts of their events; a record
 * packet stops the walk with 2 and *rec, *avail as unpack_next (the caller
 * checks and counts it, then moves *pp past it). Returns 0 at the end,
 * -1 with why on a malformed packet. *n gets the records counted.
 */
int unpack_count(struct unpacker *u, const uint8_t *base, const uint8_t **pp,
                 const uint8_t *end, uint64_t *counts, uint64_t *n,
                 const uint8_t **rec, size_t *avail, char *why,
                 size_t why_len);

#endif /* QTRACE_FORMAT_UNPACK_H */
