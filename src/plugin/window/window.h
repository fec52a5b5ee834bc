/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Tracing windows and triggers (start-at=, stop-at=, stop-after=,
 * snapshot-at=; the same as control commands): each vCPU records only
 * inside its window, which opens at a trigger (an instruction count, the
 * first execution of a guest address, a marker instruction) and closes
 * at another or after a number of instructions; a snapshot trigger
 * writes the flight recorder's rings. Outside its window a vCPU's record
 * buffer is off (records discarded, trace_switch records mark the
 * edges), and translation instruments as little as the windows still
 * need: counting while every window is pending, nothing once every
 * window has closed for good. See docs/cli.md, "Tracing windows".
 */
#ifndef QTRACE_PLUGIN_WINDOW_H
#define QTRACE_PLUGIN_WINDOW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "qtrace/err.h"
#include "../../qemu/qemu-plugin.h"

struct tb_info;
struct vcpu;

/* How a trigger is given (struct window_when's how). */
enum window_how {
    WHEN_NONE,                  /* not given */
    WHEN_COUNT,                 /* N: instructions */
    WHEN_ADDR,                  /* 0xADDR (or a symbol, resolved) */
    WHEN_SYMBOL,                /* SYMBOL of the program, not resolved */
    WHEN_MARKER,                /* the guest's marker instruction */
};

/* One trigger as given. */
struct window_when {
    uint8_t how;                /* enum window_how */
    bool unresolved;            /* a symbol that could not be found */
    uint64_t count;             /* WHEN_COUNT */
    uint64_t addr;              /* WHEN_ADDR */
    char *sym;                  /* the symbol named (owned), else NULL */
};

/* The options as given (options.c fills it, window_setup reads it). */
struct window_spec {
    struct window_when start;   /* start-at=N|0xADDR|SYMBOL|marker */
    struct window_when stop;    /* stop-at=0xADDR|SYMBOL|marker */
    struct window_when snap;    /* snapshot-at=0xADDR|SYMBOL|marker */
    bool has_stop_after;        /* stop-after= given */
    uint64_t stop_after;        /* stop-after=N: instructions recorded */
};

/* Whether spec asks for a window or a trigger at all. */
static inline bool window_is_set(const struct window_spec *spec)
{
    return spec->start.how != WHEN_NONE || spec->stop.how != WHEN_NONE ||
           spec->snap.how != WHEN_NONE || spec->has_stop_after;
}

/* What translation instruments (window_translation_mode). */
enum window_mode {
    WINDOW_MODE_NONE,           /* no window: as without these options */
    WINDOW_MODE_PENDING,        /* no window open: count only */
    WINDOW_MODE_FULL,           /* everything, behind window_tb_check */
    WINDOW_MODE_DONE,           /* every window closed for good: nothing */
};

/*
 * Option parsers (window-opts.c): 0, or -EINVAL with err saying why,
 * -ENOMEM. The word "marker" names the marker instruction of the kind
 * the option is about (start, stop, snapshot; docs/cli.md).
 */
int window_parse_start(struct window_spec *spec, const char *value,
                       struct qtrace_err *err);
int window_parse_stop_at(struct window_spec *spec, const char *value,
                         struct qtrace_err *err);
int window_parse_snapshot_at(struct window_spec *spec, const char *value,
                             struct qtrace_err *err);
int window_parse_stop(struct window_spec *spec, const char *value,
                      struct qtrace_err *err);
void window_spec_fini(struct window_spec *spec);

/* The text of a trigger as an option would take it ("main", "0x4010"). */
void window_when_fmt(const struct window_when *w, char *buf, size_t len);

/* What the window needs of the rest of the plugin (window_setup). */
struct window_hooks {
    /* Any thread: ask for a translation flush (issued by poll). */
    void (*ask_flush)(void);
    /* vCPU thread: issue the flush asked for, if any. */
    void (*poll)(void);
    /* Control thread: make every recording vCPU take its slow path. */
    void (*nudge)(void);
    /*
     * Why control commands may not arm a window in a run started
     * without one (the run does not count instructions per vCPU, or
     * records QEMU's own counters); NULL: they may.
     */
    const char *arm_refusal;
    /*
     * The plugin's block callback (counts and records a block), for
     * blocks a vCPU runs between its window's opening and the flush;
     * NULL when it depends on the block (the call tracker).
     */
    qemu_plugin_vcpu_udata_cb_t block_cb;
};

/*
 * Install time: arm the windows of spec (copied). target is QEMU's
 * target name (for the marker instruction). With no window option set,
 * nothing is armed, but control commands may arm windows later
 * (window_ctl_*), hence the hooks in any case.
 */
void window_setup(const struct window_spec *spec, const char *target,
                  bool system_mode, const struct window_hooks *hooks);

/* Translation time: what the next translations get. */
enum window_mode window_translation_mode(void);

/*
 * Translation time, user mode, first translation: resolve the triggers
 * given as symbols of the guest program. Reports once on stderr for each
 * that fails (that trigger then never fires).
 */
void window_resolve(void);

/*
 * Translation time: mark ti (its flags) with the triggers its block
 * holds: an address of start-at=, stop-at=, snapshot-at=, or a marker
 * instruction of a kind in use. tb gives the instructions' bytes.
 * Returns whether the block holds any.
 */
bool window_tb_mark(struct qemu_plugin_tb *tb, struct tb_info *ti);

/* vCPU thread, once its stream started: its window's initial state. */
void window_vcpu_start(struct vcpu *vc, unsigned int vcpu_index);

/*
 * Block callbacks (QEMU's udata callback type, udata a tb_info).
 * window_tb_count: the only one in a pending translation, counts the
 * block and checks the count trigger. window_tb_check: registered first
 * in every other block, reads the count before the plugin's own
 * callback adds the block; opens or closes the vCPU's window at the
 * block start, and takes a snapshot where the block holds its trigger.
 */
void window_tb_count(unsigned int vcpu_index, void *udata);
void window_tb_check(unsigned int vcpu_index, void *udata);

/*
 * In place of window_tb_check in a block that holds a trigger (its
 * window_tb_mark was true): the same, always on its slow path.
 */
void window_tb_trigger(unsigned int vcpu_index, void *udata);

/*
 * window_tb_check, then the block_cb given to window_setup: the one
 * callback of a block when that is the plugin's callback for it (no
 * call tracker).
 */
void window_tb_exec(unsigned int vcpu_index, void *udata);

/*
 * Control thread (window-ctl.c): the window commands. Each takes effect
 * as if its option had been given now; a change of trigger waits for
 * the next translation flush, which it asks for (window_quiescent).
 * 0, or -1 with err saying why (one line).
 */
int window_ctl_start_at(const char *value, struct qtrace_err *err);
int window_ctl_stop_at(const char *value, struct qtrace_err *err);
int window_ctl_snapshot_at(const char *value, struct qtrace_err *err);
int window_ctl_stop_after(const char *value, struct qtrace_err *err);

/*
 * The quiescent point of a translation flush (QEMU's reset callback: no
 * vCPU runs translated code): apply what the control commands asked.
 * True when something changed: the caller then makes every vCPU take
 * its slow path at its next record.
 */
bool window_quiescent(void);

/* Control thread: the state as "key value" lines (ctl "window"). */
void window_fmt(char *buf, size_t len);

#endif /* QTRACE_PLUGIN_WINDOW_H */
