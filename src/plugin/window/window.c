/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Tracing windows, the vCPU side (window.h): the per-vCPU window state
 * and the block callbacks that move it. A vCPU's state is written only
 * on its own thread, but for its watch marks, which the control thread
 * and the quiescent point clear to make it look; the translation mode
 * by any vCPU (a compare-and-swap, then a flush) and the quiescent
 * point, read at translation and by the control thread.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../qemu/qemu-plugin.h"
#include "../buffer/ring.h"
#include "../core/tbtab.h"
#include "../buffer/writer.h"
#include "window-int.h"

struct window_global win = {
    .ctl_lock = PTHREAD_MUTEX_INITIALIZER,
};

/* ---- modes ---- */

void window_set_mode(enum window_mode mode)
{
    atomic_store_explicit(&win.mode, mode, memory_order_relaxed);
}

enum window_mode window_translation_mode(void)
{
    return (enum window_mode)atomic_load_explicit(&win.mode,
                                                  memory_order_relaxed);
}

/* From a vCPU: the next translations get mode, the old ones go. */
static void change_mode(enum window_mode from, enum window_mode to)
{
    int expected = from;

    if (atomic_compare_exchange_strong(&win.mode, &expected, to)) {
        win.hooks.ask_flush();
        win.hooks.poll();
    }
}

/* ---- turning a vCPU's records off and on ---- */

/* Records from now on are discarded: the vbuf's trace-file off state. */
static void turn_off(struct vcpu *vc, uint64_t time)
{
    struct vbuf *vb = &vc->buf;

    if (vb->off) {
        return;
    }
    if (win.on_cross) {
        win.on_cross(vb, VBUF_CROSS_OFF, time);
    }
    /* Hands the chunk over; off is set before stopped is cleared. */
    vbuf_stop(vb);
    __atomic_store_n(&vb->off, true, __ATOMIC_RELEASE);
    __atomic_store_n(&vb->stopped, false, __ATOMIC_RELEASE);
}

/* Records again: the next one takes a chunk through the slow path. */
static void turn_on(struct vcpu *vc, uint64_t time)
{
    struct vbuf *vb = &vc->buf;

    /* trace-file off stays in force: its on crosses this vCPU back. */
    if (!vb->off || !vbuf_state_is_on() || vbuf_must_cross(vb)) {
        return;
    }
    __atomic_store_n(&vb->off, false, __ATOMIC_RELEASE);
    if (win.on_cross) {
        win.on_cross(vb, VBUF_CROSS_ON, time);
    }
}

/*
 * trace-file on (or set) turns every vCPU's records back on: one whose
 * window is not open goes off again at once, with no record.
 */
static void window_cross(struct vbuf *vb, enum vbuf_cross how, uint64_t time)
{
    const struct window_vcpu *wv = &win.vcpu[vb->vcpu];

    if (how != VBUF_CROSS_ON || wv->state == WINDOW_OPEN) {
        if (win.on_cross) {
            win.on_cross(vb, how, time);
        }
        return;
    }
    vbuf_stop(vb);
    __atomic_store_n(&vb->off, true, __ATOMIC_RELEASE);
    __atomic_store_n(&vb->stopped, false, __ATOMIC_RELEASE);
}

/* vc's crossings go through window_cross (any thread, once per vCPU). */
static void wrap_cross(struct vcpu *vc)
{
    void (*mine)(struct vbuf *, enum vbuf_cross, uint64_t) = window_cross;

    if (vc->buf.on_cross != mine) {
        win.on_cross = vc->buf.on_cross;
        __atomic_store_n(&vc->buf.on_cross, mine, __ATOMIC_RELEASE);
    }
}

/* ---- watch marks ---- */

void window_store_watch(struct window_vcpu *wv, uint64_t count,
                        uint64_t check)
{
    __atomic_store_n(&wv->watch_count, count, __ATOMIC_RELAXED);
    __atomic_store_n(&wv->watch_check, check, __ATOMIC_RELAXED);
}

/* Whether wv's vCPU has a change of the control's to follow. */
static bool behind_requests(const struct window_vcpu *wv)
{
    return __atomic_load_n(&win.start_gen, __ATOMIC_RELAXED) !=
               wv->seen_start ||
           __atomic_load_n(&win.stop_gen, __ATOMIC_RELAXED) != wv->seen_stop;
}

void window_set_watch(struct window_vcpu *wv)
{
    switch (wv->state) {
    case WINDOW_PENDING:
        /* Addresses and markers: flagged blocks always look. */
        window_store_watch(wv, wv->arm_at, wv->arm_at);
        break;
    case WINDOW_OPEN:
        /* Counting only means the flush has not come: record each block. */
        window_store_watch(wv, 0, wv->stop_at);
        break;
    default:
        window_store_watch(wv, UINT64_MAX, UINT64_MAX);
        break;
    }
    /*
     * A change from the control may have cleared the marks just before
     * they were set: it bumps its generation first, so seeing it here
     * is enough to clear them again.
     */
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    if (behind_requests(wv)) {
        window_store_watch(wv, 0, 0);
    }
}

/* ---- state changes ---- */

/* Whether a closed window opens again at its next start marker. */
static bool reopens(void)
{
    return win.spec.start.how == WHEN_MARKER;
}

/* The count trigger of a pending window, near enough to look. */
static uint64_t arm_point(uint64_t start_count)
{
    return start_count > WINDOW_NEAR_INSNS ?
           start_count - WINDOW_NEAR_INSNS : 0;
}

/*
 * Once no window is open, translation instruments only what a pending
 * window needs, or nothing when none can open again.
 */
static void settle_mode(void)
{
    bool pending = false;
    unsigned int i;

    for (i = 0; i < MAX_VCPUS; i++) {
        unsigned int state;

        if (!__atomic_load_n(&vcpus[i].live, __ATOMIC_ACQUIRE)) {
            continue;
        }
        state = __atomic_load_n(&win.vcpu[i].state, __ATOMIC_RELAXED);
        if (state == WINDOW_OPEN) {
            return;
        }
        pending |= state == WINDOW_PENDING || reopens();
    }
    change_mode(WINDOW_MODE_FULL, pending ? WINDOW_MODE_PENDING :
                                            WINDOW_MODE_DONE);
}

static void __attribute__((noinline))
open_window(struct vcpu *vc, struct window_vcpu *wv, uint64_t start)
{
    wv->opened_at = start;
    wv->stop_at = win.spec.has_stop_after ? start + win.spec.stop_after :
                                            UINT64_MAX;
    __atomic_store_n(&wv->state, WINDOW_OPEN, __ATOMIC_RELAXED);
    window_set_watch(wv);
    turn_on(vc, start);
    change_mode(WINDOW_MODE_PENDING, WINDOW_MODE_FULL);
}

static void __attribute__((noinline))
close_window(struct vcpu *vc, struct window_vcpu *wv, uint64_t start)
{
    __atomic_store_n(&wv->state, WINDOW_CLOSED, __ATOMIC_RELAXED);
    window_set_watch(wv);
    turn_off(vc, start);
    settle_mode();
}

/* A count trigger is near: the block holding it must be instrumented. */
static void __attribute__((noinline)) arm_window(struct window_vcpu *wv)
{
    wv->arm_at = wv->start_count;
    window_set_watch(wv);
    change_mode(WINDOW_MODE_PENDING, WINDOW_MODE_FULL);
}

/*
 * A snapshot trigger: the vCPU's records so far are handed over as the
 * snapshot's last chunk of its stream, and the writer writes the rings
 * (writer_trigger_snapshot). The block at the trigger comes after.
 */
static void __attribute__((noinline)) take_snapshot(struct vcpu *vc)
{
    __atomic_add_fetch(&win.snapshots, 1, __ATOMIC_RELAXED);
    if (!vc->buf.off) {
        vbuf_handover(&vc->buf);
    }
    writer_trigger_snapshot();
}

/* start-at= from now: the window waits for its trigger again. */
static void restart(struct vcpu *vc, struct window_vcpu *wv, uint64_t now)
{
    wv->start_count = win.spec.start.how == WHEN_COUNT ?
                      now + win.spec.start.count : UINT64_MAX;
    wv->arm_at = arm_point(wv->start_count);
    if (win.spec.start.how == WHEN_NONE) {
        return;
    }
    __atomic_store_n(&wv->state, WINDOW_PENDING, __ATOMIC_RELAXED);
    turn_off(vc, now);
}

/* Slow path: follow the control's changes (window-ctl.c). */
static void follow_requests(struct vcpu *vc, struct window_vcpu *wv)
{
    unsigned int start_gen = __atomic_load_n(&win.start_gen,
                                             __ATOMIC_ACQUIRE);
    unsigned int stop_gen = __atomic_load_n(&win.stop_gen, __ATOMIC_ACQUIRE);

    win.hooks.poll();
    if (start_gen == wv->seen_start && stop_gen == wv->seen_stop) {
        return;
    }
    if (start_gen != wv->seen_start) {
        wv->seen_start = start_gen;
        restart(vc, wv, vc->icount);
    }
    if (stop_gen != wv->seen_stop) {
        wv->seen_stop = stop_gen;
        if (wv->state == WINDOW_OPEN && win.spec.has_stop_after) {
            /* "From now": from the start of this block. */
            wv->stop_at = vc->icount + win.spec.stop_after;
        }
    }
    window_set_watch(wv);
}

void window_vcpu_start(struct vcpu *vc, unsigned int vcpu_index)
{
    struct window_vcpu *wv = &win.vcpu[vcpu_index];

    if (!win.active) {
        return;
    }
    wrap_cross(vc);
    wv->seen_start = __atomic_load_n(&win.start_gen, __ATOMIC_ACQUIRE);
    wv->seen_stop = __atomic_load_n(&win.stop_gen, __ATOMIC_ACQUIRE);
    wv->start_count = UINT64_MAX;
    wv->arm_at = UINT64_MAX;
    if (window_translation_mode() == WINDOW_MODE_DONE) {
        /* Every window closed: one started later has none. */
        __atomic_store_n(&wv->state, WINDOW_CLOSED, __ATOMIC_RELAXED);
        turn_off(vc, vc->icount);
    } else if (win.spec.start.how == WHEN_NONE) {
        wv->opened_at = vc->icount;
        wv->stop_at = win.spec.has_stop_after ?
                      vc->icount + win.spec.stop_after : UINT64_MAX;
        __atomic_store_n(&wv->state, WINDOW_OPEN, __ATOMIC_RELAXED);
    } else {
        restart(vc, wv, vc->icount);
    }
    window_set_watch(wv);
}

void window_vcpu_arm(struct vcpu *vc, unsigned int vcpu_index)
{
    struct window_vcpu *wv = &win.vcpu[vcpu_index];

    wrap_cross(vc);
    /* Behind both generations: it follows the armed spec at once. */
    wv->seen_start = __atomic_load_n(&win.start_gen, __ATOMIC_RELAXED) - 1;
    wv->seen_stop = __atomic_load_n(&win.stop_gen, __ATOMIC_RELAXED) - 1;
    wv->opened_at = __atomic_load_n(&vc->icount, __ATOMIC_RELAXED);
    wv->stop_at = UINT64_MAX;
    wv->start_count = UINT64_MAX;
    wv->arm_at = UINT64_MAX;
    __atomic_store_n(&wv->state, WINDOW_OPEN, __ATOMIC_RELAXED);
    window_store_watch(wv, 0, 0);
}

/* ---- the block callbacks ---- */

/* Whether a pending window opens at this block (start: its count). */
static inline bool opens_here(const struct window_vcpu *wv,
                              const struct tb_info *ti, uint64_t start)
{
    if (win.spec.start.how == WHEN_COUNT) {
        return start + ti->n_insns > wv->start_count;
    }
    return ti->flags & TB_F_WIN_START;
}

/*
 * At a block start (start: the vCPU's count there), in the slow path:
 * the snapshot first (it holds what came before this block), then the
 * window's edge. No lock, malloc or syscall but in the noinline edges,
 * which run once per window or trigger.
 */
static inline void step(struct vcpu *vc, struct window_vcpu *wv,
                        const struct tb_info *ti, uint64_t start)
{
    if (__builtin_expect(ti->flags & TB_F_WIN_SNAP, 0)) {
        take_snapshot(vc);
    }
    switch (wv->state) {
    case WINDOW_PENDING:
        if (opens_here(wv, ti, start)) {
            open_window(vc, wv, start);
        } else if (start + ti->n_insns > wv->arm_at) {
            arm_window(wv);
        }
        break;
    case WINDOW_OPEN:
        if (start >= wv->stop_at || (ti->flags & TB_F_WIN_STOP)) {
            close_window(vc, wv, start);
        }
        break;
    default:
        if ((ti->flags & TB_F_WIN_START) && reopens()) {
            open_window(vc, wv, start);
        }
        break;
    }
}

/* window_tb_count past its mark: the window may move. */
static void __attribute__((noinline))
count_slow(unsigned int vcpu_index, void *udata)
{
    const struct tb_info *ti = udata;
    struct vcpu *vc = &vcpus[vcpu_index];
    struct window_vcpu *wv = &win.vcpu[vcpu_index];

    follow_requests(vc, wv);
    step(vc, wv, ti, vc->icount);
    if (__builtin_expect(wv->state == WINDOW_OPEN, 0)) {
        /*
         * Open, and the flush has yet to reach this block: the plugin's
         * callback records it (not its accesses, never instrumented).
         */
        win.hooks.block_cb(vcpu_index, udata);
        return;
    }
    vc->tb_time = vc->icount;
    vc->icount += ti->n_insns;
}

/*
 * Hot path: a compare and two stores; the slow path is a tail call, so
 * that this one saves no registers. No lock, malloc or syscall.
 */
void window_tb_count(unsigned int vcpu_index, void *udata)
{
    const struct tb_info *ti = udata;
    struct vcpu *vc = vcpu_of(vcpu_index);
    uint64_t start;

    if (!vc) {
        return;
    }
    start = vc->icount;
    if (__builtin_expect(start + ti->n_insns >
                         __atomic_load_n(&win.vcpu[vcpu_index].watch_count,
                                         __ATOMIC_RELAXED), 0)) {
        count_slow(vcpu_index, udata);
        return;
    }
    vc->tb_time = start;
    vc->icount = start + ti->n_insns;
}

static void __attribute__((noinline))
check_slow(unsigned int vcpu_index, void *udata)
{
    struct vcpu *vc = &vcpus[vcpu_index];

    follow_requests(vc, &win.vcpu[vcpu_index]);
    step(vc, &win.vcpu[vcpu_index], udata, vc->icount);
}

/*
 * Hot path, before the plugin's block callback: a compare. Blocks that
 * hold a trigger have window_tb_trigger instead, so that no other block
 * pays for testing their flags.
 */
static inline void check(unsigned int vcpu_index, void *udata)
{
    const struct tb_info *ti = udata;
    struct vcpu *vc = vcpu_of(vcpu_index);

    if (vc && __builtin_expect(vc->icount + ti->n_insns >
                               __atomic_load_n(
                                   &win.vcpu[vcpu_index].watch_check,
                                   __ATOMIC_RELAXED), 0)) {
        check_slow(vcpu_index, udata);
    }
}

void window_tb_trigger(unsigned int vcpu_index, void *udata)
{
    if (vcpu_of(vcpu_index)) {
        check_slow(vcpu_index, udata);
    }
}

void window_tb_check(unsigned int vcpu_index, void *udata)
{
    check(vcpu_index, udata);
}

/*
 * The same and then the plugin's block callback, as a tail call: one
 * callback from QEMU instead of two (each a call out of translated
 * code) for blocks whose callback does not depend on the block.
 */
void window_tb_exec(unsigned int vcpu_index, void *udata)
{
    check(vcpu_index, udata);
    win.hooks.block_cb(vcpu_index, udata);
}
