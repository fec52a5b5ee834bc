/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The memory accesses of one guest instruction, found at translation time
 * by disassembling it (QEMU's plugin interface lists an instruction's
 * accesses only as they execute). x86 (all modes) and AArch64; other
 * targets have no decoder. Translation time only; thread-safe.
 */
#ifndef QTRACE_PLUGIN_QI_DECODE_H
#define QTRACE_PLUGIN_QI_DECODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define QI_DECODE_MAX 4         /* accesses listed per instruction */

/* Whether target (QEMU's name) has a decoder; sets the decoder up. */
bool qi_decode_setup(const char *target, bool system_mode);

/* Whether qi_decode_accesses needs QEMU's text (x86 system mode). */
bool qi_decode_wants_text(void);

/*
 * The accesses of the instruction code[0..len) at pc, as qemu-instr info
 * words (events.h), into infos; returns their count (0: none or not
 * decodable). qemu_text is QEMU's own disassembly of it (NULL if none):
 * in x86 system mode it tells the CPU mode the code runs in.
 */
size_t qi_decode_accesses(const uint8_t *code, size_t len, uint64_t pc,
                          const char *qemu_text,
                          uint8_t infos[QI_DECODE_MAX]);

#endif /* QTRACE_PLUGIN_QI_DECODE_H */
