/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Which events of a trace a reading command shows (dump -e PATTERNS):
 * glob patterns over the trace's own catalog, the same syntax the plugin
 * takes in events=, but starting from every event rather than from the
 * catalog's defaults.
 */
#ifndef QTRACE_CLI_EVENT_FILTER_H
#define QTRACE_CLI_EVENT_FILTER_H

#include <stdbool.h>

#include "qtrace/catalog.h"
#include "qtrace/err.h"

struct event_filter {
    bool on[QTRACE_MAX_EVENTS];     /* indexed by event id */
};

/*
 * Fill f from patterns separated by ',' or ';', applied left to right; a
 * leading '-' hides the matches. If the first pattern shows, f starts
 * empty, otherwise it starts with every event; NULL shows every event.
 * Returns 0, or -EINVAL with err naming the pattern ("mem_acess: no event
 * matches; did you mean 'mem_access'?", the suggestion only when a name
 * is a likely typo away) or the empty list ("',': no pattern given").
 */
int event_filter_parse(struct event_filter *f,
                       const struct qtrace_catalog *cat,
                       const char *patterns, struct qtrace_err *err);

static inline bool event_filter_has(const struct event_filter *f,
                                    unsigned int id)
{
    return id < QTRACE_MAX_EVENTS && f->on[id];
}

#endif /* QTRACE_CLI_EVENT_FILTER_H */
