/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The table of guest architectures (see qtrace/arch.h). QEMU's user-mode
 * binaries are named qemu-<name>; system mode reports the same names.
 */
#include <elf.h>
#include <stddef.h>
#include <string.h>

#include "qtrace/arch.h"

#ifndef EM_RISCV
#define EM_RISCV 243
#endif
#ifndef EM_LOONGARCH
#define EM_LOONGARCH 258
#endif

static const struct qtrace_arch arches[] = {
    { "x86_64", EM_X86_64, 64, false },
    { "i386", EM_386, 32, false },
    { "aarch64", EM_AARCH64, 64, false },
    { "aarch64_be", EM_AARCH64, 64, true },
    { "arm", EM_ARM, 32, false },
    { "armeb", EM_ARM, 32, true },
    { "riscv64", EM_RISCV, 64, false },
    { "riscv32", EM_RISCV, 32, false },
    { "mips", EM_MIPS, 32, true },
    { "mipsel", EM_MIPS, 32, false },
    { "mips64", EM_MIPS, 64, true },
    { "mips64el", EM_MIPS, 64, false },
    { "ppc", EM_PPC, 32, true },
    { "ppc64", EM_PPC64, 64, true },
    { "ppc64le", EM_PPC64, 64, false },
    { "s390x", EM_S390, 64, true },
    { "sparc64", EM_SPARCV9, 64, true },
    { "loongarch64", EM_LOONGARCH, 64, false },
};

const struct qtrace_arch *qtrace_arch_by_name(const char *name)
{
    size_t i;

    for (i = 0; i < sizeof(arches) / sizeof(arches[0]); i++) {
        if (strcmp(arches[i].name, name) == 0) {
            return &arches[i];
        }
    }
    return NULL;
}

const struct qtrace_arch *qtrace_arch_by_elf(uint16_t machine,
                                             unsigned int word_bits,
                                             bool big_endian)
{
    size_t i;

    for (i = 0; i < sizeof(arches) / sizeof(arches[0]); i++) {
        const struct qtrace_arch *a = &arches[i];

        if (a->elf_machine == machine && a->word_bits == word_bits &&
            a->big_endian == big_endian) {
            return a;
        }
    }
    return NULL;
}
