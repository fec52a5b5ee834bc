/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Guarding existing files from being overwritten by an output option
 * (record -o, convert OUT): an existing file is replaced only when it is
 * of the kind the command writes (a qtrace trace, the format's own
 * output), is empty, or --force says so. Main thread, CLI only.
 */
#ifndef QTRACE_CLI_OUT_GUARD_H
#define QTRACE_CLI_OUT_GUARD_H

#include <stdbool.h>

/* Whether the existing path holds what the command would write there. */
typedef bool (*out_guard_is_own_fn)(const char *path);

/*
 * Whether path may be written. A missing path, an empty regular file, a
 * path that is no regular file or directory (a device such as /dev/null,
 * a pipe) and one that is_own accepts may; so may anything when force is
 * set, except a directory that is_own refuses (never removed). Otherwise
 * prints "qtrace CMD: PATH: exists and is not WHAT (not overwritten; use
 * --force to replace it)" and returns false.
 */
bool out_guard_check(const char *cmd, const char *path,
                     out_guard_is_own_fn is_own, const char *what,
                     bool force);

/* Whether path starts with the native trace file magic. */
bool out_guard_is_trace(const char *path);

#endif /* QTRACE_CLI_OUT_GUARD_H */
