/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Reading the catalog out of libqtrace.so (see plugin-catalog.h). The
 * symbol is hidden, so it sits only in .symtab: a plugin whose symbol
 * table was stripped has no readable catalog.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "plugin-catalog.h"

#define CATALOG_SYMBOL "qtrace_catalog_text"

/* The symbol's bytes: a pointer into its section's data, or NULL. */
static const char *symbol_bytes(Elf *elf, const GElf_Sym *sym)
{
    Elf_Scn *scn = elf_getscn(elf, sym->st_shndx);
    GElf_Shdr sh;
    Elf_Data *data;
    uint64_t off;

    if (!scn || !gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS) {
        return NULL;
    }
    data = elf_getdata(scn, NULL);
    off = sym->st_value - sh.sh_addr;
    if (!data || !data->d_buf || sym->st_value < sh.sh_addr ||
        off > data->d_size || sym->st_size > data->d_size - off ||
        sym->st_size == 0) {
        return NULL;
    }
    /* A C string: its last byte must be the NUL. */
    if (((const char *)data->d_buf)[off + sym->st_size - 1] != '\0') {
        return NULL;
    }
    return (const char *)data->d_buf + off;
}

/* Look CATALOG_SYMBOL up in the tables of type (SHT_SYMTAB, SHT_DYNSYM). */
static const char *find_catalog(Elf *elf, Elf64_Word type)
{
    Elf_Scn *scn = NULL;

    while ((scn = elf_nextscn(elf, scn))) {
        GElf_Shdr sh;
        Elf_Data *data;
        size_t i, n;

        if (!gelf_getshdr(scn, &sh) || sh.sh_type != type ||
            sh.sh_entsize == 0 || !(data = elf_getdata(scn, NULL))) {
            continue;
        }
        n = sh.sh_size / sh.sh_entsize;
        for (i = 0; i < n; i++) {
            GElf_Sym sym;
            const char *name;

            if (!gelf_getsym(data, (int)i, &sym)) {
                break;
            }
            name = elf_strptr(elf, sh.sh_link, sym.st_name);
            if (name && strcmp(name, CATALOG_SYMBOL) == 0) {
                return symbol_bytes(elf, &sym);
            }
        }
    }
    return NULL;
}

int plugin_catalog_load(const char *path, struct qtrace_catalog *cat,
                        struct qtrace_err *err)
{
    const char *text;
    Elf *elf;
    int fd, ret;

    fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        ret = -errno;
        qtrace_err_set(err, "%s: %s", path, strerror(errno));
        return ret;
    }
    elf_version(EV_CURRENT);
    elf = elf_begin(fd, ELF_C_READ, NULL);
    if (!elf || elf_kind(elf) != ELF_K_ELF) {
        qtrace_err_set(err, "%s: not an ELF file", path);
        ret = -EINVAL;
    } else {
        text = find_catalog(elf, SHT_SYMTAB);
        if (!text) {
            text = find_catalog(elf, SHT_DYNSYM);
        }
        if (!text) {
            qtrace_err_set(err, "%s: no symbol " CATALOG_SYMBOL
                           " (symbol table stripped?)", path);
            ret = -ENOENT;
        } else {
            ret = qtrace_catalog_parse(cat, text, err);
        }
    }
    elf_end(elf);
    close(fd);
    return ret;
}
