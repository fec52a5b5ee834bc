/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Records turned into text on several threads, written in their order.
 * The reader's thread decodes (a stream's records depend on the ones
 * before) and copies each record into a batch; worker threads format
 * whole batches; the reader's thread writes them out in the order they
 * were filled. Memory stays bounded: a few batches per worker.
 */
#ifndef QTRACE_CLI_LINE_POOL_H
#define QTRACE_CLI_LINE_POOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "qtrace/reader.h"

/* The text a worker appends to; grow with line_out_room. */
struct line_out {
    char *buf;
    size_t len;
    size_t cap;
};

/* Room for n more bytes at buf + len; false when out of memory. */
bool line_out_room(struct line_out *out, size_t n);

/*
 * Append the lines of recs[0..n) to out, on a worker thread with the
 * worker's own ctx; notes[i] is the text added with recs[i], or NULL.
 * false when out of memory.
 */
typedef bool (*line_pool_fmt_fn)(void *ctx, const struct qtrace_record *recs,
                                  const char *const *notes, size_t n,
                                  struct line_out *out);

struct line_pool;

/*
 * Start workers (each with its ctx, ctxs[i]) writing to f. NULL when
 * threads or memory cannot be had: the caller then formats alone.
 */
struct line_pool *line_pool_new(unsigned int workers, void *const *ctxs,
                                line_pool_fmt_fn fmt, FILE *f);

/*
 * Copy rec into the pool, with note (a text the reading thread made for
 * it, such as a disassembly from its own caches, or NULL); false once
 * writing or formatting failed.
 */
bool line_pool_add(struct line_pool *p, const struct qtrace_record *rec,
                   const char *note);

/*
 * Format and write everything added, stop the workers and free the
 * pool. false when writing or formatting failed at some point.
 */
bool line_pool_finish(struct line_pool *p);

/* Workers worth starting here: online CPUs, at most 16. */
unsigned int line_pool_default_workers(void);

#endif /* QTRACE_CLI_LINE_POOL_H */
