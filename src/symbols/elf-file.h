/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * One ELF file as the symbol table needs it: its PT_LOAD segments and its
 * function symbols at link-time addresses, sorted and made disjoint (the
 * rules are in include/qtrace/symbols.h). Read once with libelf; the file
 * is closed again before elf_file_read() returns.
 */
#ifndef QTRACE_SYMBOLS_ELF_FILE_H
#define QTRACE_SYMBOLS_ELF_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "qtrace/err.h"
#include "qtrace/symbols.h"

struct elf_segment {
    uint64_t offset;                /* p_offset */
    uint64_t vaddr;                 /* p_vaddr */
    uint64_t filesz;                /* p_filesz */
    uint64_t memsz;                 /* p_memsz */
    bool exec;                      /* PF_X */
};

struct elf_file {
    bool dynamic;                   /* ET_DYN: placed by a load bias */
    size_t n_segs;
    struct elf_segment *segs;       /* PT_LOAD, in file order */
    uint64_t lo, hi;                /* extent of all PT_LOAD: [lo, hi) */
    uint64_t lo_offset;             /* file offset of the segment at lo */
    size_t n_syms;
    struct qtrace_sym *syms;        /* sorted by addr, disjoint */
    char *names;                    /* every name, NUL-separated */
    bool has_anchor;                /* _text or _stext is defined */
    uint64_t anchor;                /* _text, else _stext (ELF address) */
};

/*
 * Read path into *f (zeroed first). Returns 0, or -errno with err as
 * "PATH: REASON": -ENOEXEC for a file that is not ELF at all, -EINVAL
 * for an ELF file that is not a program or shared object.
 */
int elf_file_read(struct elf_file *f, const char *path,
                  struct qtrace_err *err);
void elf_file_fini(struct elf_file *f);

/*
 * Load bias of the file when file offset offset is mapped at [start,
 * end): start minus the ELF address of that offset in a PT_LOAD segment
 * whose page holds it. Several segments may share a page (a data
 * segment starting in the page where read-only data ends): then known
 * (when non-NULL), the bias of an earlier mapping of the file, wins if
 * one of them gives it, else a segment whose pages hold the whole
 * mapping, and among those one whose bytes hold offset.
 */
uint64_t elf_file_bias(const struct elf_file *f, uint64_t start,
                       uint64_t end, uint64_t offset,
                       const uint64_t *known);

/* ELF address of the first executable PT_LOAD (lo if there is none). */
uint64_t elf_file_exec_lo(const struct elf_file *f);

/*
 * The ELF address a --symbols FILE@ADDR places at ADDR: _text, else
 * _stext (a kernel's start, which /proc/kallsyms shows), else the first
 * executable PT_LOAD.
 */
uint64_t elf_file_anchor(const struct elf_file *f);

#endif /* QTRACE_SYMBOLS_ELF_FILE_H */
