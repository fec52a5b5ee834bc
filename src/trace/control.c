/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The event registry: groups register from their generated constructors;
 * lookups, glob iteration and state changes run on any thread under one
 * mutex. trace_foo() never comes here: it reads its event's dstate flag,
 * which is written with relaxed atomics so no lock is needed to test it.
 */
#include <fnmatch.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "trace-int.h"

static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static struct trace_event_group *groups;        /* in registration order */
static struct trace_event_group **groups_tail = &groups;
static uint32_t next_id;                        /* simpletrace event ids */

void ctl_warn(const char *fmt, ...)
{
    char line[512];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    fprintf(stderr, "qtrace-trace: %s\n", line);
}

void trace_event_register_group(struct trace_event_group *group)
{
    size_t i;

    pthread_mutex_lock(&registry_lock);
    for (i = 0; i < group->n_events; i++) {
        group->events[i].id = next_id++;
    }
    group->next = NULL;
    *groups_tail = group;
    groups_tail = &group->next;
    pthread_mutex_unlock(&registry_lock);
}

struct trace_event_group *control_groups(void)
{
    struct trace_event_group *g;

    pthread_mutex_lock(&registry_lock);
    g = groups;
    pthread_mutex_unlock(&registry_lock);
    return g;
}

unsigned int control_backends(void)
{
    const struct trace_event_group *g;
    unsigned int mask = 0;

    pthread_mutex_lock(&registry_lock);
    for (g = groups; g; g = g->next) {
        mask |= g->backends;
    }
    pthread_mutex_unlock(&registry_lock);
    return mask;
}

void trace_event_iter_init_pattern(struct trace_event_iter *iter,
                                   const char *pattern)
{
    iter->pattern = pattern;
    iter->group = control_groups();
    iter->index = 0;
}

/*
 * Groups are only ever appended, and a registered group never moves, so
 * the walk needs the lock only to read a link that may be written.
 */
struct trace_event *trace_event_iter_next(struct trace_event_iter *iter)
{
    while (iter->group) {
        struct trace_event_group *g = iter->group;

        while (iter->index < g->n_events) {
            struct trace_event *ev = &g->events[iter->index++];

            if (!iter->pattern || fnmatch(iter->pattern, ev->name, 0) == 0) {
                return ev;
            }
        }
        pthread_mutex_lock(&registry_lock);
        iter->group = g->next;
        pthread_mutex_unlock(&registry_lock);
        iter->index = 0;
    }
    return NULL;
}

struct trace_event *trace_event_name(const char *name)
{
    struct trace_event_iter iter;
    struct trace_event *ev;

    trace_event_iter_init_pattern(&iter, NULL);
    while ((ev = trace_event_iter_next(&iter))) {
        if (strcmp(ev->name, name) == 0) {
            return ev;
        }
    }
    return NULL;
}

void trace_event_set_state_dynamic(struct trace_event *ev, bool state)
{
    if (!ev->sstate) {
        return;
    }
    __atomic_store_n(ev->dstate, (uint16_t)(state ? 1 : 0),
                     __ATOMIC_RELAXED);
}

static bool is_glob(const char *pattern)
{
    return strpbrk(pattern, "*?[") != NULL;
}

void trace_enable_events(const char *pattern)
{
    struct trace_event_iter iter;
    struct trace_event *ev;
    bool on = true;
    bool matched = false;

    if (pattern[0] == '-') {
        on = false;
        pattern++;
    }
    trace_event_iter_init_pattern(&iter, pattern);
    while ((ev = trace_event_iter_next(&iter))) {
        matched = true;
        if (!trace_event_get_state_static(ev)) {
            if (!is_glob(pattern)) {
                ctl_warn("trace event '%s' is not traceable (declared "
                           "'disable' or built with the nop backend)",
                           ev->name);
            }
            continue;
        }
        trace_event_set_state_dynamic(ev, on);
    }
    if (!matched && !is_glob(pattern)) {
        ctl_warn("trace event '%s' does not exist", pattern);
    }
}
