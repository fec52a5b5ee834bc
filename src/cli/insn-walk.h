/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Where each instruction of a translated block starts, for the commands
 * that count instructions by address (coverage, report --blocks and
 * --insns): fixed or self-describing lengths where the architecture has
 * them (AArch64, RISC-V, Arm and Thumb), capstone elsewhere (x86).
 * Single-threaded.
 */
#ifndef QTRACE_CLI_INSN_WALK_H
#define QTRACE_CLI_INSN_WALK_H

#include <stddef.h>
#include <stdint.h>

struct insn_walk;

/* A walker for the trace's target (META arch); NULL when out of memory. */
struct insn_walk *insn_walk_new(const char *arch);
void insn_walk_free(struct insn_walk *w);       /* NULL is a no-op */

/*
 * The offsets of the instructions of a block of size bytes and n_insns
 * instructions (tb_trans), whose first code_len bytes are code (at pc),
 * into offs (room for max): at most n_insns of them, or when n_insns is
 * 0 as many as fit in size. Bytes that do not decode end the walk, as
 * does code_len: then the rest of the block is shared out evenly among
 * the instructions not found. Returns how many offsets were written.
 */
size_t insn_walk_block(struct insn_walk *w, const uint8_t *code,
                       size_t code_len, uint64_t pc, uint32_t size,
                       uint32_t n_insns, uint32_t *offs, size_t max);

#endif /* QTRACE_CLI_INSN_WALK_H */
