/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Reading System.map and /proc/kallsyms text (see symbol-table.h). The
 * lines go through the same ranking and trimming as an ELF file's
 * symbols (elf-file.c), as functions bound by their type letter: T
 * global, W and w weak, t local.
 */
#include <errno.h>
#include <gelf.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sym-collect.h"
#include "symbol-table.h"

#define MAX_FIELDS 5                /* one more than a valid line has */

/* One line cut into fields, in place (the line is a copy). */
struct fields {
    char *f[MAX_FIELDS];
    size_t n;
};

static void split_fields(char *line, struct fields *out)
{
    char *save = NULL;
    char *tok = strtok_r(line, " \t\r", &save);

    out->n = 0;
    while (tok && out->n < MAX_FIELDS) {
        out->f[out->n++] = tok;
        tok = strtok_r(NULL, " \t\r", &save);
    }
}

/* A hexadecimal address without 0x, as nm and the kernel print them. */
static bool parse_hex(const char *s, uint64_t *v)
{
    size_t n = strspn(s, "0123456789abcdefABCDEF");

    if (n == 0 || n > 16 || s[n] != '\0') {
        return false;
    }
    *v = strtoull(s, NULL, 16);
    return true;
}

/* The binding a type letter stands for, or -1 for a non-text symbol. */
static int text_bind(char type)
{
    switch (type) {
    case 'T':
        return STB_GLOBAL;
    case 'W':
    case 'w':
        return STB_WEAK;
    case 't':
        return STB_LOCAL;
    default:
        return -1;
    }
}

/* State of one parse. */
struct table_parse {
    struct collect col;
    char *name;                     /* "name [mod]" being built */
    size_t name_cap;
    size_t n_lines;                 /* symbol lines read, any type */
    size_t n_kept, n_nonzero;       /* text symbols; those not at 0 */
};

static int add_symbol(struct table_parse *tp, uint64_t addr, int bind,
                      const char *name, const char *module)
{
    size_t need = strlen(name) + (module ? strlen(module) + 2 : 1);
    GElf_Sym sym = { 0 };
    /* No section bounds: a symbol runs to the next (cut later). */
    GElf_Shdr sh = { .sh_addr = 0, .sh_size = UINT64_MAX };

    if (need > tp->name_cap) {
        char *grown = realloc(tp->name, need);

        if (!grown) {
            return -ENOMEM;
        }
        tp->name = grown;
        tp->name_cap = need;
    }
    snprintf(tp->name, need, "%s%s%s", name, module ? " " : "",
             module ? module : "");
    sym.st_value = addr;
    sym.st_info = GELF_ST_INFO(bind, STT_FUNC);
    tp->n_kept++;
    tp->n_nonzero += addr != 0;
    return collect_add(&tp->col, &sym, &sh, tp->name);
}

static void note_anchor(struct table_parse *tp, uint64_t addr,
                        const char *name)
{
    if (strcmp(name, "_text") == 0) {
        tp->col.has_text = true;
        tp->col.text = addr;
    } else if (strcmp(name, "_stext") == 0) {
        tp->col.has_stext = true;
        tp->col.stext = addr;
    }
}

/*
 * One line (a writable copy). 0 when taken or passed over, 1 when it has
 * another form, -ENOMEM.
 */
static int parse_line(struct table_parse *tp, char *line)
{
    struct fields fl;
    uint64_t addr;
    int bind;

    split_fields(line, &fl);
    if (fl.n == 0 || (fl.n == 2 && strlen(fl.f[0]) == 1)) {
        return 0;                   /* blank, or nm's "U name" */
    }
    if (fl.n < 3 || fl.n > 4 || !parse_hex(fl.f[0], &addr) ||
        strlen(fl.f[1]) != 1 ||
        (fl.n == 4 && (fl.f[3][0] != '[' ||
                       fl.f[3][strlen(fl.f[3]) - 1] != ']'))) {
        return 1;
    }
    tp->n_lines++;
    note_anchor(tp, addr, fl.f[2]);
    bind = text_bind(fl.f[1][0]);
    if (bind < 0) {
        return 0;
    }
    return add_symbol(tp, addr, bind, fl.f[2], fl.n == 4 ? fl.f[3] : NULL);
}

/* The module part of a name, "[mod]", or "" for the kernel's own. */
static const char *module_of(const char *name)
{
    const char *sp = strstr(name, " [");

    return sp ? sp + 1 : "";
}

/*
 * Sizes ran to the next symbol; the last one of each module (and of the
 * kernel, before the first module's) gets a fixed size instead of the
 * gap to unrelated code.
 */
static void cap_module_ends(struct elf_file *f)
{
    size_t i;

    for (i = 0; i < f->n_syms; i++) {
        bool last = i + 1 == f->n_syms ||
                    strcmp(module_of(f->syms[i].name),
                           module_of(f->syms[i + 1].name)) != 0;

        if (last && f->syms[i].size > SYMBOL_TABLE_LAST_SIZE) {
            f->syms[i].size = SYMBOL_TABLE_LAST_SIZE;
        }
    }
    f->lo = f->syms[0].addr;
    f->hi = f->syms[f->n_syms - 1].addr + f->syms[f->n_syms - 1].size;
    if (!f->has_anchor) {
        f->anchor = f->lo;
    }
}

/* Every line; 0, or -errno with err filled. */
static int parse_lines(struct table_parse *tp, const char *text, size_t len,
                       const char *path, struct qtrace_err *err)
{
    const char *p = text, *end = text + len;
    char *line = NULL;
    size_t line_no = 0, cap = 0;
    int ret = 0;

    while (ret == 0 && p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t n = (size_t)((nl ? nl : end) - p);

        line_no++;
        if (n + 1 > cap) {
            char *grown = realloc(line, n + 1);

            if (!grown) {
                ret = -ENOMEM;
                break;
            }
            line = grown;
            cap = n + 1;
        }
        memcpy(line, p, n);
        line[n] = '\0';
        if (memchr(p, '\0', n)) {
            ret = 1;                /* binary data */
        } else {
            ret = parse_line(tp, line);
        }
        p += n + 1;
    }
    free(line);
    if (ret == 1) {
        /* Before any symbol line it may be no symbol table at all. */
        qtrace_err_set(err, "%s: line %zu: not a symbol line (ADDR TYPE "
                       "NAME [MODULE])%s", path, line_no,
                       tp->n_lines ? "" : ", and not an ELF file");
        return -EINVAL;
    }
    if (ret < 0) {
        qtrace_err_set(err, "%s: %s", path, strerror(-ret));
    }
    return ret;
}

int symbol_table_parse(struct elf_file *f, const char *text, size_t len,
                       const char *path, struct qtrace_err *err)
{
    struct table_parse tp = { .col = { .c = NULL } };
    int ret;

    memset(f, 0, sizeof(*f));
    ret = parse_lines(&tp, text, len, path, err);
    if (ret == 0 && tp.n_kept == 0) {
        qtrace_err_set(err, "%s: no text symbols (types t, T, w, W)", path);
        ret = -EINVAL;
    } else if (ret == 0 && tp.n_kept > 1 && tp.n_nonzero == 0) {
        qtrace_err_set(err, "%s: every address is 0 (kallsyms read without "
                       "the right to see addresses, see kptr_restrict: "
                       "read it as root)", path);
        ret = -EINVAL;
    }
    if (ret == 0) {
        ret = collect_build(f, &tp.col);
        if (ret < 0) {
            qtrace_err_set(err, "%s: %s", path, strerror(ENOMEM));
        }
    }
    if (ret == 0) {
        cap_module_ends(f);
    }
    free(tp.col.c);
    free(tp.col.pool);
    free(tp.name);
    if (ret < 0) {
        elf_file_fini(f);
    }
    return ret;
}
