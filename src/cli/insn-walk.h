/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Where each instruction of a translated block starts, for the commands
 * that count instructions by address (coverage, report --blocks and
 * --insns): fixed or self-describing lengths where the architecture has
 * them (AArch64, RISC-V, Arm and Thumb), capstone elsewhere (x86). An
 * x86 block is decoded in the mode (64-, 32- or 16-bit) that gives
 * exactly its instructions and bytes, the one that fit the block before
 * tried first: walk blocks in address order for the best guesses.
 * Single-threaded.
 */
#ifndef QTRACE_CLI_INSN_WALK_H
#define QTRACE_CLI_INSN_WALK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct insn_walk;
struct disasm;

/* A walker for the trace's target (META arch); NULL when out of memory. */
struct insn_walk *insn_walk_new(const char *arch);
void insn_walk_free(struct insn_walk *w);       /* NULL is a no-op */

/*
 * A walker whose decoders (and disasm_new_detail()'s for its target's
 * own decoding) carry capstone's details, for disasm_insn_groups().
 */
struct insn_walk *insn_walk_new_detail(const char *arch);

/*
 * The disassembler to show or classify the last block walked with: the
 * one whose mode decoded it (x86's 16-, 32- or 64-bit), or the target's
 * own; NULL when capstone has none for the target (RISC-V in capstone
 * 4). Belongs to w.
 */
struct disasm *insn_walk_decoder(const struct insn_walk *w);

/* Whether the last block walked was Thumb code (arm targets). */
bool insn_walk_thumb(const struct insn_walk *w);

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
