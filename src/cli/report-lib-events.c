/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * qtrace report --lib-events: how many records of each instrumentation
 * library's own events (LIB:EVENT in the trace's catalog, docs/format.md)
 * the trace holds, in catalog order, with their first and last times.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <string.h>

#include "report.h"
#include "report-table.h"

struct ev_count {
    uint64_t n;
    uint64_t first, last;           /* record times */
};

static bool is_lib_event(const struct qtrace_event_desc *ev)
{
    return ev && strchr(ev->name, ':') != NULL;
}

/* Select the library events of cat; false when it has none. */
static bool want_lib_events(const struct qtrace_catalog *cat, uint64_t *want)
{
    unsigned int id;
    bool any = false;

    for (id = 1; id <= cat->n_events && id < QTRACE_MAX_EVENTS; id++) {
        if (is_lib_event(qtrace_catalog_get(cat, id))) {
            want[id / 64] |= 1ull << (id % 64);
            any = true;
        }
    }
    return any;
}

static int count_events(struct qtrace_reader *rd, struct ev_count *counts,
                        struct qtrace_err *err)
{
    struct qtrace_record rec;
    int ret;

    while ((ret = qtrace_reader_next(rd, &rec, err)) > 0) {
        struct ev_count *c;

        if (!is_lib_event(rec.ev)) {
            continue;
        }
        c = &counts[rec.ev->id];
        if (c->n == 0 || rec.time < c->first) {
            c->first = rec.time;
        }
        if (c->n == 0 || rec.time > c->last) {
            c->last = rec.time;
        }
        c->n++;
    }
    return ret;
}

static const struct rt_col le_cols[] = {
    { "event", RT_STR }, { "count", RT_U64 }, { "first", RT_U64 },
    { "last", RT_U64 },
};

#define N_LE_COLS (sizeof(le_cols) / sizeof(le_cols[0]))

/* The rows as a table (--format json, csv); the total of counts. */
static uint64_t table_counts(FILE *out, const struct report_flags *flags,
                             const struct qtrace_catalog *cat,
                             const struct ev_count *counts)
{
    unsigned int id;
    uint64_t total = 0;

    rt_begin(out, flags, "lib-events", le_cols, N_LE_COLS);
    for (id = 1; id <= cat->n_events && id < QTRACE_MAX_EVENTS; id++) {
        union rt_val v[N_LE_COLS];

        if (counts[id].n == 0) {
            continue;
        }
        v[0].s = cat->events[id].name;
        v[1].u = counts[id].n;
        v[2].u = counts[id].first;
        v[3].u = counts[id].last;
        rt_row(out, flags, v);
        total += counts[id].n;
    }
    rt_end(out, flags);
    return total;
}

static uint64_t print_counts(FILE *out, const struct report_flags *flags,
                             const struct qtrace_catalog *cat,
                             const struct ev_count *counts)
{
    unsigned int id;
    uint64_t total = 0;

    if (flags->format != REPORT_TEXT) {
        return table_counts(out, flags, cat, counts);
    }
    fprintf(out, "library events:\n  %10s %12s %12s  %s\n", "count",
            "first", "last", "event");
    for (id = 1; id <= cat->n_events && id < QTRACE_MAX_EVENTS; id++) {
        const struct ev_count *c = &counts[id];

        if (c->n == 0) {
            continue;
        }
        fprintf(out, "  %10" PRIu64 " %12" PRIu64 " %12" PRIu64 "  %s\n",
                c->n, c->first, c->last, cat->events[id].name);
        total += c->n;
    }
    fprintf(out, "  %10s %12s %12s  %s\n", "----------", "", "",
            "----------------");
    fprintf(out, "  %10" PRIu64 " %12s %12s  total\n", total, "", "");
    return total;
}

static int run_lib_events(struct qtrace_reader *rd,
                          const struct report_flags *flags, FILE *out,
                          struct qtrace_err *err)
{
    static struct ev_count counts[QTRACE_MAX_EVENTS];
    const struct qtrace_catalog *cat = qtrace_reader_catalog(rd);
    uint64_t want[QTRACE_MAX_EVENTS / 64] = { 0 };
    int ret;

    memset(counts, 0, sizeof(counts));
    if (!want_lib_events(cat, want)) {
        return rt_none(out, flags, "lib-events", le_cols, N_LE_COLS,
                       "library events: none (no instrumentation library "
                       "registered events; see docs/instrument.md)");
    }
    ret = qtrace_reader_select(rd, want, err);
    if (ret == 0) {
        ret = count_events(rd, counts, err);
        qtrace_reader_select(rd, NULL, NULL);
    }
    /* What was read is printed, even when the trace stops early. */
    if (print_counts(out, flags, cat, counts) == 0 && ret >= 0) {
        return REPORT_EMPTY;
    }
    return ret < 0 ? ret : 0;
}

const struct report_section report_lib_events = {
    .option = "lib-events",
    .help = "instrumentation libraries' own events: count per event",
    .run = run_lib_events,
};
