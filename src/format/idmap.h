/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A map from u32 ids read from a trace (stream ids, translation ids) to
 * fixed-size values: open addressing with linear probing, so that its
 * memory follows how many ids a trace uses, never how large they are.
 * Its growth is taken from a budget (budget.h). Single-threaded.
 */
#ifndef QTRACE_FORMAT_IDMAP_H
#define QTRACE_FORMAT_IDMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "budget.h"

struct idmap {
    uint64_t *keys;                 /* id + 1 per slot; 0: empty */
    uint8_t *vals;                  /* val_size bytes per slot */
    size_t val_size;
    size_t cap;                     /* slots: 0 or a power of two */
    size_t n;                       /* ids held */
    struct budget *budget;          /* NULL: no limit */
};

/* An empty map of val_size-byte values charged to budget (or NULL). */
void idmap_init(struct idmap *m, size_t val_size, struct budget *budget);

/* Release the slots; the map is empty again, with the same settings. */
void idmap_fini(struct idmap *m);

/* The value of id, or NULL. */
void *idmap_get(const struct idmap *m, uint32_t id);

/*
 * The value of id, added zero-filled if absent. NULL with why filled
 * when the budget or the memory runs out.
 */
void *idmap_put(struct idmap *m, uint32_t id, char *why, size_t why_len);

/* Visit the values: *pos starts at 0; NULL after the last. */
void *idmap_next(const struct idmap *m, size_t *pos);

#endif /* QTRACE_FORMAT_IDMAP_H */
