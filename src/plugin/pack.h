/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Writing packed vCPU chunks (src/format/packed.h, docs/format.md): block
 * executions through the predictor, memory accesses as short packets and
 * every other record wrapped in a record packet. Hot path, inline: no
 * lock, no malloc, no call but the rare chunk hand-over.
 */
#ifndef QTRACE_PLUGIN_PACK_H
#define QTRACE_PLUGIN_PACK_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "../format/packed.h"
#include "vbuf.h"

/* Predictor state of one vCPU stream (docs/format.md). */
struct pack_state {
    uint32_t prev;              /* last block id */
    uint32_t prev2;             /* the one before */
    uint32_t run;               /* predicted blocks not written yet */
    uint64_t last_vaddr;        /* base of the next access's delta */
    uint64_t block_pc;          /* pc of the last block */
    uint32_t slot[PACKED_SLOTS];
};

/* A fresh state for a new stream (zeroed: the reader starts the same). */
static inline void pack_reset(struct pack_state *ps)
{
    memset(ps, 0, sizeof(*ps));
}

/* Shrink the last reservation to end at q (nothing if tracing stopped). */
static inline void pack_commit(struct vbuf *vb, uint8_t *q)
{
    if (vb->chunk) {
        vb->pos = q;
    }
}

/*
 * Every writer below reserves its bytes before it reads the state: with
 * lossy=on a reservation may drop the chunk and reset the state, and the
 * packet must then be made from the new state, as the reader will see it.
 */

/* Write the pending predicted blocks, so that what follows keeps order. */
static inline void pack_flush_run(struct pack_state *ps, struct vbuf *vb)
{
    uint8_t *p;

    if (ps->run == 0) {
        return;
    }
    p = vbuf_reserve(vb, PACKED_BLOCK_MAX);
    *p = PK_RUN;
    pack_commit(vb, packed_put_varint(p + 1, ps->run));
    vbuf_count(vb, ps->run);
    ps->run = 0;
}

/* One executed block: bytes only when the predictor misses. */
static inline void pack_block(struct pack_state *ps, struct vbuf *vb,
                              uint32_t id, uint64_t pc)
{
    if (ps->slot[packed_slot(ps->prev, ps->prev2)] == id) {
        ps->run++;
    } else {
        uint8_t *p = vbuf_reserve(vb, PACKED_BLOCK_MAX);
        int64_t delta = (int64_t)id - (int64_t)ps->prev;

        ps->slot[packed_slot(ps->prev, ps->prev2)] = id;
        if (ps->run <= PK_BLOCK_SHORT_MAX) {
            *p++ = (uint8_t)ps->run;
        } else {
            *p++ = PK_BLOCK;
            p = packed_put_varint(p, ps->run);
        }
        pack_commit(vb, packed_put_varint(p, packed_zigzag(delta)));
        vbuf_count(vb, ps->run + 1);
        ps->run = 0;
    }
    ps->prev2 = ps->prev;
    ps->prev = id;
    ps->block_pc = pc;
}

/*
 * Space for a record of size bytes, wrapped in a record packet: the tag,
 * zeros up to the next multiple of 8 (chunk data is 8-aligned, so the
 * record is too), then the record.
 */
static inline void *pack_record(struct pack_state *ps, struct vbuf *vb,
                                uint32_t size)
{
    uint8_t *p, *rec;

    pack_flush_run(ps, vb);
    p = vbuf_reserve(vb, size + 8);
    rec = (uint8_t *)(((uintptr_t)p + 8) & ~(uintptr_t)7);
    *p = PK_RECORD;
    memset(p + 1, 0, (size_t)(rec - p - 1));
    pack_commit(vb, rec + size);
    vbuf_count(vb, 1);
    return rec;
}

/*
 * Space for one record in vb, whatever the stream's encoding: what every
 * producer of records (plugin.c, calls.c, maps.c) goes through.
 */
static inline void *vbuf_record(struct vbuf *vb, uint32_t size)
{
    void *r;

    if (vb->pack) {
        return pack_record(vb->pack, vb, size);
    }
    r = vbuf_reserve(vb, size);
    vbuf_count(vb, 1);
    return r;
}

/* A user-mode access by instruction idx (at pc) of the current block. */
static inline void pack_mem(struct pack_state *ps, struct vbuf *vb,
                            uint32_t idx, uint64_t pc, uint8_t info,
                            uint64_t vaddr)
{
    uint8_t *p;

    pack_flush_run(ps, vb);
    p = vbuf_reserve(vb, PACKED_MEM_MAX);
    *p++ = PK_MEM;
    p = packed_put_varint(p, idx);
    p = packed_put_varint(p, pc - ps->block_pc);
    *p++ = info;
    p = packed_put_varint(p, packed_zigzag((int64_t)(vaddr -
                                                     ps->last_vaddr)));
    ps->last_vaddr = vaddr;
    pack_commit(vb, p);
    vbuf_count(vb, 1);
}

#endif /* QTRACE_PLUGIN_PACK_H */
