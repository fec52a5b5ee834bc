/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The coverage example's view of an ELF file's DWARF: which source line
 * each code address belongs to (the line table), and where each function
 * starts (its declaration line and entry address). Read with libdw.
 */
#ifndef QTRACE_EXAMPLE_COVERAGE_LINES_H
#define QTRACE_EXAMPLE_COVERAGE_LINES_H

#include <stddef.h>
#include <stdint.h>

/* [start, end) of code belonging to one line of one file. */
struct line_range {
    uint64_t start, end;        /* ELF addresses */
    const char *file;           /* owned by the table */
    int line;
};

struct func_decl {
    uint64_t entry;             /* ELF address of its first instruction */
    const char *name;           /* owned by the table */
    const char *file;
    int line;                   /* where it is declared */
};

struct line_table {
    struct line_range *ranges;  /* sorted by start, not overlapping */
    size_t n_ranges;
    struct func_decl *funcs;
    size_t n_funcs;
    void *dwarf;                /* libdw's handle: owns the names */
    int fd;
    char **paths;               /* file names made absolute, owned */
    size_t n_paths;
};

/*
 * Reads path's line table and functions. Returns 0, or -1 when the file
 * cannot be read or has no DWARF line table (the table is then empty).
 */
int line_table_read(struct line_table *t, const char *path);

/* The range holding ELF address addr, or NULL. */
const struct line_range *line_table_find(const struct line_table *t,
                                         uint64_t addr);

void line_table_free(struct line_table *t);

#endif /* QTRACE_EXAMPLE_COVERAGE_LINES_H */
