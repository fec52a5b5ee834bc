/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Tracing windows (start-at=, stop-after=): each vCPU records only from
 * its trigger (an instruction count, or the first execution of a guest
 * address) for a number of instructions. Outside its window a vCPU's
 * record buffer is off (its records are discarded, trace_switch records
 * mark the edges), and translation instruments as little as the window
 * still needs: counting while every window is pending, nothing once
 * every window has closed. The block callbacks here run on vCPU threads;
 * the mode changes they decide on take effect through a translation
 * flush. See docs/cli.md, "Tracing windows".
 */
#ifndef QTRACE_PLUGIN_WINDOW_H
#define QTRACE_PLUGIN_WINDOW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "qtrace/err.h"
#include "../qemu/qemu-plugin.h"

struct tb_info;
struct vcpu;

/* The options as given (options.c fills it, window_setup reads it). */
struct window_spec {
    bool has_start;             /* start-at= given */
    bool start_is_count;        /* start-at=N, else an address or symbol */
    uint64_t start_count;       /* start-at=N: instructions before it */
    uint64_t start_addr;        /* start-at=0xADDR */
    char *start_sym;            /* start-at=SYMBOL (owned), else NULL */
    bool has_stop;              /* stop-after= given */
    uint64_t stop_after;        /* stop-after=N: instructions recorded */
};

/* Whether spec asks for a window at all. */
static inline bool window_is_set(const struct window_spec *spec)
{
    return spec->has_start || spec->has_stop;
}

/* What translation instruments (window_translation_mode). */
enum window_mode {
    WINDOW_MODE_NONE,           /* no window: as without these options */
    WINDOW_MODE_PENDING,        /* every window pending: count only */
    WINDOW_MODE_FULL,           /* everything, behind window_tb_check */
    WINDOW_MODE_DONE,           /* every window closed: nothing */
};

/* Option parsers: 0, or -EINVAL with err saying why. */
int window_parse_start(struct window_spec *spec, const char *value,
                       struct qtrace_err *err);
int window_parse_stop(struct window_spec *spec, const char *value,
                      struct qtrace_err *err);
void window_spec_fini(struct window_spec *spec);

/*
 * Install time: arm the windows of spec (copied). flush asks a
 * translation flush from a vCPU thread; block_cb is the plugin's block
 * callback (counts and records a block), for blocks a vCPU runs between
 * its window's opening and the flush. No-op when spec has neither
 * option.
 */
void window_setup(const struct window_spec *spec, bool system_mode,
                  void (*flush)(void), qemu_plugin_vcpu_udata_cb_t block_cb);

/* Translation time: what the next translations get. */
enum window_mode window_translation_mode(void);

/*
 * Translation time, user mode, first translation: resolve start-at=
 * SYMBOL in the guest program. Reports once on stderr when it fails
 * (the window then never opens).
 */
void window_resolve(void);

/* Translation time: the block holds the start-at= address. */
bool window_tb_has_trigger(const struct tb_info *ti);

/* vCPU thread, once its stream started: its window's initial state. */
void window_vcpu_start(struct vcpu *vc, unsigned int vcpu_index);

/*
 * Block callbacks (QEMU's udata callback type, udata a tb_info).
 * window_tb_count: the only one in a pending translation, counts the
 * block and checks the trigger. window_tb_check: registered first in
 * every other block, reads the count before the plugin's own callback
 * adds the block; opens or closes the vCPU's window at the block start.
 */
void window_tb_count(unsigned int vcpu_index, void *udata);
void window_tb_check(unsigned int vcpu_index, void *udata);

/*
 * window_tb_check, then the block_cb given to window_setup: the one
 * callback of a block when that is the plugin's callback for it (no
 * call tracker).
 */
void window_tb_exec(unsigned int vcpu_index, void *udata);

/*
 * Control thread: stop-after=N from now: each open window closes at the
 * vCPU's first block N instructions or more after its next block start,
 * each pending one N after it opens. 0, -ENOENT without a window in this
 * run, -ESRCH when every window has closed already.
 */
int window_set_stop(uint64_t stop_after);

/* Control thread: the state as "key value" lines (ctl "window"). */
void window_fmt(char *buf, size_t len);

#endif /* QTRACE_PLUGIN_WINDOW_H */
