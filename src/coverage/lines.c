/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * DWARF line tables and function entries with libdw (lines.h). Names
 * made absolute (a relative name is relative to its unit's compilation
 * directory) are kept once each in a string chunk.
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <glib.h>

#include "cov-elf.h"
#include "lines.h"
#include "qtrace/symbols.h"

struct lines_priv {
    Dwarf *dw;
    int fd;
    GStringChunk *names;
    size_t cap_ranges, cap_funcs;
};

static bool grow(void **v, size_t n, size_t *cap, size_t size)
{
    void *bigger;
    size_t want;

    if (n < *cap) {
        return true;
    }
    want = *cap ? *cap * 2 : 256;
    bigger = realloc(*v, want * size);
    if (!bigger) {
        return false;
    }
    *v = bigger;
    *cap = want;
    return true;
}

static const char *full_path(struct lines_priv *p, const char *comp_dir,
                             const char *file)
{
    char *joined;
    const char *kept;

    if (file[0] == '/' || !comp_dir) {
        return g_string_chunk_insert_const(p->names, file);
    }
    joined = g_build_filename(comp_dir, file, NULL);
    kept = g_string_chunk_insert_const(p->names, joined);
    g_free(joined);
    return kept;
}

static const char *comp_dir_of(Dwarf_Die *cu)
{
    Dwarf_Attribute attr;

    return dwarf_formstring(dwarf_attr(cu, DW_AT_comp_dir, &attr));
}

/*
 * Row i covers the addresses up to row i + 1's (libdw gives a unit's
 * rows sorted by address); an end-of-sequence row covers nothing, and
 * of rows at one address only the last holds code.
 */
static int add_lines(struct line_table *t, struct lines_priv *p,
                     Dwarf_Die *cu)
{
    const char *comp_dir = comp_dir_of(cu);
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
        const char *file;
        bool ends;
        int line;

        if (dwarf_lineendsequence(row, &ends) != 0 || ends ||
            dwarf_lineaddr(row, &start) != 0 ||
            dwarf_lineaddr(next, &end) != 0 || end <= start ||
            dwarf_lineno(row, &line) != 0 || line <= 0 ||
            !(file = dwarf_linesrc(row, NULL, NULL))) {
            continue;
        }
        if (!grow((void **)&t->ranges, t->n_ranges, &p->cap_ranges,
                  sizeof(*t->ranges))) {
            return -1;
        }
        if (file != prev_raw) {
            prev_raw = file;
            prev_full = full_path(p, comp_dir, file);
        }
        t->ranges[t->n_ranges++] = (struct line_range){
            .start = start, .end = end, .file = prev_full, .line = line,
        };
    }
    return 0;
}

static int add_funcs(struct line_table *t, struct lines_priv *p,
                     Dwarf_Die *cu)
{
    const char *comp_dir = comp_dir_of(cu);
    Dwarf_Die die;
    int more;

    for (more = dwarf_child(cu, &die) == 0; more;
         more = dwarf_siblingof(&die, &die) == 0) {
        Dwarf_Addr entry;
        const char *name, *file;
        int line;

        if (dwarf_tag(&die) != DW_TAG_subprogram ||
            dwarf_lowpc(&die, &entry) != 0 ||
            !(name = dwarf_diename(&die)) ||
            !(file = dwarf_decl_file(&die)) ||
            dwarf_decl_line(&die, &line) != 0) {
            continue;
        }
        if (!grow((void **)&t->funcs, t->n_funcs, &p->cap_funcs,
                  sizeof(*t->funcs))) {
            return -1;
        }
        t->funcs[t->n_funcs++] = (struct line_func){
            .entry = entry, .name = g_string_chunk_insert_const(p->names,
                                                                name),
            .file = full_path(p, comp_dir, file), .line = line,
        };
    }
    return 0;
}

static int by_start(const void *a, const void *b)
{
    const struct line_range *x = a, *y = b;

    return (x->start > y->start) - (x->start < y->start);
}

/* Read path's units; 0 when it has a line table, else -1. */
static int read_file(struct line_table *t, struct lines_priv *p,
                     const char *path)
{
    struct qtrace_err ignored;
    Dwarf_Off off = 0, next;
    size_t header;

    p->fd = cov_open_file(path, &ignored);
    if (p->fd < 0) {
        return -1;
    }
    p->dw = dwarf_begin(p->fd, DWARF_C_READ);
    if (!p->dw) {
        close(p->fd);
        p->fd = -1;
        return -1;
    }
    while (dwarf_nextcu(p->dw, off, &next, &header, NULL, NULL, NULL) ==
           0) {
        Dwarf_Die cu;

        if (dwarf_offdie(p->dw, off + header, &cu) &&
            (add_lines(t, p, &cu) < 0 || add_funcs(t, p, &cu) < 0)) {
            return -1;
        }
        off = next;
    }
    return t->n_ranges ? 0 : -1;
}

/* Forget what a read gave, keeping the names' chunk. */
static void reset(struct line_table *t, struct lines_priv *p)
{
    if (p->dw) {
        dwarf_end(p->dw);
        p->dw = NULL;
    }
    if (p->fd >= 0) {
        close(p->fd);
        p->fd = -1;
    }
    t->n_ranges = 0;
    t->n_funcs = 0;
}

int line_table_read(struct line_table *t, const char *path)
{
    struct lines_priv *p = calloc(1, sizeof(*p));
    char *debug;
    int ret;

    memset(t, 0, sizeof(*t));
    if (!p) {
        return -1;
    }
    p->fd = -1;
    p->names = g_string_chunk_new(4096);
    t->priv = p;
    ret = read_file(t, p, path);
    if (ret < 0) {
        reset(t, p);
        debug = qtrace_symbols_debug_file(path);
        ret = debug ? read_file(t, p, debug) : -1;
        free(debug);
    }
    if (ret < 0) {
        line_table_free(t);
        return -1;
    }
    qsort(t->ranges, t->n_ranges, sizeof(*t->ranges), by_start);
    return 0;
}

void line_table_free(struct line_table *t)
{
    struct lines_priv *p = t->priv;

    if (p) {
        reset(t, p);
        g_string_chunk_free(p->names);
        free(p);
    }
    free(t->ranges);
    free(t->funcs);
    memset(t, 0, sizeof(*t));
}
