/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * One view of the QEMU plugin API over its versions: which API level the
 * running QEMU speaks, and wrappers for calls whose prototype or presence
 * depends on it. Called at install and translation time, never per event.
 */
#ifndef QTRACE_QEMU_COMPAT_H
#define QTRACE_QEMU_COMPAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "qemu-plugin.h"

/* Highest API this build knows; a newer QEMU gets a warning. */
#define QC_API_KNOWN_MAX 5

/*
 * Record the API version QEMU offers (info->version.cur). Returns 0, or
 * -1 with msg filled when this QEMU cannot be served.
 */
int qc_init(const qemu_info_t *info, char *msg, size_t msg_len);

/* API version in use: 1 on QEMU 7.2-8.2, 2..5 on 9.0 and later. */
int qc_api(void);

/*
 * Copy up to len bytes of the instruction's code into dest and return the
 * count. Picks the 7.2 pointer form or the 9.1+ copying form.
 */
size_t qc_insn_bytes(const struct qemu_plugin_insn *insn, void *dest,
                     size_t len);

/*
 * Count the executions of tb with an inline add (no callback) into *count
 * on API 1 (raw pointer, shared by vCPUs) or into a per-vCPU scoreboard
 * on API 2+ (*sb receives it). Returns 0, or -1 when QEMU offers neither.
 */
int qc_count_tb(struct qemu_plugin_tb *tb, uint64_t *count,
                struct qemu_plugin_scoreboard **sb);

/* The total of a counter set up by qc_count_tb, then zero it. */
uint64_t qc_count_take(uint64_t *count, struct qemu_plugin_scoreboard *sb);

/*
 * The version string of the running QEMU ("7.2.22 (Debian ...)"), whose
 * target is the QEMU target name; "unknown" if it cannot be found.
 */
const char *qc_qemu_version(const char *target);

#endif /* QTRACE_QEMU_COMPAT_H */
