/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A percentage of the trace read, on standard error while a reading
 * command works through a big file: only when standard error is a
 * terminal, refreshed a few times a second, erased when the reading ends.
 * Main thread only.
 */
#ifndef QTRACE_CLI_PROGRESS_H
#define QTRACE_CLI_PROGRESS_H

#include "qtrace/reader.h"

/*
 * Show the progress of rd's reading as "qtrace CMD: N%" (cmd must
 * outlive the reading). Nothing when standard error is not a terminal.
 */
void progress_attach(struct qtrace_reader *rd, const char *cmd);

#endif /* QTRACE_CLI_PROGRESS_H */
