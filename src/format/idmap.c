/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The id map (see idmap.h). Load stays at most one half, so a probe ends
 * after a few slots; the table doubles when it would pass that.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "idmap.h"

#define IDMAP_MIN_CAP 16u

void idmap_init(struct idmap *m, size_t val_size, struct budget *budget)
{
    memset(m, 0, sizeof(*m));
    m->val_size = val_size;
    m->budget = budget;
}

static uint64_t slot_bytes(const struct idmap *m, size_t cap)
{
    return (uint64_t)cap * (sizeof(*m->keys) + m->val_size);
}

void idmap_fini(struct idmap *m)
{
    budget_give(m->budget, slot_bytes(m, m->cap));
    free(m->keys);
    free(m->vals);
    idmap_init(m, m->val_size, m->budget);
}

/* First slot to probe: Fibonacci hashing spreads consecutive ids. */
static size_t home(const struct idmap *m, uint32_t id)
{
    return (size_t)(((uint64_t)id * 0x9e3779b97f4a7c15ull) >> 32) &
           (m->cap - 1);
}

/* The slot of id, or of the empty slot where it would go. */
static size_t probe(const struct idmap *m, uint32_t id)
{
    size_t i = home(m, id);

    while (m->keys[i] != 0 && m->keys[i] != (uint64_t)id + 1) {
        i = (i + 1) & (m->cap - 1);
    }
    return i;
}

void *idmap_get(const struct idmap *m, uint32_t id)
{
    size_t i;

    if (m->n == 0) {
        return NULL;
    }
    i = probe(m, id);
    return m->keys[i] ? m->vals + i * m->val_size : NULL;
}

/* Double the table (or make the first one), moving every entry. */
static int grow(struct idmap *m, char *why, size_t why_len)
{
    size_t cap = m->cap ? 2 * m->cap : IDMAP_MIN_CAP;
    struct idmap bigger = *m;
    size_t i, j;

    if (!budget_take(m->budget, slot_bytes(m, cap), why, why_len)) {
        return -ENOMEM;
    }
    bigger.cap = cap;
    bigger.keys = calloc(cap, sizeof(*bigger.keys));
    bigger.vals = calloc(cap, m->val_size);
    if (!bigger.keys || !bigger.vals) {
        free(bigger.keys);
        free(bigger.vals);
        budget_give(m->budget, slot_bytes(m, cap));
        snprintf(why, why_len, "%s", strerror(ENOMEM));
        return -ENOMEM;
    }
    for (i = 0; i < m->cap; i++) {
        if (m->keys[i]) {
            j = probe(&bigger, (uint32_t)(m->keys[i] - 1));
            bigger.keys[j] = m->keys[i];
            memcpy(bigger.vals + j * m->val_size, m->vals + i * m->val_size,
                   m->val_size);
        }
    }
    budget_give(m->budget, slot_bytes(m, m->cap));
    free(m->keys);
    free(m->vals);
    *m = bigger;
    return 0;
}

void *idmap_put(struct idmap *m, uint32_t id, char *why, size_t why_len)
{
    size_t i;

    if (2 * (m->n + 1) > m->cap && grow(m, why, why_len) < 0) {
        return NULL;
    }
    i = probe(m, id);
    if (!m->keys[i]) {
        m->keys[i] = (uint64_t)id + 1;
        m->n++;
    }
    return m->vals + i * m->val_size;
}

void *idmap_next(const struct idmap *m, size_t *pos)
{
    while (*pos < m->cap) {
        size_t i = (*pos)++;

        if (m->keys[i]) {
            return m->vals + i * m->val_size;
        }
    }
    return NULL;
}
