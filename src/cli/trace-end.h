/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A trace's END chunk read from the file's tail, without reading the
 * chunks before it: the totals of a multi-gigabyte trace in one small
 * read (docs/format.md, "END chunk").
 */
#ifndef QTRACE_CLI_TRACE_END_H
#define QTRACE_CLI_TRACE_END_H

#include <stdint.h>

#include "../format/kv.h"
#include "qtrace/err.h"

/*
 * Find the END chunk that ends the file at path and parse its key=value
 * text into end (release it with kv_fini). *file_bytes gets the file's
 * size. Returns 1 when found, 0 when the file ends without a valid END
 * chunk (the recording did not finish), -errno with err when the file
 * cannot be read.
 */
int trace_end_read(const char *path, struct kv_list *end,
                   uint64_t *file_bytes, struct qtrace_err *err);

#endif /* QTRACE_CLI_TRACE_END_H */
