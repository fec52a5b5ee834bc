/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Per-vCPU state, shared by the plugin's execution callbacks (plugin.c,
 * mem.c), and the way they append a record to the running vCPU's buffer.
 */
#ifndef QTRACE_PLUGIN_VCPU_H
#define QTRACE_PLUGIN_VCPU_H

#include <stdbool.h>
#include <stdint.h>

#include "qtrace/format.h"
#include "../calls/calls.h"
#include "../calls/flow.h"
#include "../buffer/vbuf.h"

#define MAX_VCPUS 4096

/*
 * In an array indexed by vCPU index (a __thread variable costs a call per
 * access in a dlopen'd library). Slot i is written only by the thread
 * running vCPU i; cache-line aligned so vCPUs do not share.
 */
struct vcpu {
    struct vbuf buf;
    /*
     * The block callbacks' counters start a cache line of their own,
     * whatever vbuf's size: its tail (park, handovers) is what the
     * writer thread touches.
     */
    uint64_t icount __attribute__((aligned(64)));   /* instructions of
                                                       blocks entered */
    uint64_t tb_time;           /* icount when the current block began */
    uint32_t cur_tb;            /* its id, where accesses are predicted */
    struct calls_hot calls;     /* the call tracker's, if it runs */
    struct flow_hot flow;       /* system mode's block follower's */
    uint32_t events_seen;       /* event switches it has marked
                                   (ctl/ctl-events.h) */
    bool live;
} __attribute__((aligned(64)));

/*
 * Every block callback finds its vCPU as vcpus[index]: at 256 bytes that
 * is one shift, at 320 (five cache lines) one more instruction per block.
 */
_Static_assert(sizeof(struct vcpu) <= 256, "struct vcpu fits 256 bytes");

/* Hidden: a callback reaches it pc-relative, not through the GOT. */
extern struct vcpu vcpus[MAX_VCPUS] __attribute__((visibility("hidden")));

static inline struct vcpu *vcpu_of(unsigned int vcpu_index)
{
    if (__builtin_expect(vcpu_index >= MAX_VCPUS, 0)) {
        return NULL;
    }
    return &vcpus[vcpu_index];
}

/* A record of event id, size bytes, at time: the caller fills the rest. */
static inline void *emit(struct vcpu *vc, uint16_t id, uint32_t size,
                         uint64_t time)
{
    return vbuf_event(&vc->buf, id, size, time);
}

#endif /* QTRACE_PLUGIN_VCPU_H */
