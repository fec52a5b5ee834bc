/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * System call names per guest architecture (Linux numbering): x86_64,
 * aarch64 and riscv64 (the generic table), arm (EABI). Used by the CLI to
 * name syscall records and by the plugin's etrace notes. Read-only data,
 * safe from any thread.
 */
#ifndef QTRACE_SYSCALL_H
#define QTRACE_SYSCALL_H

#include <stdint.h>

struct qtrace_syscall_table;

/* The table of arch (QEMU target name: "x86_64", "arm"...), or NULL. */
const struct qtrace_syscall_table *qtrace_syscall_table_find(const char *arch);

/* Name of system call num ("write"), or NULL if t is NULL or num unknown. */
const char *qtrace_syscall_name(const struct qtrace_syscall_table *t,
                                int64_t num);

#endif /* QTRACE_SYSCALL_H */
