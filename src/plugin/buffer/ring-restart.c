/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The restart at the start of each chunk of a packed stream under ring=
 * (see ring-restart.h), on the vCPU's thread. The writer's predictor
 * resets at the lost record too (pack.c), so no chunk depends on the
 * one before it, on either side.
 */
#include <stddef.h>

#include "qtrace-events.h"
#include "pack.h"
#include "ring-restart.h"
#include "../core/vcpu.h"

void ring_restart(struct vbuf *vb, uint32_t size)
{
    struct vcpu *vc = (struct vcpu *)((char *)vb - offsetof(struct vcpu,
                                                            buf));
    struct qtrace_ev_lost *r;
    uint64_t time = vc->tb_time;
    uint32_t block_insns;

    if (!vb->pack || !vb->chunk) {
        return;         /* raw records carry all they need */
    }
    /*
     * A staged block (the only 4-byte reservation) is the block starting
     * at tb_time: it comes next. Anything else comes within the block
     * that started at tb_time (its accesses count from there, relative
     * to pc 0 after the reset) and the next block starts at icount.
     */
    block_insns = size == STAGED_WORD ? 0 :
                  (uint32_t)(vc->icount - vc->tb_time);
    if (!vb->blocks) {
        /* No block to place: the record marks the moment, no more. */
        time = vc->icount;
        block_insns = 0;
    }
    pack_reset(vb->pack);
    r = emit(vc, QTRACE_EV_LOST, sizeof(*r), time);
    r->records = 0;
    r->block_insns = block_insns;
    if (vb->blocks && block_insns && (vb->flags & QTRACE_CHUNK_ACCESSES)) {
        /* Accesses of the block in progress follow: its pc. */
        pack_context(vb, vc->cur_tb);
    }
}
