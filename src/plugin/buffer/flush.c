/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The flush interval (see flush.h). Every half interval the writer thread
 * looks at each watched vCPU buffer: one that handed no chunk over since
 * the last look is asked to, by lowering its limit when it runs guest
 * code, or by taking its chunk when it is parked in a system call.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

#include "flush.h"
#include "pack.h"
#include "../core/vcpu.h"

/* What the writer saw of one buffer at its last look. */
struct watched {
    struct vbuf *vb;
    unsigned int handovers;     /* vb->handovers then */
};

static struct {
    pthread_mutex_t lock;       /* serialises flush_watch */
    struct watched list[MAX_VCPUS];
    atomic_size_t n;            /* entries published in list */
    uint64_t half_ns;           /* half the interval; 0: no interval */
    uint64_t deadline_ns;       /* next look */
} fl = {
    .lock = PTHREAD_MUTEX_INITIALIZER,
};

void flush_init(uint32_t interval_ms)
{
    fl.half_ns = (uint64_t)interval_ms * 500000u;
    fl.deadline_ns = fl.half_ns ? flush_now_ns() + fl.half_ns : UINT64_MAX;
}

void flush_watch(struct vbuf *vb)
{
    size_t n;

    pthread_mutex_lock(&fl.lock);
    n = atomic_load_explicit(&fl.n, memory_order_relaxed);
    if (n < MAX_VCPUS) {
        fl.list[n].vb = vb;
        fl.list[n].handovers = atomic_load(&vb->handovers);
        atomic_store_explicit(&fl.n, n + 1, memory_order_release);
    }
    pthread_mutex_unlock(&fl.lock);
}

uint64_t flush_now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/*
 * A buffer that handed nothing over since the last look, half an
 * interval ago, holds records at most that old plus the half interval
 * to come: flushing it now keeps every record under one interval.
 */
static void look_at(struct watched *wt)
{
    unsigned int h = atomic_load_explicit(&wt->vb->handovers,
                                          memory_order_relaxed);

    if (h != wt->handovers) {
        wt->handovers = h;
        return;
    }
    if (!vbuf_flush_parked(wt->vb)) {
        vbuf_ask_flush(wt->vb);
    }
}

uint64_t flush_tick(uint64_t now_ns)
{
    size_t i, n;

    if (now_ns < fl.deadline_ns) {
        return fl.deadline_ns;
    }
    n = atomic_load_explicit(&fl.n, memory_order_acquire);
    for (i = 0; i < n; i++) {
        look_at(&fl.list[i]);
    }
    fl.deadline_ns = now_ns + fl.half_ns;
    return fl.deadline_ns;
}

size_t flush_watched(struct vbuf **out, size_t max)
{
    size_t i, n = atomic_load_explicit(&fl.n, memory_order_acquire);

    for (i = 0; i < n && i < max; i++) {
        out[i] = fl.list[i].vb;
    }
    return i;
}

void flush_ask(struct vbuf *vb)
{
    if (!vbuf_flush_parked(vb)) {
        vbuf_ask_flush(vb);
    }
}

void flush_after_fork_child(void)
{
    size_t i, n = atomic_load(&fl.n);

    pthread_mutex_init(&fl.lock, NULL);
    fl.half_ns = 0;
    fl.deadline_ns = UINT64_MAX;
    for (i = 0; i < n; i++) {
        int taken = VBUF_TAKEN;

        atomic_compare_exchange_strong(&fl.list[i].vb->park, &taken,
                                       VBUF_PARKED);
    }
}
