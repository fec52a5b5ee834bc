/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The records of a switch (see ctl-switch.h and docs/control.md): a
 * trace_switch record, and in a packed stream that starts again a lost
 * record of 0 records first, the format's way of restarting a packed
 * stream at a given time (docs/format.md, "Loss"): the predictor and the
 * deltas start from zero on both sides, so that a new file reads on its
 * own and blocks after a pause get their true times.
 */
#include <stddef.h>

#include "qtrace-events.h"
#include "../buffer/pack.h"
#include "../core/vcpu.h"
#include "../buffer/writer.h"
#include "ctl-switch.h"

static struct vcpu *vcpu_of_buf(struct vbuf *vb)
{
    return (struct vcpu *)((char *)vb - offsetof(struct vcpu, buf));
}

/* The stream starts over at time: next block at time, deltas from 0. */
static void restart_stream(struct vcpu *vc, uint64_t time)
{
    struct qtrace_ev_lost *r;

    pack_reset(vc->buf.pack);
    r = emit(vc, QTRACE_EV_LOST, sizeof(*r), time);
    r->records = 0;
    r->block_insns = 0;
}

void ctl_switch_cross(struct vbuf *vb, enum vbuf_cross how, uint64_t time)
{
    struct vcpu *vc = vcpu_of_buf(vb);
    struct qtrace_ev_trace_switch *r;

    if (how == VBUF_CROSS_FILE) {
        /* END's insns= of the old file: this stream's part of it. */
        writer_insns_add(time - vb->file_icount);
        vb->file_icount = time;
    }
    r = emit(vc, QTRACE_EV_TRACE_SWITCH, sizeof(*r), time);
    r->vcpu = vb->vcpu;
    r->on = how != VBUF_CROSS_OFF;
    /* After the switch record: nothing but it lies between off and on. */
    if (how != VBUF_CROSS_OFF && vb->pack) {
        restart_stream(vc, time);
    }
}

uint64_t ctl_switch_file_insns(const struct vbuf *vb, uint64_t icount)
{
    return icount - vb->file_icount;
}

uint64_t ctl_switch_insns_now(void)
{
    uint64_t sum = 0;
    unsigned int i;

    /* Racy reads of other threads' counters: a snapshot, not a total. */
    for (i = 0; i < MAX_VCPUS; i++) {
        sum += __atomic_load_n(&vcpus[i].icount, __ATOMIC_RELAXED);
    }
    return sum;
}
