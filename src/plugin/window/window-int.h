/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the parts of the window share (window.c: the vCPU side;
 * window-trans.c: translation; window-ctl.c: control commands and the
 * quiescent point). Nothing outside src/plugin/window/ includes it.
 */
#ifndef QTRACE_PLUGIN_WINDOW_INT_H
#define QTRACE_PLUGIN_WINDOW_INT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "../buffer/pack.h"     /* before vcpu.h, whose emit needs it */
#include "../buffer/vbuf.h"
#include "../core/vcpu.h"
#include "marker.h"
#include "window.h"

/* tb_info flags (tbtab.h) of the triggers a block holds. */
#define TB_F_WIN_START 0x100u   /* opens a pending window */
#define TB_F_WIN_STOP 0x200u    /* closes an open one */
#define TB_F_WIN_SNAP 0x400u    /* writes the rings */

enum window_state {
    WINDOW_PENDING,             /* before the trigger: records discarded */
    WINDOW_OPEN,                /* recording */
    WINDOW_CLOSED,              /* after it: records discarded */
};

/*
 * One vCPU's window, written by its own thread (the marks also cleared
 * by the quiescent point and the control thread). The block callbacks
 * compare the end of each block with a watch mark, and test the
 * block's trigger flags, and leave everything else to a slow path; the
 * marks follow the state (window_set_watch).
 */
struct window_vcpu {
    uint64_t watch_count;       /* window_tb_count looks past this end */
    uint64_t watch_check;       /* window_tb_check looks past this end */
    uint8_t state;              /* enum window_state */
    unsigned int seen_start;    /* the last start_gen followed */
    unsigned int seen_stop;     /* the last stop_gen followed */
    uint64_t start_count;       /* start-at=N: the icount that opens */
    uint64_t arm_at;            /* icount that asks for full translation */
    uint64_t opened_at;         /* icount at the window's first block */
    uint64_t stop_at;           /* icount where it closes (UINT64_MAX) */
} __attribute__((aligned(64)));

struct window_global {
    struct window_spec spec;    /* in force (the quiescent point writes) */
    bool active;                /* a window or trigger is armed */
    bool system_mode;
    bool resolved;              /* window_resolve has run */
    struct window_hooks hooks;
    marker_decode_fn decode;    /* the target's markers, or NULL */
    /* The plugin's crossing (ctl-switch.h), which window_cross wraps. */
    void (*on_cross)(struct vbuf *vb, enum vbuf_cross how, uint64_t time);
    _Atomic int mode;           /* enum window_mode */
    unsigned int start_gen;     /* start-at changed from now */
    unsigned int stop_gen;      /* stop-after changed from now */
    uint64_t snapshots;         /* snapshot triggers fired */
    /* Control commands waiting for the quiescent point (window-ctl.c). */
    pthread_mutex_t ctl_lock;
    struct window_spec asked;   /* the spec they ask for */
    bool asked_start;           /* start-at asked: windows restart */
    bool asked_stop_after;      /* stop-after asked */
    unsigned int asked_gen;     /* bumped at each command */
    unsigned int applied_gen;   /* the last applied */
    struct window_vcpu vcpu[MAX_VCPUS];
};

extern struct window_global win;

/* Count triggers this close ask for full translation (window.c). */
#define WINDOW_NEAR_INSNS 4096

/* The marks of wv's state (window.c). */
void window_set_watch(struct window_vcpu *wv);
void window_store_watch(struct window_vcpu *wv, uint64_t count,
                        uint64_t check);

/* Any thread: the next translations get mode (window.c). */
void window_set_mode(enum window_mode mode);

/*
 * A live vCPU's window at arming time (window.c): open, as a run
 * without a window records, until the vCPU follows the armed spec.
 */
void window_vcpu_arm(struct vcpu *vc, unsigned int vcpu_index);

/*
 * The address of a symbol of the guest program (window-trans.c): 0, or
 * -1 with err saying why. User mode only.
 */
int window_find_symbol(const char *name, uint64_t *addr,
                       struct qtrace_err *err);

#endif /* QTRACE_PLUGIN_WINDOW_INT_H */
