/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The reader's memory budget (see budget.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "budget.h"

bool budget_parse_size(const char *s, uint64_t *bytes)
{
    uint64_t v = 0;
    unsigned int shift = 0;
    const char *p = s;

    if (*p < '0' || *p > '9') {
        return false;
    }
    for (; *p >= '0' && *p <= '9'; p++) {
        if (v > (UINT64_MAX - 9) / 10) {
            return false;
        }
        v = v * 10 + (uint64_t)(*p - '0');
    }
    switch (*p) {
    case 'K': case 'k': shift = 10; p++; break;
    case 'M': case 'm': shift = 20; p++; break;
    case 'G': case 'g': shift = 30; p++; break;
    case 'T': case 't': shift = 40; p++; break;
    default: break;
    }
    if (*p != '\0' || (shift && v > (UINT64_MAX >> shift))) {
        return false;
    }
    *bytes = v << shift;
    return true;
}

int budget_init(struct budget *b, char *why, size_t why_len)
{
    const char *s = getenv(BUDGET_ENV);

    b->used = 0;
    b->limit = BUDGET_DEFAULT;
    if (s && !budget_parse_size(s, &b->limit)) {
        snprintf(why, why_len, "%s=%s: expected a size such as 512M or 4G "
                 "(0 for no limit)", BUDGET_ENV, s);
        return -EINVAL;
    }
    return 0;
}

bool budget_take(struct budget *b, uint64_t bytes, char *why,
                 size_t why_len)
{
    uint64_t used;

    if (!b || b->limit == 0) {
        return true;
    }
    used = atomic_load_explicit(&b->used, memory_order_relaxed);
    do {
        if (bytes > b->limit - used) {
            bool mib = b->limit >= (1u << 20);

            snprintf(why, why_len, "the reader's memory limit of %" PRIu64
                     " %s is reached (%s=SIZE raises it)",
                     b->limit >> (mib ? 20 : 10), mib ? "MiB" : "KiB",
                     BUDGET_ENV);
            return false;
        }
    } while (!atomic_compare_exchange_weak_explicit(&b->used, &used,
                                                    used + bytes,
                                                    memory_order_relaxed,
                                                    memory_order_relaxed));
    return true;
}
