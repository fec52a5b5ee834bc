/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Whether `qtrace record` lost anything. The plugin writes the END
 * chunk's totals (records, lost, failed_outputs, ...) both into the trace
 * and into a status file that record names with the plugin option
 * status=FILE, because the trace itself may be unreadable: a device such
 * as /dev/full, or a file whose writing failed (it then has no END).
 * QEMU's exit status cannot carry this: it is the guest's.
 */
#ifndef QTRACE_CLI_RECORD_VERDICT_H
#define QTRACE_CLI_RECORD_VERDICT_H

#include <stdbool.h>
#include <stdint.h>

/* The plugin's totals at exit (docs/format.md, END chunk). */
struct record_verdict {
    bool known;                     /* the plugin wrote them */
    uint64_t records;               /* records written */
    uint64_t chunks;                /* DATA chunks */
    uint64_t bytes;                 /* DATA payload bytes, uncompressed */
    uint64_t lost;                  /* records dropped */
    uint64_t failed_outputs;        /* outputs whose writing failed */
    bool has_ring;                  /* the plugin ran with ring= */
    uint64_t ring_dropped;          /* records the rings gave up */
    bool has_insns;                 /* the plugin counted instructions */
    uint64_t insns;                 /* guest instructions of the run */
};

/*
 * A new empty status file for the plugin (in $TMPDIR or /tmp). Returns
 * its path (free() it after record_verdict_remove), or NULL with errno.
 */
char *record_verdict_new_status_file(void);

/* Read the totals the plugin left in path; v->known false if none. */
void record_verdict_read(const char *path, struct record_verdict *v);

/* Remove the status file (NULL: nothing). */
void record_verdict_remove(const char *path);

/*
 * The exit status of record: the guest's status when it is not 0 (then
 * only lost records are said), else 1 when the recording lost anything
 * or the plugin left no totals. Each problem is said in one line:
 * "qtrace record: OUT: N records lost",
 * "qtrace record: OUT: the trace is incomplete (N plugin outputs
 * failed, see above)", "qtrace record: OUT: the plugin did not finish
 * the trace".
 */
int record_verdict_status(const char *out, const struct record_verdict *v,
                          int guest_status);

#endif /* QTRACE_CLI_RECORD_VERDICT_H */
