/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The DWARF view of one ELF file that lcov needs, read with libdw: which
 * source line each code address belongs to (the line table) and where
 * each function starts (its declaration line and entry). A file stripped
 * of its DWARF is read through its separate debug file.
 * Single-threaded.
 */
#ifndef QTRACE_COVERAGE_LINES_H
#define QTRACE_COVERAGE_LINES_H

#include <stddef.h>
#include <stdint.h>

/* [start, end) of code of one line of one source file. */
struct line_range {
    uint64_t start, end;            /* ELF addresses */
    const char *file;               /* owned by the table */
    int line;
};

struct line_func {
    uint64_t entry;                 /* ELF address of its first insn */
    const char *name;               /* owned by the table */
    const char *file;
    int line;                       /* its declaration's line */
};

struct line_table {
    struct line_range *ranges;      /* sorted by start */
    size_t n_ranges;
    struct line_func *funcs;
    size_t n_funcs;
    void *priv;                     /* libdw's handle and the names */
};

/*
 * Read the line table and functions of the ELF file path, or of its
 * separate debug file when path has none. Returns 0, or -1 when neither
 * has a line table (t is then empty).
 */
int line_table_read(struct line_table *t, const char *path);
void line_table_free(struct line_table *t);

#endif /* QTRACE_COVERAGE_LINES_H */
