/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Event switches at run time (ctl-events.h). Asked switches wait under a
 * lock for the quiescent point; applied ones go to an append-only log
 * that vCPUs read without a lock up to ctl_events_applied.
 */
#include <errno.h>
#include <pthread.h>

#include "qtrace-events.h"
#include "../buffer/pack.h"         /* vbuf_record, which emit uses */
#include "../core/vcpu.h"
#include "ctl-events.h"

#define MAX_SWITCHES 256       /* per run: a person types them */

struct event_switch {
    uint16_t event;
    bool on;
};

uint32_t ctl_events_applied;

static struct {
    pthread_mutex_t lock;
    bool asked[QTRACE_EV__COUNT];       /* waiting for the quiescent point */
    bool want[QTRACE_EV__COUNT];
    unsigned int n_asked;               /* switches asked in all */
    struct event_switch log[MAX_SWITCHES];
} sw = { .lock = PTHREAD_MUTEX_INITIALIZER };

int ctl_events_ask(unsigned int id, bool on)
{
    int ret = 0;

    pthread_mutex_lock(&sw.lock);
    if (sw.n_asked >= MAX_SWITCHES) {
        ret = -ENOSPC;
    } else {
        sw.n_asked++;
        sw.asked[id] = true;
        sw.want[id] = on;
    }
    pthread_mutex_unlock(&sw.lock);
    return ret;
}

bool ctl_events_apply(void (*set_flag)(unsigned int id, bool on))
{
    uint32_t n = ctl_events_applied;
    unsigned int id;

    pthread_mutex_lock(&sw.lock);
    for (id = 1; id < QTRACE_EV__COUNT; id++) {
        if (!sw.asked[id]) {
            continue;
        }
        sw.asked[id] = false;
        set_flag(id, sw.want[id]);
        sw.log[n].event = (uint16_t)id;
        sw.log[n].on = sw.want[id];
        n++;
    }
    pthread_mutex_unlock(&sw.lock);
    if (n == ctl_events_applied) {
        return false;
    }
    /* The log entries before the count that announces them. */
    __atomic_store_n(&ctl_events_applied, n, __ATOMIC_RELEASE);
    return true;
}

void ctl_events_cross(struct vcpu *vc, uint32_t *seen, uint64_t time)
{
    uint32_t n = __atomic_load_n(&ctl_events_applied, __ATOMIC_ACQUIRE);
    struct qtrace_ev_event_switch *r;

    for (; *seen < n; (*seen)++) {
        r = emit(vc, QTRACE_EV_EVENT_SWITCH, sizeof(*r), time);
        r->vcpu = vc->buf.vcpu;
        r->event = sw.log[*seen].event;
        r->on = sw.log[*seen].on;
    }
}
