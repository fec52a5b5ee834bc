/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The tables of `qtrace report --format=json|csv`: each section hands
 * its rows, typed, to these calls, which write them as a JSON array of
 * objects (one per row, a key per column) or as CSV (RFC 4180: a header
 * line, then a line per row), the shapes pandas, DuckDB and spreadsheets
 * read as they are. Several sections in JSON make one object whose keys
 * are the sections' names. Main thread.
 */
#ifndef QTRACE_CLI_REPORT_TABLE_H
#define QTRACE_CLI_REPORT_TABLE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "report.h"

enum rt_type {
    RT_STR,                         /* text (a JSON string) */
    RT_U64,                         /* unsigned count */
    RT_I64,                         /* signed number */
    RT_HEX,                         /* address: "0x..." text */
    RT_F64,                         /* ratio */
};

struct rt_col {
    const char *name;
    enum rt_type type;
};

union rt_val {
    const char *s;                  /* RT_STR (NULL: empty) */
    uint64_t u;                     /* RT_U64, RT_HEX */
    int64_t i;                      /* RT_I64 */
    double f;                       /* RT_F64 */
};

/* Start section name's table of n columns on out. */
void rt_begin(FILE *out, const struct report_flags *flags, const char *name,
              const struct rt_col *cols, size_t n);
/* One row: a value per column of rt_begin's. */
void rt_row(FILE *out, const struct report_flags *flags,
            const union rt_val *vals);
void rt_end(FILE *out, const struct report_flags *flags);

/*
 * A section with nothing to show: in text, the line "WHY" on out; in
 * JSON and CSV an empty table on out, and "qtrace report: WHY" on
 * stderr. Returns REPORT_EMPTY.
 */
int rt_none(FILE *out, const struct report_flags *flags, const char *name,
            const struct rt_col *cols, size_t n, const char *why);

#endif /* QTRACE_CLI_REPORT_TABLE_H */
