/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Placing records between host clock stamps (see clockmap.h). Runs on
 * the caller's thread, touches nothing but its arguments.
 */
#include "clockmap.h"

static uint64_t max64(uint64_t a, uint64_t b)
{
    return a > b ? a : b;
}

void clockmap_clamp(struct clock_stamp *st, size_t n)
{
    size_t i;

    for (i = 0; i < n; i++) {
        if (i > 0) {
            st[i].time = max64(st[i].time, st[i - 1].time);
            st[i].ns = max64(st[i].ns, st[i - 1].resume);
        }
        st[i].resume = max64(st[i].resume, st[i].ns);
    }
}

uint64_t clockmap_at(const struct clock_stamp *st, size_t n, size_t k,
                     uint64_t time)
{
    const struct clock_stamp *a, *b;
    double frac;

    if (k == 0) {
        return st[0].ns;
    }
    if (k >= n) {
        return st[n - 1].resume;
    }
    a = &st[k - 1];
    b = &st[k];
    if (time <= a->time || b->ns <= a->resume) {
        return a->resume;
    }
    if (time >= b->time) {
        return b->ns;
    }
    /*
     * In double: exact to the nanosecond over 2^53 ns (104 days) between
     * two stamps, and the same on every host (IEEE arithmetic).
     */
    frac = (double)(time - a->time) / (double)(b->time - a->time);
    return a->resume + (uint64_t)(frac * (double)(b->ns - a->resume));
}
