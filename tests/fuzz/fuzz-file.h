/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * For the fuzz targets whose parser reads a path, not memory: the input
 * written to a file in a directory of this process's own, removed at exit.
 */
#ifndef QTRACE_FUZZ_FILE_H
#define QTRACE_FUZZ_FILE_H

#include <stddef.h>
#include <stdint.h>

/*
 * Write data to this process's input file (the same path each call, its
 * old content replaced) and return the path, or abort: a fuzz run that
 * cannot write its input has nothing to test.
 */
const char *fuzz_file_write(const uint8_t *data, size_t size);

/* This process's directory (created on first use), for other files. */
const char *fuzz_file_dir(void);

#endif /* QTRACE_FUZZ_FILE_H */
