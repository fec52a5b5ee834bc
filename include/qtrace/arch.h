/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Guest architectures qtrace knows: QEMU's target name, the ELF machine
 * that selects it, word size and byte order. Shared by the plugin (which
 * writes them into the trace header) and the CLI (which picks qemu-<arch>
 * from a program's ELF header and a disassembler from a trace's header).
 */
#ifndef QTRACE_ARCH_H
#define QTRACE_ARCH_H

#include <stdbool.h>
#include <stdint.h>

struct qtrace_arch {
    const char *name;               /* QEMU target name: "aarch64" */
    uint16_t elf_machine;           /* EM_* */
    uint8_t word_bits;              /* 32 or 64 */
    bool big_endian;
};

/* By QEMU target name; NULL if unknown. */
const struct qtrace_arch *qtrace_arch_by_name(const char *name);
/* By ELF e_machine, class (32/64) and byte order; NULL if unknown. */
const struct qtrace_arch *qtrace_arch_by_elf(uint16_t machine,
                                             unsigned int word_bits,
                                             bool big_endian);

#endif /* QTRACE_ARCH_H */
