/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What coverage needs of an ELF file: its entry point, its PT_LOAD
 * segments and its anchor (_text, _stext), read with libelf; and the
 * one way this folder opens a file a trace names (regular files outside
 * /proc only, never waiting). Single-threaded.
 */
#ifndef QTRACE_COVERAGE_COV_ELF_H
#define QTRACE_COVERAGE_COV_ELF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "qtrace/err.h"

struct cov_load {
    uint64_t offset;                /* p_offset */
    uint64_t vaddr;                 /* p_vaddr */
    uint64_t filesz, memsz;
    bool exec;                      /* PF_X */
};

struct cov_elf {
    uint64_t entry;                 /* e_entry */
    struct cov_load *loads;         /* PT_LOAD, in file order */
    size_t n_loads;
    bool has_anchor;                /* _text or _stext is defined */
    uint64_t anchor;                /* _text, else _stext */
};

/*
 * Open path read-only if it is a regular file outside /proc, without
 * blocking on a FIFO. Returns the descriptor, or -errno with err as
 * "PATH: REASON".
 */
int cov_open_file(const char *path, struct qtrace_err *err);

/*
 * Read path's ELF header and program headers (and with symbols, its
 * _text and _stext) into *e (zeroed first). Returns 0, or -errno with
 * err as "PATH: REASON" (-ENOEXEC: not an ELF file).
 */
int cov_elf_read(const char *path, bool symbols, struct cov_elf *e,
                 struct qtrace_err *err);
void cov_elf_fini(struct cov_elf *e);

/*
 * The load bias when file offset offset is mapped at start: start minus
 * the ELF address of that offset in the PT_LOAD whose pages hold it.
 * false when no PT_LOAD holds offset.
 */
bool cov_elf_bias(const struct cov_elf *e, uint64_t start, uint64_t offset,
                  uint64_t *bias);

#endif /* QTRACE_COVERAGE_COV_ELF_H */
