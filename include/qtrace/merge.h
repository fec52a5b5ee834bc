/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Every vCPU stream of a trace in one order, by host time (docs/format.md,
 * "Timeline"): a streaming k-way merge over one reader per stream, which
 * needs the trace's clock stamps (timeline=on). Memory follows the
 * streams that run at the same time, never the trace's length: a stream
 * is opened when the merge reaches its first stamp and closed after its
 * last record. Single-threaded: one merge per thread.
 *
 * The order: each record at its host time, ties by stream id; within a
 * stream its own order. When the trace holds order records (etrace=, or
 * events=order), they win over the clock: a stream's order point N comes
 * out only once no other stream has a point below N still to come, so
 * that what a stream recorded after its point N comes after what any
 * stream recorded before its points below N. A record that an order point
 * held back past later ones gets the time of the record before it: the
 * times handed out never go back.
 */
#ifndef QTRACE_MERGE_H
#define QTRACE_MERGE_H

#include <stdint.h>

#include "qtrace/err.h"
#include "qtrace/reader.h"

struct qtrace_merge;

/* The host time of a record that belongs to no vCPU (tb_trans). */
#define QTRACE_MERGE_NO_TIME UINT64_MAX

/*
 * A merge of the trace rd reads (rd plans it: its index, where each
 * stream begins; the streams get readers of their own, qtrace_reader_
 * reopen), handing out the events whose ids are set in want (a bitmap as
 * qtrace_reader_select's; NULL: every event). rd must outlive the merge;
 * its reading is rewound. Returns 0 and *out, -ENODATA with err saying
 * so when the trace has no clock stamps, or -errno.
 */
int qtrace_merge_open(struct qtrace_reader *rd, const uint64_t *want,
                      struct qtrace_merge **out, struct qtrace_err *err);

/*
 * The next record of all streams: 1 with *rec and *ns (its host time,
 * nanoseconds since the trace began, or QTRACE_MERGE_NO_TIME for a record
 * of no vCPU, handed out once, before the first record of a stream that
 * follows it in the file), 0 at the end, -errno with err set when a
 * stream's reading stopped early. rec is valid until the next call. A
 * trace without a vCPU stream hands out its records in file order.
 */
int qtrace_merge_next(struct qtrace_merge *m, struct qtrace_record *rec,
                      uint64_t *ns, struct qtrace_err *err);

/*
 * A reader that read to where the merge ended, once qtrace_merge_next
 * returned 0 or an error (for qtrace_reader_has_end and _stop_reason);
 * before that, rd.
 */
const struct qtrace_reader *qtrace_merge_reader(const struct qtrace_merge *m);

/* Streams the trace has, and how many were open at most at once. */
void qtrace_merge_counts(const struct qtrace_merge *m, uint64_t *streams,
                         uint64_t *max_open);

void qtrace_merge_close(struct qtrace_merge *m);     /* NULL is a no-op */

#endif /* QTRACE_MERGE_H */
