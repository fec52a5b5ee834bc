/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The records of a chunk, for the sinks that read them (log, etrace,
 * uftrace): a raw chunk's as they are, a packed chunk's expanded by the
 * format library's unpacker, as a reader would see them. The unpacker
 * learns each block from the tb_trans records of the translation chunks,
 * which every sink receives before any chunk that executes the block.
 */
#ifndef QTRACE_PLUGIN_SINK_RECORDS_H
#define QTRACE_PLUGIN_SINK_RECORDS_H

#include <stddef.h>

#include "qtrace/catalog.h"
#include "qtrace/format.h"
#include "../../format/unpack.h"
#include "../buffer/vbuf.h"

struct sink_records {
    struct unpacker up;
};

/* cat: the catalog the plugin records with. 0 or -ENOMEM. */
int sink_records_init(struct sink_records *sr,
                      const struct qtrace_catalog *cat);
void sink_records_fini(struct sink_records *sr);

/* Called for each record; a negative return stops the walk with it. */
typedef int (*sink_record_fn)(void *arg, const struct chunk *c,
                              const struct qtrace_rec *r);

/*
 * Every record of c, in order, to fn. Returns 0, fn's negative return, or
 * -EBADMSG with why filled when the chunk is malformed (a plugin bug).
 */
int sink_records_each(struct sink_records *sr, const struct chunk *c,
                      sink_record_fn fn, void *arg, char *why,
                      size_t why_len);

#endif /* QTRACE_PLUGIN_SINK_RECORDS_H */
