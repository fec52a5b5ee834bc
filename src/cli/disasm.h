/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * One-instruction disassembly for the reading commands, on capstone,
 * chosen by the trace's QEMU target name (META "arch"). Single-threaded.
 */
#ifndef QTRACE_CLI_DISASM_H
#define QTRACE_CLI_DISASM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct disasm;

/*
 * A disassembler for arch ("aarch64", "x86_64", ...), or NULL when there
 * is none: an unknown target, or a capstone built without it (capstone 4
 * has no RISC-V). Free with disasm_free() (NULL is a no-op).
 */
struct disasm *disasm_new(const char *arch);
void disasm_free(struct disasm *d);

/* Whether this target has a second (Thumb) instruction set. */
bool disasm_has_thumb(const struct disasm *d);

/*
 * Decode the instruction at code[0..len), which sits at guest address
 * addr, into buf as "mnemonic operands" (one space; none when there are
 * no operands). thumb selects Thumb on arm targets and is ignored
 * elsewhere. Returns the instruction's length in bytes, or 0 when the
 * bytes do not decode (buf is then "(bad)").
 */
size_t disasm_insn(struct disasm *d, const uint8_t *code, size_t len,
                   uint64_t addr, bool thumb, char *buf, size_t buf_len);

/*
 * As disasm_new(), with capstone's instruction details on, for
 * disasm_insn_groups() (slower: only where the groups are wanted).
 */
struct disasm *disasm_new_detail(const char *arch);

/*
 * Decode the instruction at code[0..len) (at addr) of a disassembler
 * from disasm_new_detail(): its mnemonic into mnem, and the names of
 * capstone's groups it belongs to ("jump", "call", "sse2"...), at most
 * max, into groups (static strings), their number into *n_groups.
 * Returns its length, or 0 when the bytes do not decode.
 */
size_t disasm_insn_groups(struct disasm *d, const uint8_t *code, size_t len,
                          uint64_t addr, bool thumb, char *mnem,
                          size_t mnem_len, const char **groups, size_t max,
                          size_t *n_groups);

#endif /* QTRACE_CLI_DISASM_H */
