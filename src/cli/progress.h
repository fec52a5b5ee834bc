/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A progress bar on standard error while a command works through a big
 * input: only when standard error is a terminal and the input is at
 * least PROGRESS_MIN_BYTES, from half a second on, refreshed a few times
 * a second, erased when the work ends. One bar at a time, main thread
 * only.
 *
 * A reading command attaches it to its reader with one call,
 * progress_attach(rd, "CMD"); a command that reads several files, or
 * one file several times, drives it itself with progress_begin(),
 * progress_update() and progress_end().
 */
#ifndef QTRACE_CLI_PROGRESS_H
#define QTRACE_CLI_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>

#include "qtrace/reader.h"

/*
 * Inputs smaller than this read in a few seconds at most: no bar. The
 * environment variable QTRACE_TEST_PROGRESS_MIN=BYTES (tests only, see
 * docs/testing.md) lowers it and drops the half-second wait.
 */
#define PROGRESS_MIN_BYTES (256ull << 20)

/*
 * Show the progress of rd's reading (the file offset it reached, out of
 * the file's size) as the bar of command cmd (which must outlive the
 * reading). Nothing when standard error is not a terminal or the file
 * is smaller than the threshold.
 */
void progress_attach(struct qtrace_reader *rd, const char *cmd);

/*
 * Start a bar for cmd over input_bytes of input. Returns whether it will
 * show (a terminal, a big enough input); progress_update and
 * progress_end are no-ops otherwise.
 */
bool progress_begin(const char *cmd, uint64_t input_bytes);

/*
 * done of total units (bytes, or any measure that grows with the work):
 * redrawn when a quarter of a second passed since the last drawing. The
 * rate and time left shown are in input bytes (done / total of
 * input_bytes).
 */
void progress_update(uint64_t done, uint64_t total);

/* Erase the bar (nothing if none shows): the work is over. */
void progress_end(void);

/*
 * Erase the bar for a moment, for a command that prints on the terminal
 * while it works: it comes back at a later progress_update.
 */
void progress_erase(void);

#endif /* QTRACE_CLI_PROGRESS_H */
