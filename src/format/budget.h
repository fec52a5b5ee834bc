/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The memory one trace may make the reader allocate (docs/format.md,
 * "Reader limits"): tables whose size follows what the file declares
 * (translations, streams, index entries) take their bytes from a budget
 * before they grow, so a small hostile file cannot make the reader
 * allocate gigabytes. The limit comes from QTRACE_READER_MEMORY_LIMIT.
 * Owned by one reader; its count is atomic, as the reader's decoding
 * thread (reader-ahead.c) and its caller both take from it.
 */
#ifndef QTRACE_FORMAT_BUDGET_H
#define QTRACE_FORMAT_BUDGET_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define BUDGET_ENV "QTRACE_READER_MEMORY_LIMIT"
#define BUDGET_DEFAULT (1ull << 30)     /* 1 GiB */

struct budget {
    _Atomic uint64_t used;          /* bytes taken and not given back */
    uint64_t limit;                 /* 0: no limit */
};

/*
 * The limit from the environment, or BUDGET_DEFAULT. -EINVAL with why
 * filled when the variable holds no size ("512M", "4G", "0" for none).
 */
int budget_init(struct budget *b, char *why, size_t why_len);

/*
 * Parse a size: digits with an optional K, M, G or T suffix (powers of
 * 1024). false when s is not one or overflows.
 */
bool budget_parse_size(const char *s, uint64_t *bytes);

/*
 * Take bytes from b (NULL: no budget); false, with why saying that the
 * limit is reached and how to raise it, when they do not fit.
 */
bool budget_take(struct budget *b, uint64_t bytes, char *why,
                 size_t why_len);

/* Give back bytes taken earlier. */
static inline void budget_give(struct budget *b, uint64_t bytes)
{
    uint64_t used, left;

    if (!b) {
        return;
    }
    used = atomic_load_explicit(&b->used, memory_order_relaxed);
    do {
        left = bytes < used ? used - bytes : 0;
    } while (!atomic_compare_exchange_weak_explicit(&b->used, &used, left,
                                                    memory_order_relaxed,
                                                    memory_order_relaxed));
}

#endif /* QTRACE_FORMAT_BUDGET_H */
