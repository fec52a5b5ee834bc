/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Event selection: which catalog events are recorded. Built from glob
 * patterns at install time (and later at run time); read at translation
 * time to decide what to instrument, never per event.
 */
#ifndef QTRACE_PLUGIN_EVSEL_H
#define QTRACE_PLUGIN_EVSEL_H

#include <stdbool.h>

#include "qtrace/catalog.h"
#include "qtrace/err.h"

struct evsel {
    const struct qtrace_catalog *cat;   /* not owned */
    bool on[QTRACE_MAX_EVENTS];         /* indexed by event id */
    bool removed[QTRACE_MAX_EVENTS];    /* a '-' pattern matched it */
};

/* Start from the catalog's defaults (every event not marked disable). */
void evsel_init(struct evsel *sel, const struct qtrace_catalog *cat);

/*
 * Apply a selection: glob patterns separated by ',' or ';', a leading '-'
 * disables, applied left to right. If the first pattern enables, the
 * selection starts empty; if it disables, it starts from the defaults.
 * "@FILE" reads patterns from FILE, one per line, '#' comments. Function
 * events (func_entry or func_exit) bring image_map along, which names
 * their addresses, unless a '-' pattern removed image_map. Returns 0,
 * or -EINVAL/-errno with err naming the pattern ("mem_acess: no event
 * matches") or the file line.
 */
int evsel_parse(struct evsel *sel, const char *spec, struct qtrace_err *err);

static inline bool evsel_is_enabled(const struct evsel *sel, unsigned int id)
{
    return id < QTRACE_MAX_EVENTS && sel->on[id];
}

/*
 * Enable the events the selected ones cannot be read without, unless a
 * '-' pattern removed them: exec_tb and exec_insn name their block by
 * id, and only its tb_trans record gives the block's code (so that an
 * instruction can be shown); func_entry and func_exit need image_map to
 * name their addresses. Call once all patterns are applied.
 */
void evsel_apply_implications(struct evsel *sel);

/* Enable one event by id (e.g. events a sink needs). */
void evsel_enable(struct evsel *sel, unsigned int id);

/* Selected event names, comma separated, into buf. */
void evsel_fmt(const struct evsel *sel, char *buf, size_t len);

#endif /* QTRACE_PLUGIN_EVSEL_H */
