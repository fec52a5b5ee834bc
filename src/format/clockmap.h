/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * One chunk's host clock stamps and the place of its records between
 * them (docs/format.md, "Timeline"): pure functions, used by the reader
 * (reader-clock.c). A stamp says that at instruction count `time` the
 * vCPU ran nothing from host time ns to resume; a record between two
 * stamps, in the stream's order, lies between the first's resume and
 * the second's ns, placed by its instruction count as if instructions
 * ran at a constant rate in between.
 */
#ifndef QTRACE_FORMAT_CLOCKMAP_H
#define QTRACE_FORMAT_CLOCKMAP_H

#include <stddef.h>
#include <stdint.h>

struct clock_stamp {
    uint64_t time;                  /* the vCPU's instruction count */
    uint64_t ns;                    /* host time it stood still from */
    uint64_t resume;                /* ... and to; ns <= resume */
};

/*
 * Raise the stamps in place so that none goes back: each time, ns and
 * resume at least the stamp's before it, each resume at least its ns. A
 * writer's stamps already are; a damaged trace's then still give times
 * that never decrease within a chunk.
 */
void clockmap_clamp(struct clock_stamp *st, size_t n);

/*
 * The host time of a record at instruction count time that comes after
 * the k first stamps of st[0..n) in the stream (k <= n, n >= 1): before
 * the first stamp, its ns; after the last, its resume; else between the
 * resume of st[k - 1] and the ns of st[k], in proportion to where time
 * lies between their instruction counts (clamped to them).
 */
uint64_t clockmap_at(const struct clock_stamp *st, size_t n, size_t k,
                     uint64_t time);

#endif /* QTRACE_FORMAT_CLOCKMAP_H */
