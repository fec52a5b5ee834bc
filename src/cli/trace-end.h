/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * How a reading command ends on a trace without its END chunk: one
 * warning line, the same in every command, and status CLI_INCOMPLETE.
 */
#ifndef QTRACE_CLI_TRACE_END_H
#define QTRACE_CLI_TRACE_END_H

#include "qtrace/reader.h"

/*
 * Call once a command has read what it needed of rd without an error.
 * Returns CLI_OK when the trace has its END chunk (learnt from rd, or
 * from a counting pass of its own over path when rd was not read to its
 * end). Otherwise prints "qtrace CMD: PATH: no END chunk, the trace is
 * incomplete (...): N records up to chunk S ending at offset 0x..."
 * and returns CLI_INCOMPLETE, or, when that pass finds a damaged
 * chunk the command did not reach, prints the reader's error and returns
 * CLI_FAIL. Flushes stdout first so the line follows the results.
 */
int trace_end_check(const char *cmd, const char *path,
                    const struct qtrace_reader *rd);

#endif /* QTRACE_CLI_TRACE_END_H */
