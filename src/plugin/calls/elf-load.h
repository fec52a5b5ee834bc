/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the image map needs from an ELF file on the host: its entry point,
 * its loadable segments and its program interpreter. Reads only the ELF
 * and program headers; 32 and 64 bits, either byte order.
 */
#ifndef QTRACE_PLUGIN_ELF_LOAD_H
#define QTRACE_PLUGIN_ELF_LOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "qtrace/err.h"

#define ELF_LOAD_MAX_SEGS 16

struct elf_seg {
    uint64_t vaddr;             /* p_vaddr */
    uint64_t memsz;             /* p_memsz */
    uint64_t offset;            /* p_offset */
    uint32_t flags;             /* p_flags: PF_X, PF_W, PF_R */
};

struct elf_load {
    uint64_t entry;             /* e_entry */
    bool is_dyn;                /* ET_DYN: loaded at a bias */
    size_t n_segs;              /* PT_LOAD entries kept, in file order */
    struct elf_seg segs[ELF_LOAD_MAX_SEGS];
    char interp[256];           /* PT_INTERP, "" if none */
};

/*
 * Read path's headers into out. Returns 0, or -errno (-ENOEXEC for a file
 * that is not ELF or whose headers do not fit) with err saying why.
 */
int elf_load_read(const char *path, struct elf_load *out,
                  struct qtrace_err *err);

#endif /* QTRACE_PLUGIN_ELF_LOAD_H */
