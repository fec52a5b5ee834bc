/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * DWARF line tables and function entries of an ELF file, with libdw
 * (coverage-lines.h).
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "coverage-lines.h"

/* Grows *v (of *cap elements of size) to hold one more than n. */
static void *grow(void *v, size_t n, size_t *cap, size_t size)
{
    void *bigger;

    if (n < *cap) {
        return v;
    }
    *cap = *cap ? *cap * 2 : 256;
    bigger = realloc(v, *cap * size);
    if (!bigger) {
        free(v);
    }
    return bigger;
}

/*
 * The file name of a row as lcov wants it: a relative name is relative
 * to the compilation directory. Joined names are kept once per file.
 */
static const char *full_path(struct line_table *t, const char *comp_dir,
                             const char *file)
{
    size_t i, len;
    char *joined, **more;

    if (file[0] == '/' || !comp_dir) {
        return file;
    }
    len = strlen(comp_dir) + 1 + strlen(file) + 1;
    joined = malloc(len);
    if (!joined) {
        return file;
    }
    snprintf(joined, len, "%s/%s", comp_dir, file);
    for (i = 0; i < t->n_paths; i++) {
        if (strcmp(t->paths[i], joined) == 0) {
            free(joined);
            return t->paths[i];
        }
    }
    more = realloc(t->paths, (t->n_paths + 1) * sizeof(*more));
    if (!more) {
        free(joined);
        return file;
    }
    t->paths = more;
    t->paths[t->n_paths++] = joined;
    return joined;
}

/*
 * Row i of the table covers the addresses up to the next row's; libdw
 * gives the rows sorted by address, a sequence's end row first among
 * rows of the same address. Rows of no length (several lines at one
 * address) hold no instruction: the last of them does.
 */
static int add_lines(struct line_table *t, size_t *cap, Dwarf_Die *cu)
{
    Dwarf_Attribute attr;
    const char *comp_dir = dwarf_formstring(dwarf_attr(cu, DW_AT_comp_dir,
                                                       &attr));
    const char *prev_raw = NULL, *prev_full = NULL;
    Dwarf_Lines *lines;
    size_t n, i;

    if (dwarf_getsrclines(cu, &lines, &n) != 0) {
        return 0;
    }
    for (i = 0; i + 1 < n; i++) {
        Dwarf_Line *row = dwarf_onesrcline(lines, i);
        Dwarf_Line *next = dwarf_onesrcline(lines, i + 1);
        Dwarf_Addr start, end;
        bool ends;
        int line;
        const char *file;

        if (dwarf_lineendsequence(row, &ends) != 0 || ends ||
            dwarf_lineaddr(row, &start) != 0 ||
            dwarf_lineaddr(next, &end) != 0 || end <= start ||
            dwarf_lineno(row, &line) != 0 ||
            !(file = dwarf_linesrc(row, NULL, NULL))) {
            continue;
        }
        t->ranges = grow(t->ranges, t->n_ranges, cap, sizeof(*t->ranges));
        if (!t->ranges) {
            return -1;
        }
        if (file != prev_raw) {
            prev_raw = file;
            prev_full = full_path(t, comp_dir, file);
        }
        t->ranges[t->n_ranges++] = (struct line_range){
            .start = start, .end = end, .file = prev_full, .line = line,
        };
    }
    return 0;
}

static int add_funcs(struct line_table *t, size_t *cap, Dwarf_Die *cu)
{
    Dwarf_Attribute attr;
    const char *comp_dir = dwarf_formstring(dwarf_attr(cu, DW_AT_comp_dir,
                                                       &attr));
    Dwarf_Die die;
    int more;

    for (more = dwarf_child(cu, &die) == 0; more;
         more = dwarf_siblingof(&die, &die) == 0) {
        Dwarf_Addr entry;
        int line;
        const char *name, *file;

        if (dwarf_tag(&die) != DW_TAG_subprogram ||
            dwarf_lowpc(&die, &entry) != 0 ||
            !(name = dwarf_diename(&die)) ||
            !(file = dwarf_decl_file(&die)) ||
            dwarf_decl_line(&die, &line) != 0) {
            continue;
        }
        t->funcs = grow(t->funcs, t->n_funcs, cap, sizeof(*t->funcs));
        if (!t->funcs) {
            return -1;
        }
        t->funcs[t->n_funcs++] = (struct func_decl){
            .entry = entry, .name = name,
            .file = full_path(t, comp_dir, file), .line = line,
        };
    }
    return 0;
}

static int by_start(const void *a, const void *b)
{
    const struct line_range *x = a, *y = b;

    return x->start < y->start ? -1 : x->start > y->start;
}

int line_table_read(struct line_table *t, const char *path)
{
    size_t range_cap = 0, func_cap = 0, header;
    Dwarf_Off off = 0, next;
    Dwarf *dw;

    memset(t, 0, sizeof(*t));
    t->fd = open(path, O_RDONLY);
    if (t->fd < 0) {
        return -1;
    }
    dw = dwarf_begin(t->fd, DWARF_C_READ);
    if (!dw) {
        close(t->fd);
        t->fd = -1;
        return -1;
    }
    t->dwarf = dw;
    while (dwarf_nextcu(dw, off, &next, &header, NULL, NULL, NULL) == 0) {
        Dwarf_Die cu;

        if (dwarf_offdie(dw, off + header, &cu) &&
            (add_lines(t, &range_cap, &cu) < 0 ||
             add_funcs(t, &func_cap, &cu) < 0)) {
            line_table_free(t);
            return -1;
        }
        off = next;
    }
    qsort(t->ranges, t->n_ranges, sizeof(*t->ranges), by_start);
    return t->n_ranges ? 0 : -1;
}

const struct line_range *line_table_find(const struct line_table *t,
                                         uint64_t addr)
{
    size_t lo = 0, hi = t->n_ranges;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;

        if (t->ranges[mid].start <= addr) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    if (lo == 0 || addr >= t->ranges[lo - 1].end) {
        return NULL;
    }
    return &t->ranges[lo - 1];
}

void line_table_free(struct line_table *t)
{
    size_t i;

    for (i = 0; i < t->n_paths; i++) {
        free(t->paths[i]);
    }
    free(t->paths);
    free(t->ranges);
    free(t->funcs);
    if (t->dwarf) {
        dwarf_end(t->dwarf);
    }
    if (t->fd >= 0) {
        close(t->fd);
    }
    memset(t, 0, sizeof(*t));
    t->fd = -1;
}
