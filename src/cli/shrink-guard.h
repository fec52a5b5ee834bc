/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A file read through a memory mapping (the trace, a guest binary) that
 * another process truncates meanwhile makes the next access beyond its
 * new end raise SIGBUS. This turns that signal into one line naming the
 * file and the offset, and status 1, instead of a crash.
 */
#ifndef QTRACE_CLI_SHRINK_GUARD_H
#define QTRACE_CLI_SHRINK_GUARD_H

/*
 * Catch SIGBUS for the rest of the process; cmd names the command in the
 * message ("dump"), and must stay valid. A SIGBUS that is not a read of
 * a file mapping keeps its default action. Main thread, once.
 */
void shrink_guard_install(const char *cmd);

#endif /* QTRACE_CLI_SHRINK_GUARD_H */
