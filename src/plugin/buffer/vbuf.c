/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The slow side of the per-vCPU buffers (see vbuf.h): chunk hand-over to
 * the writer, once per chunk, on the vCPU's own thread.
 */
#include <sched.h>
#include <stddef.h>
#include <string.h>
#include <time.h>

#include "qtrace/format.h"
#include "pack.h"
#include "stamp.h"
#include "vbuf.h"
#include "writer.h"

/* What every record reads and writes sits in the first cache line. */
_Static_assert(offsetof(struct vbuf, chunk) < 64,
               "struct vbuf: pos and end in one cache line");

/*
 * Records reserved after tracing stopped land here and are counted as
 * lost. Shared by every vCPU and never read, so races on it are harmless.
 */
static uint8_t scratch[QTRACE_REC_MAX + 4 * QTRACE_REC_ALIGN]
    __attribute__((aligned(8)));

/* Generation 0, writing on: what every vbuf starts with. */
atomic_uint vbuf_state = 1;
void (*vbuf_slow_hook)(void);

uint64_t vbuf_clock_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/*
 * A clock record at pos (timeline=on): the caller knows it fits, in the
 * chunk or in its tail room. Written in place, never through
 * vbuf_reserve, whose slow path (the writer may lower end at any moment)
 * would hand the chunk over in the middle of handing it over.
 */
static void put_stamp(struct vbuf *vb, uint64_t ns, uint64_t resume_ns)
{
    vb->pos += stamp_put(vb, vb->pos, ns, resume_ns);
    vb->n_records++;
}

/*
 * A chunk just attached begins with a stamp, after what it must start
 * with (a restart, a switch): the first point its records are placed
 * from. Its fresh room holds it.
 */
static void stamp_begin(struct vbuf *vb)
{
    uint64_t now;

    if (vb->stamps && vb->chunk) {
        now = vbuf_clock_ns();
        put_stamp(vb, now, now);
    }
}

/*
 * A pause ends (vbuf_unpark): its stamp goes into the chunk, into the
 * tail room if the chunk is full, which then ends at the next record.
 * A chunk already into its tail keeps the pause pending: the stamp that
 * ends the chunk says it, nothing being recorded in between. Without a
 * chunk the stamp that ended the one the writer took said it already
 * (or the vCPU records nothing: writing off).
 */
static void stamp_pause(struct vbuf *vb)
{
    struct chunk *c = vb->chunk;

    if (!c) {
        vb->pause_pending = false;
        return;
    }
    if (vb->pos > c->data + c->cap) {
        return;
    }
    put_stamp(vb, vb->park_ns, vbuf_clock_ns());
    vb->pause_pending = false;
    if (vb->pos > c->data + c->cap) {
        vb->end = vb->pos;
    }
}

static void attach(struct vbuf *vb, struct chunk *c)
{
    vb->chunk = c;
    vb->n_records = 0;
    if (!c) {
        /* pos == end: every later reserve comes back here and counts. */
        vb->pos = vb->end = scratch;
        return;
    }
    c->vcpu = vb->vcpu;
    c->stream = vb->stream;
    c->flags = vb->flags;
    c->len = 0;
    c->cut = false;
    c->gen = vbuf_state_gen(atomic_load_explicit(&vb->state,
                                                 memory_order_relaxed));
    c->t0 = vb->icount ? *vb->icount : 0;
    vb->pos = c->data;
    vb->end = c->data + c->cap;
}

static void detach(struct vbuf *vb)
{
    struct chunk *c = vb->chunk;

    if (!c) {
        return;
    }
    if (vb->stamps) {
        uint64_t now = vbuf_clock_ns();

        /*
         * The chunk's last point, in its tail room. A vCPU parked since
         * park_ns (the writer takes its chunk) stood still from then on.
         */
        put_stamp(vb, vb->pause_pending ? vb->park_ns : now, now);
        vb->pause_pending = false;
    }
    c->len = (uint32_t)(vb->pos - c->data);
    c->n_records = vb->n_records;
    /* Once per chunk, for the index: how far the vCPU has run. */
    c->insns = vb->icount ? *vb->icount : 0;
    vb->n_records = 0;
    vb->chunk = NULL;
    vb->pos = vb->end = scratch;
    atomic_fetch_add_explicit(&vb->handovers, 1, memory_order_relaxed);
    writer_chunk_put(c);
}

/*
 * Whether size more bytes fit in the chunk as allocated: true when the
 * slow path was entered only because the writer lowered the limit.
 */
static bool has_room(const struct vbuf *vb, uint32_t size)
{
    return vb->chunk &&
           (size_t)(vb->pos - vb->chunk->data) + size <= vb->chunk->cap;
}

/*
 * A fresh chunk is attached: what it must start with (ring=), then its
 * first stamp (timeline=on).
 */
static void opened(struct vbuf *vb, uint32_t size)
{
    if (vb->on_chunk && vb->chunk) {
        vb->on_chunk(vb, size);
    }
    stamp_begin(vb);
}

void vbuf_start(struct vbuf *vb, uint32_t vcpu, uint32_t stream,
                uint16_t flags)
{
    uint32_t state = atomic_load(&vbuf_state);

    vb->vcpu = vcpu;
    vb->stream = stream;
    vb->flags = flags;
    vb->file_icount = 0;
    vb->stopped = false;
    atomic_store_explicit(&vb->state, state, memory_order_release);
    /* A stream born while writing is off records nothing until on. */
    vb->off = !(state & 1);
    attach(vb, writer_is_stopping() || vb->off ? NULL : writer_chunk_get());
    opened(vb, 0);
    if (!vb->watched) {
        vb->watched = true;
        writer_watch(vb);
    }
}

void vbuf_unpark(struct vbuf *vb)
{
    int state = VBUF_PARKED;

    while (!atomic_compare_exchange_weak_explicit(&vb->park, &state,
                                                  VBUF_RUNNING,
                                                  memory_order_acquire,
                                                  memory_order_relaxed)) {
        if (state == VBUF_RUNNING) {
            return;
        }
        /* TAKEN: the writer is handing the chunk over right now. */
        state = VBUF_PARKED;
        sched_yield();
    }
    if (vb->pause_pending) {
        stamp_pause(vb);
    }
}

bool vbuf_flush_parked(struct vbuf *vb)
{
    int state = VBUF_PARKED;

    if (!atomic_compare_exchange_strong_explicit(&vb->park, &state,
                                                 VBUF_TAKEN,
                                                 memory_order_acquire,
                                                 memory_order_relaxed)) {
        return false;
    }
    /*
     * The vCPU is out of guest code and waits for the vbuf back: its
     * next record attaches a fresh chunk through the slow path.
     */
    if (vb->chunk && vb->pos > vb->chunk->data) {
        detach(vb);
    }
    atomic_store_explicit(&vb->park, VBUF_PARKED, memory_order_release);
    return true;
}

void vbuf_stop(struct vbuf *vb)
{
    detach(vb);
    __atomic_store_n(&vb->stopped, true, __ATOMIC_RELEASE);
}

void vbuf_handover(struct vbuf *vb)
{
    /* A vCPU about to cross hands its chunk over there anyway. */
    if (!vb->chunk || vbuf_must_cross(vb)) {
        return;
    }
    vb->chunk->cut = true;
    detach(vb);
    if (!writer_is_stopping()) {
        attach(vb, writer_chunk_get());
        opened(vb, 0);
    }
}

/*
 * lossy=on and no free chunk: the records of this chunk are given up and
 * it is reused, instead of waiting for the writer.
 */
static void drop_contents(struct vbuf *vb, uint32_t size)
{
    /* A staged stream counts its blocks only on the writer thread. */
    uint64_t lost = (vb->flags & CHUNK_STAGED) ?
        pack_staged_records(vb->chunk->data,
                            (size_t)(vb->pos - vb->chunk->data)) :
        vb->n_records;

    vb->n_records = 0;
    vb->pos = vb->chunk->data;
    vb->chunk->t0 = vb->icount ? *vb->icount : 0;
    writer_count_lost_vcpu(vb->vcpu, lost);
    if (vb->on_drop) {
        vb->on_drop(vb, lost, size);
    }
    /* Its first stamp went with the records: the chunk begins again. */
    stamp_begin(vb);
}

uint32_t vbuf_state_set(bool on)
{
    uint32_t old = atomic_load(&vbuf_state), next;

    do {
        next = ((vbuf_state_gen(old) + 1) << 1) | (on ? 1u : 0u);
    } while (!atomic_compare_exchange_weak(&vbuf_state, &old, next));
    return vbuf_state_gen(next);
}

bool vbuf_state_is_on(void)
{
    return atomic_load(&vbuf_state) & 1;
}

/* A fresh chunk for the current generation, unless tracing has stopped. */
static void attach_next(struct vbuf *vb)
{
    attach(vb, writer_is_stopping() ? NULL : writer_chunk_get());
}

void vbuf_cross(struct vbuf *vb, uint64_t time)
{
    uint32_t state = atomic_load(&vbuf_state);
    bool on = state & 1;

    if (vb->off) {
        /* The new state is published before the chunk is taken. */
        atomic_store_explicit(&vb->state, state, memory_order_release);
        if (on) {
            vb->off = false;
            attach_next(vb);
            if (vb->on_cross && vb->chunk) {
                vb->on_cross(vb, VBUF_CROSS_ON, time);
            }
            stamp_begin(vb);
        }
        return;
    }
    if (!on) {
        /*
         * The switch record ends the run, in a chunk of the old state,
         * queued before the vCPU says it has crossed (see below).
         */
        if (!vb->chunk) {
            attach_next(vb);        /* parked: the writer took its chunk */
            stamp_begin(vb);
        }
        if (vb->on_cross && vb->chunk) {
            vb->on_cross(vb, VBUF_CROSS_OFF, time);
        }
        detach(vb);
        vb->off = true;
        atomic_store_explicit(&vb->state, state, memory_order_release);
        return;
    }
    /*
     * A new file: the old chunk is queued before the vCPU says it has
     * crossed, so a writer that sees the new state has all of the old.
     */
    detach(vb);
    atomic_store_explicit(&vb->state, state, memory_order_release);
    attach_next(vb);
    if (vb->on_cross && vb->chunk) {
        vb->on_cross(vb, VBUF_CROSS_FILE, time);
    }
    stamp_begin(vb);
}

/*
 * A record while writing is off: given up, counted apart from losses
 * (the user asked for it).
 */
static void *discard(struct vbuf *vb)
{
    vb->discarded++;
    vb->pos = vb->end = scratch;
    return scratch;
}

void *vbuf_reserve_slow(struct vbuf *vb, uint32_t size)
{
    bool flush_only;
    uint8_t *p;

    if (vbuf_slow_hook) {
        vbuf_slow_hook();
    }

    /*
     * A stream of blocks crosses at a block start (the caller knows the
     * time, and accesses need their block first); others, and a vCPU
     * back from a park, at any record. A stream of blocks that is off
     * waits for its next block to come back on.
     */
    if (vbuf_must_cross(vb) &&
        (!vb->blocks || (!vb->chunk && !vb->off))) {
        vbuf_cross(vb, vb->icount ? *vb->icount : 0);
    }
    if (vb->off) {
        return discard(vb);
    }
    flush_only = has_room(vb, size);

    if (vb->lossy && vb->chunk && !writer_is_stopping()) {
        struct chunk *next = writer_chunk_try_get();

        if (next) {
            detach(vb);
            attach(vb, next);
            opened(vb, size);
        } else if (flush_only) {
            /* Asked to flush, no chunk to go on with: keep filling. */
            vb->end = vb->chunk->data + vb->chunk->cap;
        } else {
            drop_contents(vb, size);
        }
    } else {
        detach(vb);
        if (!writer_is_stopping()) {
            attach(vb, writer_chunk_get());
            opened(vb, size);
        }
    }
    /* Room after what opened() may have put first. */
    if (!vb->chunk || !has_room(vb, size)) {
        writer_count_lost_vcpu(vb->vcpu, 1);
        return scratch;
    }
    p = vb->pos;
    vb->pos = p + size;
    /*
     * A stream of blocks that has yet to cross: its next block must take
     * the slow path too, however much room the chunk has.
     */
    if (vb->blocks && vbuf_must_cross(vb)) {
        vb->end = vb->pos;
    }
    return p;
}
