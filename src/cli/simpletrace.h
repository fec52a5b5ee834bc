/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dump and info on simpletrace files (QEMU's simple backend format, read
 * by src/trace/simple-read.c): dump.c and info.c hand such files here.
 */
#ifndef QTRACE_CLI_SIMPLETRACE_H
#define QTRACE_CLI_SIMPLETRACE_H

#include <stdbool.h>

/* True if an operand of argv names a simpletrace file. */
bool simpletrace_named(int argc, char **argv);

int cmd_dump_simpletrace(int argc, char **argv);
int cmd_info_simpletrace(int argc, char **argv);

#endif /* QTRACE_CLI_SIMPLETRACE_H */
