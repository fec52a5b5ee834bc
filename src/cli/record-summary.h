/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The line qtrace record prints on stderr once QEMU has exited,
 *   qtrace record: 1234 instructions, 456 records, 1.2 MB, 0 lost -> t.qtr
 * from the totals the plugin left at exit (record-verdict.h: the END
 * chunk's lines, also readable when the trace is not), and the file's
 * size.
 */
#ifndef QTRACE_CLI_RECORD_SUMMARY_H
#define QTRACE_CLI_RECORD_SUMMARY_H

#include <stdbool.h>
#include <sys/stat.h>

#include "record-verdict.h"

/* What the trace file looked like before QEMU ran. */
struct record_summary {
    const char *path;               /* the trace file (-o); not owned */
    bool existed;                   /* a file was there before the run */
    struct stat before;             /* its identity, size and time then */
};

/* Note the trace file's state; call before QEMU runs. */
void record_summary_begin(struct record_summary *s, const char *path);

/*
 * Print the summary line on stderr. Prints nothing when the run did not
 * write the file (it is missing, or unchanged since record_summary_begin:
 * QEMU or the plugin failed and said why) or when it is no regular file
 * (-o /dev/null).
 */
void record_summary_print(const struct record_summary *s,
                          const struct record_verdict *v);

/* bytes as "512 B", "1.2 kB", "34.5 MB"... (powers of 1000) into buf. */
void record_summary_fmt_size(char *buf, size_t len, unsigned long long bytes);

#endif /* QTRACE_CLI_RECORD_SUMMARY_H */
