/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Test helper: write a small ELF file with libelf, with the segments and
 * symbols a test chooses, so addresses, sizes and load biases are known
 * by construction. Failures end the running cmocka test.
 */
#ifndef QTRACE_TEST_FAKE_ELF_H
#define QTRACE_TEST_FAKE_ELF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct fake_sym {
    const char *name;
    uint64_t value;
    uint64_t size;
    int type;                       /* STT_* */
    int bind;                       /* STB_* */
};

struct fake_seg {
    uint64_t offset, vaddr, memsz;
    bool exec;
};

/* One ELF: a .text section at text_addr of text_size, symbols in it. */
struct fake_elf {
    int cls;                        /* ELFCLASS32 / 64 */
    int machine;                    /* EM_* */
    int type;                       /* ET_EXEC / ET_DYN */
    uint64_t text_addr, text_size;
    const struct fake_seg *segs;
    size_t n_segs;
    const struct fake_sym *syms;
    size_t n_syms;
    /* Optional x86_64 lazy PLT: .plt at plt_addr of plt_size bytes (0: a
     * 16-byte header and 16 bytes per name), whose stub i is
     * "jmp *GOT(%rip)" through the slot plt_addr + 0x800 + 8 * i, and
     * .rela.plt, whose JUMP_SLOT i names the slot plt_addr + 0x800 + 8 *
     * (n_plt - 1 - i) (the reverse order) after .dynsym symbol i + 1.
     * Stubs past n_plt jump through slots without a relocation. */
    const char *const *plt;
    size_t n_plt;
    uint64_t plt_addr;
    uint64_t plt_size;
};

/* Write fe to dir/name; returns the path (a static buffer). */
const char *fake_elf_write(const char *dir, const char *name,
                           const struct fake_elf *fe);

#endif /* QTRACE_TEST_FAKE_ELF_H */
