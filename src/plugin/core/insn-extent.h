/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The instructions of a translated block as they execute: how many there
 * are and how many code bytes each has. On QEMU 9.1 and later that is
 * what the plugin API says; QEMU 7.2 - 9.0 (API 1 and 2) report extra
 * bytes, or an extra instruction, for some blocks at a page boundary
 * (insn-extent.c says which). Translation time only.
 */
#ifndef QTRACE_PLUGIN_INSN_EXTENT_H
#define QTRACE_PLUGIN_INSN_EXTENT_H

#include <stddef.h>

#include "../../qemu/qemu-plugin.h"

/*
 * Pick the corrections for QEMU target (its target name, "x86_64") and
 * plugin API version api. Called once, at install.
 */
void insn_extent_setup(const char *target, int api);

/*
 * How many of the n = qemu_plugin_tb_n_insns(tb) instructions of tb
 * execute: n, or n - 1 when QEMU listed one that it then left to the next
 * block.
 */
size_t insn_extent_count(struct qemu_plugin_tb *tb, size_t n);

/*
 * The code bytes instruction idx of tb executes, of the n that execute
 * (from insn_extent_count).
 */
size_t insn_extent_size(struct qemu_plugin_tb *tb, size_t idx, size_t n);

#endif /* QTRACE_PLUGIN_INSN_EXTENT_H */
