/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The window's control commands (window.h, docs/control.md): start-at,
 * stop-at, snapshot-at and stop-after while the guest runs. A command
 * is checked on the control thread and waits for the quiescent point of
 * a translation flush (window_quiescent), where the spec is replaced,
 * so that every block translated from there on is marked under it and
 * no vCPU reads the spec while it changes. stop-after in a run that has
 * a window needs no new translation and takes effect at once.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../buffer/ring.h"
#include "window-int.h"

/* What the commands asked since the last quiescent point. */
static struct {
    bool start, stop, snap, stop_after;
} asked;

/* Whether a window can be armed in this run: 0, or -1 with err. */
static int check_armable(const char *cmd, struct qtrace_err *err)
{
    if (!win.active && win.hooks.arm_refusal) {
        qtrace_err_set(err, "%s: %s", cmd, win.hooks.arm_refusal);
        return -1;
    }
    return 0;
}

/* A symbol becomes its address now, so that the reply can say so. */
static int resolve_now(const char *cmd, struct window_when *w,
                       struct qtrace_err *err)
{
    struct qtrace_err why = { "" };
    uint64_t addr;

    if (w->how == WHEN_MARKER && !win.decode) {
        qtrace_err_set(err, "%s: marker: no marker instruction for this "
                       "architecture", cmd);
        return -1;
    }
    if (w->how != WHEN_SYMBOL) {
        return 0;
    }
    if (window_find_symbol(w->sym, &addr, &why) < 0) {
        qtrace_err_set(err, "%s: %s: %s", cmd, w->sym, why.msg);
        return -1;
    }
    w->addr = addr;
    w->how = WHEN_ADDR;
    return 0;
}

/*
 * Every vCPU takes its slow path at its next block (a pending one
 * counts only) or record, where it asks QEMU for the flush.
 */
static void ask_quiescent_locked(void)
{
    unsigned int i;

    win.asked_gen++;
    win.hooks.ask_flush();
    for (i = 0; win.active && i < MAX_VCPUS; i++) {
        if (__atomic_load_n(&vcpus[i].live, __ATOMIC_ACQUIRE)) {
            window_store_watch(&win.vcpu[i], 0, 0);
        }
    }
    win.hooks.nudge();
}

/* Replace *slot with w (the spec asked for), under the lock. */
static void replace_when(struct window_when *slot, struct window_when *w)
{
    free(slot->sym);
    *slot = *w;
    w->sym = NULL;
}

int window_ctl_start_at(const char *value, struct qtrace_err *err)
{
    struct window_spec spec = { .start.how = WHEN_NONE };
    struct qtrace_err why = { "" };

    if (window_parse_start(&spec, value, &why) < 0) {
        qtrace_err_set(err, "start-at: %s: %s", value, why.msg);
        return -1;
    }
    if (check_armable("start-at", err) < 0 ||
        resolve_now("start-at", &spec.start, err) < 0) {
        window_spec_fini(&spec);
        return -1;
    }
    pthread_mutex_lock(&win.ctl_lock);
    replace_when(&win.asked.start, &spec.start);
    asked.start = true;
    ask_quiescent_locked();
    pthread_mutex_unlock(&win.ctl_lock);
    return 0;
}

/* stop-at and snapshot-at: a trigger, or none to remove it. */
static int ask_trigger(const char *cmd, const char *value,
                       struct window_when *slot, bool *flag,
                       struct qtrace_err *err)
{
    struct window_spec spec = { .stop.how = WHEN_NONE };
    struct qtrace_err why = { "" };

    if (strcmp(value, "none") != 0 &&
        window_parse_stop_at(&spec, value, &why) < 0) {
        qtrace_err_set(err, "%s: %s: %s", cmd, value, why.msg);
        return -1;
    }
    if (check_armable(cmd, err) < 0 || resolve_now(cmd, &spec.stop, err) < 0) {
        window_spec_fini(&spec);
        return -1;
    }
    pthread_mutex_lock(&win.ctl_lock);
    replace_when(slot, &spec.stop);
    *flag = true;
    ask_quiescent_locked();
    pthread_mutex_unlock(&win.ctl_lock);
    return 0;
}

int window_ctl_stop_at(const char *value, struct qtrace_err *err)
{
    return ask_trigger("stop-at", value, &win.asked.stop, &asked.stop, err);
}

int window_ctl_snapshot_at(const char *value, struct qtrace_err *err)
{
    if (!ring_is_on()) {
        qtrace_err_set(err, "snapshot-at: no rings to write (the plugin "
                       "records without ring=)");
        return -1;
    }
    return ask_trigger("snapshot-at", value, &win.asked.snap, &asked.snap,
                       err);
}

int window_ctl_stop_after(const char *value, struct qtrace_err *err)
{
    struct window_spec spec = { .has_stop_after = false };
    struct qtrace_err why = { "" };
    unsigned int i;

    if (window_parse_stop(&spec, value, &why) < 0) {
        qtrace_err_set(err, "stop-after: %s: %s", value, why.msg);
        return -1;
    }
    if (check_armable("stop-after", err) < 0) {
        return -1;
    }
    pthread_mutex_lock(&win.ctl_lock);
    if (!win.active) {
        /* Armed at the quiescent point, with the window checks. */
        win.asked.has_stop_after = true;
        win.asked.stop_after = spec.stop_after;
        asked.stop_after = true;
        ask_quiescent_locked();
        pthread_mutex_unlock(&win.ctl_lock);
        return 0;
    }
    if (window_translation_mode() == WINDOW_MODE_DONE) {
        pthread_mutex_unlock(&win.ctl_lock);
        qtrace_err_set(err, "stop-after: every window has closed");
        return -1;
    }
    /* Every block has its check: each vCPU follows at its next one. */
    __atomic_store_n(&win.spec.stop_after, spec.stop_after,
                     __ATOMIC_RELAXED);
    __atomic_store_n(&win.spec.has_stop_after, true, __ATOMIC_RELEASE);
    __atomic_add_fetch(&win.stop_gen, 1, __ATOMIC_SEQ_CST);
    for (i = 0; i < MAX_VCPUS; i++) {
        if (__atomic_load_n(&vcpus[i].live, __ATOMIC_ACQUIRE)) {
            window_store_watch(&win.vcpu[i], 0, 0);
        }
    }
    pthread_mutex_unlock(&win.ctl_lock);
    return 0;
}

/* A run without a window arms one: every live vCPU's is open. */
static void arm_locked(void)
{
    unsigned int i;

    win.active = true;
    for (i = 0; i < MAX_VCPUS; i++) {
        if (__atomic_load_n(&vcpus[i].live, __ATOMIC_ACQUIRE)) {
            window_vcpu_arm(&vcpus[i], i);
        }
    }
}

bool window_quiescent(void)
{
    unsigned int i;

    pthread_mutex_lock(&win.ctl_lock);
    if (win.asked_gen == win.applied_gen) {
        pthread_mutex_unlock(&win.ctl_lock);
        return false;
    }
    win.applied_gen = win.asked_gen;
    if (!win.active) {
        arm_locked();
    }
    if (asked.stop) {
        replace_when(&win.spec.stop, &win.asked.stop);
    }
    if (asked.snap) {
        replace_when(&win.spec.snap, &win.asked.snap);
    }
    if (asked.stop_after) {
        win.spec.has_stop_after = true;
        win.spec.stop_after = win.asked.stop_after;
        win.stop_gen++;
    }
    if (asked.start) {
        replace_when(&win.spec.start, &win.asked.start);
        win.start_gen++;
    }
    memset(&asked, 0, sizeof(asked));
    /* The vCPUs follow at their next block; the mode settles after. */
    window_set_mode(WINDOW_MODE_FULL);
    for (i = 0; i < MAX_VCPUS; i++) {
        if (__atomic_load_n(&vcpus[i].live, __ATOMIC_ACQUIRE)) {
            window_store_watch(&win.vcpu[i], 0, 0);
        }
    }
    pthread_mutex_unlock(&win.ctl_lock);
    return true;
}

/* ---- the window command's text ---- */

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
    char start[160], stop[160], snap[160];
    size_t n;

    pthread_mutex_lock(&win.ctl_lock);
    window_when_fmt(&win.spec.start, start, sizeof(start));
    window_when_fmt(&win.spec.stop, stop, sizeof(stop));
    window_when_fmt(&win.spec.snap, snap, sizeof(snap));
    n = (size_t)snprintf(buf, len, "start-at %s\nstop-at %s\n", start, stop);
    if (n < len && win.spec.has_stop_after) {
        n += (size_t)snprintf(buf + n, len - n, "stop-after %" PRIu64 "\n",
                              win.spec.stop_after);
    } else if (n < len) {
        n += (size_t)snprintf(buf + n, len - n, "stop-after none\n");
    }
    if (n < len) {
        n += (size_t)snprintf(buf + n, len - n, "snapshot-at %s\n"
                              "snapshots %" PRIu64 "\nmode %s\n"
                              "waiting_flush %s\n", snap,
                              __atomic_load_n(&win.snapshots,
                                              __ATOMIC_RELAXED),
                              mode_name(window_translation_mode()),
                              win.asked_gen != win.applied_gen ? "yes" :
                                                                 "no");
    }
    if (n < len && win.active) {
        fmt_vcpus(buf + n, len - n);
    }
    pthread_mutex_unlock(&win.ctl_lock);
}
