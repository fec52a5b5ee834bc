/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Tracing windows (window.h): the per-vCPU window state and the block
 * callbacks that move it. A vCPU's state is written only on its own
 * thread, but for its watch marks, which the control thread clears to
 * make it look (window_set_stop); the translation mode by any vCPU (a
 * compare-and-swap, then a flush), read at translation and by the
 * control thread.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qtrace/symbols.h"
#include "../qemu/qemu-plugin.h"
#include "pack.h"
#include "tbtab.h"
#include "vbuf.h"
#include "vcpu.h"
#include "window.h"

/*
 * A pending count trigger this close switches translation to full
 * instrumentation, so that the block holding it is instrumented in full
 * when it runs: more than the longest block (TCG's 512 instructions),
 * with room for the flush to take effect.
 */
#define WINDOW_NEAR_INSNS 4096

enum window_state {
    WINDOW_PENDING,             /* before the trigger: records discarded */
    WINDOW_OPEN,                /* recording */
    WINDOW_CLOSED,              /* after stop-after=: records discarded */
};

/*
 * One vCPU's window, written by its own thread (the marks also cleared
 * by the control thread). The block callbacks
 * compare the end of each block with a watch mark and leave everything
 * else to a slow path; the marks follow the state (set_watch).
 */
struct window_vcpu {
    uint64_t watch_count;       /* window_tb_count looks past this end */
    uint64_t watch_check;       /* window_tb_check looks past this end */
    uint8_t state;              /* enum window_state */
    unsigned int seen_gen;      /* the last req_gen applied */
    uint64_t arm_at;            /* icount that asks for full translation */
    uint64_t opened_at;         /* icount at the window's first block */
    uint64_t stop_at;           /* icount where it closes (UINT64_MAX) */
} __attribute__((aligned(64)));

static struct {
    struct window_spec spec;    /* copy of the options (sym not owned) */
    bool active;                /* start-at= or stop-after= given */
    bool system_mode;
    bool addr_known;            /* spec.start_addr is the trigger */
    bool resolved;              /* window_resolve has run */
    void (*flush)(void);        /* the plugin's flush from a vCPU */
    qemu_plugin_vcpu_udata_cb_t block_cb;   /* the plugin's block cb */
    /* The plugin's crossing (ctl-switch.h), which window_cross wraps. */
    void (*on_cross)(struct vbuf *vb, enum vbuf_cross how, uint64_t time);
    _Atomic int mode;           /* enum window_mode */
    unsigned int req_gen;       /* control's changes (window_set_stop) */
    struct window_vcpu vcpu[MAX_VCPUS];
} win;

/* ---- setup and translation ---- */

static void set_mode(enum window_mode mode)
{
    atomic_store_explicit(&win.mode, mode, memory_order_relaxed);
}

enum window_mode window_translation_mode(void)
{
    return (enum window_mode)atomic_load_explicit(&win.mode,
                                                  memory_order_relaxed);
}

void window_setup(const struct window_spec *spec, bool system_mode,
                  void (*flush)(void), qemu_plugin_vcpu_udata_cb_t block_cb)
{
    win.active = spec->has_start || spec->has_stop;
    if (!win.active) {
        set_mode(WINDOW_MODE_NONE);
        return;
    }
    win.spec = *spec;
    win.system_mode = system_mode;
    win.flush = flush;
    win.block_cb = block_cb;
    win.addr_known = spec->has_start && !spec->start_is_count &&
                     !spec->start_sym;
    /*
     * Counting alone until a trigger is near; a count trigger this close
     * to the start, or no trigger at all, needs everything at once.
     */
    if (!spec->has_start ||
        (spec->start_is_count && spec->start_count < WINDOW_NEAR_INSNS)) {
        set_mode(WINDOW_MODE_FULL);
    } else {
        set_mode(WINDOW_MODE_PENDING);
    }
}

/* The run-time address of the program's symbol name, or false. */
static bool find_program_symbol(struct qtrace_symbols *syms,
                                const char *name, uint64_t *addr)
{
    size_t i, j, n = qtrace_symbols_n_images(syms);

    for (i = 0; i < n; i++) {
        struct qtrace_image im;

        qtrace_symbols_image(syms, i, &im);
        for (j = 0; im.loaded && j < im.n_syms; j++) {
            if (strcmp(im.syms[j].name, name) == 0) {
                *addr = im.syms[j].addr + im.bias;
                return true;
            }
        }
    }
    return false;
}

void window_resolve(void)
{
    struct qtrace_symbols *syms;
    struct qtrace_err err = { "" };
    const char *path;

    if (!win.active || win.resolved || !win.spec.start_sym) {
        return;
    }
    win.resolved = true;
    if (win.system_mode) {
        fprintf(stderr, "qtrace: start-at=%s: symbols are known in user "
                "mode only (give 0xADDRESS); nothing is recorded\n",
                win.spec.start_sym);
        return;
    }
    path = qemu_plugin_path_to_binary();
    syms = qtrace_symbols_new();
    if (syms && path &&
        qtrace_symbols_add_program(syms, path, qemu_plugin_start_code(),
                                   &err) >= 0 &&
        find_program_symbol(syms, win.spec.start_sym,
                            &win.spec.start_addr)) {
        win.addr_known = true;
    } else {
        fprintf(stderr, "qtrace: start-at=%s: %s%s; nothing is recorded\n",
                win.spec.start_sym, err.msg[0] ? err.msg : "no such symbol "
                "in ", err.msg[0] ? "" : (path ? path : "the program"));
    }
    qtrace_symbols_free(syms);
    free((void *)path);     /* glib-allocated; g_free is free */
}

/* The block [pc, pc + size) holds the start-at= address. */
static inline bool holds_trigger(const struct tb_info *ti)
{
    return win.addr_known && win.spec.start_addr - ti->pc < ti->size;
}

bool window_tb_has_trigger(const struct tb_info *ti)
{
    return win.active && holds_trigger(ti);
}

/* ---- the vCPU side ---- */

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

/* The marks of wv's state (see struct window_vcpu). */
static void store_watch(struct window_vcpu *wv, uint64_t count,
                        uint64_t check)
{
    __atomic_store_n(&wv->watch_count, count, __ATOMIC_RELAXED);
    __atomic_store_n(&wv->watch_check, check, __ATOMIC_RELAXED);
}

static void set_watch(struct window_vcpu *wv)
{
    bool by_count = win.spec.has_start && win.spec.start_is_count;

    switch (wv->state) {
    case WINDOW_PENDING:
        /* An address is checked in every block that has the callback. */
        store_watch(wv, by_count ? wv->arm_at : UINT64_MAX,
                    by_count ? wv->arm_at : 0);
        break;
    case WINDOW_OPEN:
        /* Counting only means the flush has not come: record each block. */
        store_watch(wv, 0, wv->stop_at);
        break;
    default:
        store_watch(wv, UINT64_MAX, UINT64_MAX);
        break;
    }
    /*
     * A change from the control thread may have cleared the marks just
     * before they were set: it bumps req_gen first, so seeing it here is
     * enough to clear them again (window_set_stop).
     */
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    if (__atomic_load_n(&win.req_gen, __ATOMIC_RELAXED) != wv->seen_gen) {
        store_watch(wv, 0, 0);
    }
}

/* Slow path: follow the control thread's changes (window_set_stop). */
static void follow_requests(struct vcpu *vc, struct window_vcpu *wv)
{
    unsigned int gen = __atomic_load_n(&win.req_gen, __ATOMIC_ACQUIRE);

    if (gen == wv->seen_gen) {
        return;
    }
    wv->seen_gen = gen;
    if (wv->state == WINDOW_OPEN) {
        /* "From now": from the start of this block. */
        wv->stop_at = vc->icount + __atomic_load_n(&win.spec.stop_after,
                                                   __ATOMIC_RELAXED);
    }
    set_watch(wv);
}

/* Whether a live vCPU's window is not closed yet. */
static bool any_window_left(void)
{
    unsigned int i;

    for (i = 0; i < MAX_VCPUS; i++) {
        if (__atomic_load_n(&vcpus[i].live, __ATOMIC_ACQUIRE) &&
            __atomic_load_n(&win.vcpu[i].state, __ATOMIC_RELAXED) !=
                WINDOW_CLOSED) {
            return true;
        }
    }
    return false;
}

/* From a vCPU: the next translations get mode, the old ones go. */
static void change_mode(enum window_mode from, enum window_mode to)
{
    int expected = from;

    if (atomic_compare_exchange_strong(&win.mode, &expected, to) &&
        win.flush) {
        win.flush();
    }
}

static void __attribute__((noinline))
open_window(struct vcpu *vc, struct window_vcpu *wv, uint64_t start)
{
    wv->opened_at = start;
    wv->stop_at = __atomic_load_n(&win.spec.has_stop, __ATOMIC_ACQUIRE) ?
                  start + __atomic_load_n(&win.spec.stop_after,
                                          __ATOMIC_RELAXED) : UINT64_MAX;
    __atomic_store_n(&wv->state, WINDOW_OPEN, __ATOMIC_RELAXED);
    set_watch(wv);
    turn_on(vc, start);
    change_mode(WINDOW_MODE_PENDING, WINDOW_MODE_FULL);
}

static void __attribute__((noinline))
close_window(struct vcpu *vc, struct window_vcpu *wv, uint64_t start)
{
    __atomic_store_n(&wv->state, WINDOW_CLOSED, __ATOMIC_RELAXED);
    set_watch(wv);
    turn_off(vc, start);
    if (!any_window_left()) {
        change_mode(WINDOW_MODE_FULL, WINDOW_MODE_DONE);
    }
}

/* A count trigger is near: the block holding it must be instrumented. */
static void __attribute__((noinline)) arm_window(struct window_vcpu *wv)
{
    wv->arm_at = win.spec.start_count;
    set_watch(wv);
    change_mode(WINDOW_MODE_PENDING, WINDOW_MODE_FULL);
}

void window_vcpu_start(struct vcpu *vc, unsigned int vcpu_index)
{
    struct window_vcpu *wv = &win.vcpu[vcpu_index];

    if (!win.active) {
        return;
    }
    if (vc->buf.on_cross != window_cross) {
        win.on_cross = vc->buf.on_cross;
        vc->buf.on_cross = window_cross;
    }
    wv->arm_at = UINT64_MAX;
    if (win.spec.has_start && win.spec.start_is_count) {
        wv->arm_at = win.spec.start_count > WINDOW_NEAR_INSNS ?
                     win.spec.start_count - WINDOW_NEAR_INSNS : 0;
    }
    if (window_translation_mode() == WINDOW_MODE_DONE) {
        /* Every window closed: one started later has none. */
        __atomic_store_n(&wv->state, WINDOW_CLOSED, __ATOMIC_RELAXED);
        turn_off(vc, vc->icount);
    } else if (!win.spec.has_start) {
        wv->opened_at = vc->icount;
        wv->stop_at = vc->icount + win.spec.stop_after;
        __atomic_store_n(&wv->state, WINDOW_OPEN, __ATOMIC_RELAXED);
    } else {
        __atomic_store_n(&wv->state, WINDOW_PENDING, __ATOMIC_RELAXED);
        turn_off(vc, vc->icount);
    }
    set_watch(wv);
}

/*
 * Hot path, at a block start (start: the vCPU's count there): one or
 * two compares while pending or open; no lock, malloc or syscall but in
 * the noinline edges, which run once per window.
 */
static inline void step(struct vcpu *vc, struct window_vcpu *wv,
                        const struct tb_info *ti, uint64_t start)
{
    switch (wv->state) {
    case WINDOW_PENDING:
        if (win.spec.start_is_count ?
            start + ti->n_insns > win.spec.start_count : holds_trigger(ti)) {
            open_window(vc, wv, start);
        } else if (start + ti->n_insns > wv->arm_at) {
            arm_window(wv);
        }
        break;
    case WINDOW_OPEN:
        if (__builtin_expect(start >= wv->stop_at, 0)) {
            close_window(vc, wv, start);
        }
        break;
    default:
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
        win.block_cb(vcpu_index, udata);
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

/* Hot path, before the plugin's block callback: a compare. */
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
    win.block_cb(vcpu_index, udata);
}

/* ---- control ---- */

int window_set_stop(uint64_t stop_after)
{
    unsigned int i;

    if (!win.active) {
        return -ENOENT;
    }
    if (window_translation_mode() == WINDOW_MODE_DONE) {
        return -ESRCH;
    }
    __atomic_store_n(&win.spec.stop_after, stop_after, __ATOMIC_RELAXED);
    __atomic_store_n(&win.spec.has_stop, true, __ATOMIC_RELEASE);
    __atomic_add_fetch(&win.req_gen, 1, __ATOMIC_SEQ_CST);
    /* Each vCPU's next block takes the slow path and follows. */
    for (i = 0; i < MAX_VCPUS; i++) {
        if (__atomic_load_n(&vcpus[i].live, __ATOMIC_ACQUIRE)) {
            store_watch(&win.vcpu[i], 0, 0);
        }
    }
    return 0;
}

static const char *mode_name(enum window_mode mode)
{
    static const char *const names[] = {
        [WINDOW_MODE_NONE] = "none", [WINDOW_MODE_PENDING] = "pending",
        [WINDOW_MODE_FULL] = "full", [WINDOW_MODE_DONE] = "done",
    };

    return names[mode];
}

static const char *state_name(unsigned int state)
{
    static const char *const names[] = {
        [WINDOW_PENDING] = "pending", [WINDOW_OPEN] = "open",
        [WINDOW_CLOSED] = "closed",
    };

    return state <= WINDOW_CLOSED ? names[state] : "?";
}

static int fmt_start(char *buf, size_t len)
{
    if (!win.spec.has_start) {
        return snprintf(buf, len, "start-at none\n");
    }
    if (win.spec.start_is_count) {
        return snprintf(buf, len, "start-at %" PRIu64 "\n",
                        win.spec.start_count);
    }
    if (win.spec.start_sym && !win.addr_known) {
        return snprintf(buf, len, "start-at %s (unresolved)\n",
                        win.spec.start_sym);
    }
    return snprintf(buf, len, "start-at %s%s0x%" PRIx64 "\n",
                    win.spec.start_sym ? win.spec.start_sym : "",
                    win.spec.start_sym ? " " : "", win.spec.start_addr);
}

/* One line per live vCPU (the first 64): state, opened at, stops at. */
static size_t fmt_vcpus(char *buf, size_t len)
{
    size_t n = 0;
    unsigned int i, shown = 0;

    for (i = 0; i < MAX_VCPUS && shown < 64 && n < len; i++) {
        const struct window_vcpu *wv = &win.vcpu[i];
        unsigned int state;

        if (!__atomic_load_n(&vcpus[i].live, __ATOMIC_ACQUIRE)) {
            continue;
        }
        shown++;
        state = __atomic_load_n(&wv->state, __ATOMIC_RELAXED);
        n += (size_t)snprintf(buf + n, len - n, "vcpu%u %s", i,
                              state_name(state));
        if (n < len && state != WINDOW_PENDING) {
            n += (size_t)snprintf(buf + n, len - n, " opened %" PRIu64,
                                  wv->opened_at);
        }
        if (n < len && state != WINDOW_PENDING &&
            wv->stop_at != UINT64_MAX) {
            n += (size_t)snprintf(buf + n, len - n, " stop %" PRIu64,
                                  wv->stop_at);
        }
        if (n < len) {
            n += (size_t)snprintf(buf + n, len - n, " icount %" PRIu64 "\n",
                                  __atomic_load_n(&vcpus[i].icount,
                                                  __ATOMIC_RELAXED));
        }
    }
    return n;
}

void window_fmt(char *buf, size_t len)
{
    size_t n = 0;

    if (!win.active) {
        snprintf(buf, len, "start-at none\nstop-after none\nmode none\n");
        return;
    }
    n += (size_t)fmt_start(buf, len);
    if (n < len && win.spec.has_stop) {
        n += (size_t)snprintf(buf + n, len - n, "stop-after %" PRIu64 "\n",
                              win.spec.stop_after);
    } else if (n < len) {
        n += (size_t)snprintf(buf + n, len - n, "stop-after none\n");
    }
    if (n < len) {
        n += (size_t)snprintf(buf + n, len - n, "mode %s\n",
                              mode_name(window_translation_mode()));
    }
    if (n < len) {
        fmt_vcpus(buf + n, len - n);
    }
}
