/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The number of arguments a Linux system call takes, so that a reader
 * compares the registers a call reads and not what happens to lie in
 * the others (values left there by earlier code, which may differ from
 * run to run: a stack guard derived from the kernel's random bytes).
 */
#ifndef QTRACE_CLI_SYSCALL_ARGS_H
#define QTRACE_CLI_SYSCALL_ARGS_H

/*
 * The argument registers the call named name reads (0 to 6) on an ABI
 * of word_bits (32 or 64); 6 for a name not known (or NULL), so that
 * nothing is left out unseen.
 */
unsigned int syscall_args_count(const char *name, unsigned int word_bits);

#endif /* QTRACE_CLI_SYSCALL_ARGS_H */
