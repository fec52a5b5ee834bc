/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Sections of `qtrace report`: each a summary computed from one pass over
 * a trace (--syscalls, --functions, ...), in a file of its own
 * (report-<name>.c), listed in report.c's table.
 */
#ifndef QTRACE_CLI_REPORT_H
#define QTRACE_CLI_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "qtrace/err.h"
#include "qtrace/reader.h"

/* What a section returns when it found nothing to summarise. */
#define REPORT_EMPTY 1

struct rt_col;

/* --format: the sections' own text, or tables (report-table.h). */
enum report_format { REPORT_TEXT, REPORT_JSON, REPORT_CSV };

/* Where the JSON or CSV output stands (report-table.c writes it). */
struct report_tables {
    bool multi;                     /* JSON: several sections, one object */
    size_t n_tables;                /* tables begun */
    const struct rt_col *cols;      /* the current table's columns */
    size_t n_cols;
    size_t n_rows;                  /* its rows so far */
};

/* Options of `qtrace report` that sections read. */
struct report_flags {
    bool keep_plt;                  /* --keep-plt: "name@plt" apart */
    enum report_format format;      /* --format */
    bool top_set;                   /* --top was given */
    size_t top;                     /* --top=N: rows of the --blocks,
                                       --insns and --memory tables, 0 all */
    struct report_tables *tables;   /* JSON and CSV state */
    bool per_stream;                /* --per-stream: a root per stream */
};


struct report_section {
    const char *option;             /* long option, e.g. "syscalls" */
    const char *help;               /* one line for --help */
    /*
     * Read the trace from its start and print the section on out.
     * Returns 0, REPORT_EMPTY when the trace holds nothing for the
     * section (it then printed one "NAME: none (WHY)" line), or -errno
     * with err filled (a trace that stops early still prints what was
     * read, then returns the error).
     */
    int (*run)(struct qtrace_reader *rd, const struct report_flags *flags,
               FILE *out, struct qtrace_err *err);
    bool on_request;                /* printed only when its option is
                                       given, not by a bare report */
    /*
     * Its work per record is a few counters: a reading thread of its own
     * (-j 2) copies each record for less than the copy costs, so
     * without -j a report of such sections alone reads on one thread.
     */
    bool light;
};

/*
 * Select every event but blocks, instructions, accesses and translations
 * (report --functions, the folded stacks, flamegraph): the calls and
 * what closes a stream's frames, without expanding packed blocks.
 */
int report_select_calls(struct qtrace_reader *rd, struct qtrace_err *err);

#endif /* QTRACE_CLI_REPORT_H */
