/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Opening a file that a trace names (its binary= key, image_map paths).
 * A trace is input from elsewhere: such a path may name a FIFO, a device
 * or a file under /proc, whose open() or read() blocks or never ends.
 * Only regular files outside /proc are opened, and without blocking.
 */
#ifndef QTRACE_SYMBOLS_OPEN_FILE_H
#define QTRACE_SYMBOLS_OPEN_FILE_H

#include "qtrace/err.h"

/*
 * Open path read-only if it is a regular file outside /proc. Returns the
 * descriptor, or -errno with err naming path and why (EINVAL for a file
 * of another kind).
 */
int open_regular_file(const char *path, struct qtrace_err *err);

#endif /* QTRACE_SYMBOLS_OPEN_FILE_H */
