/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Test helper: small ELF files written with libelf (see fake-elf.h). */
#include <fcntl.h>
#include <gelf.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "fake-elf.h"

static Elf_Scn *new_section(Elf *e, size_t name, uint32_t type,
                            uint64_t flags, uint64_t addr, uint64_t size)
{
    Elf_Scn *scn = elf_newscn(e);
    GElf_Shdr sh;

    assert_non_null(scn);
    assert_non_null(gelf_getshdr(scn, &sh));
    sh.sh_name = name;
    sh.sh_type = type;
    sh.sh_flags = flags;
    sh.sh_addr = addr;
    sh.sh_size = size;
    sh.sh_addralign = 1;
    assert_true(gelf_update_shdr(scn, &sh));
    return scn;
}

static void add_data(Elf_Scn *scn, void *buf, size_t len, Elf_Type type)
{
    Elf_Data *d = elf_newdata(scn);

    assert_non_null(d);
    d->d_buf = buf;
    d->d_size = len;
    d->d_type = type;
    d->d_align = 8;
    d->d_version = EV_CURRENT;
}

/* Section names, and where each starts in this string. */
static const char shstr[] = "\0.text\0.symtab\0.strtab\0.shstrtab"
                            "\0.plt\0.rela.plt\0.dynsym\0.dynstr";
enum {
    SH_TEXT = 1, SH_SYMTAB = 7, SH_STRTAB = 15, SH_SHSTRTAB = 23,
    SH_PLT = 33, SH_RELA_PLT = 38, SH_DYNSYM = 48, SH_DYNSTR = 56,
};

#define FAKE_GOT_OFFSET 0x800

/* The .plt bytes: a zeroed header, then one jmp *GOT(%rip) per stub. */
static uint8_t *plt_code(const struct fake_elf *fe, size_t *len)
{
    size_t i, n;
    uint8_t *code;

    *len = fe->plt_size ? fe->plt_size : 16 + 16 * fe->n_plt;
    code = calloc(1, *len);
    assert_non_null(code);
    n = (*len - 16) / 16;
    for (i = 0; i < n; i++) {
        uint64_t at = fe->plt_addr + 16 + 16 * i;
        uint64_t slot = fe->plt_addr + FAKE_GOT_OFFSET + 8 * i;
        uint32_t disp = (uint32_t)(slot - (at + 6));
        uint8_t *p = code + 16 + 16 * i;

        p[0] = 0xff;
        p[1] = 0x25;
        p[2] = (uint8_t)disp;
        p[3] = (uint8_t)(disp >> 8);
        p[4] = (uint8_t)(disp >> 16);
        p[5] = (uint8_t)(disp >> 24);
    }
    return code;
}

/* .plt, .rela.plt (JUMP_SLOT i -> dynamic symbol i + 1) and .dynsym. */
static void add_plt(Elf *e, const struct fake_elf *fe, void **bufs)
{
    size_t sym_size = gelf_fsize(e, ELF_T_SYM, 1, EV_CURRENT);
    size_t rela_size = gelf_fsize(e, ELF_T_RELA, 1, EV_CURRENT);
    Elf_Scn *str, *dyn, *rela, *plt;
    size_t i, str_len = 1, plt_len;
    GElf_Shdr sh;
    char *names;

    bufs[0] = names = calloc(1, 4096);
    bufs[1] = calloc(fe->n_plt + 1, sym_size);
    bufs[2] = calloc(fe->n_plt, rela_size);
    str = new_section(e, SH_DYNSTR, SHT_STRTAB, 0, 0, 0);
    dyn = new_section(e, SH_DYNSYM, SHT_DYNSYM, 0, 0, 0);
    rela = new_section(e, SH_RELA_PLT, SHT_RELA, SHF_ALLOC, 0, 0);
    add_data(dyn, bufs[1], (fe->n_plt + 1) * sym_size, ELF_T_SYM);
    add_data(rela, bufs[2], fe->n_plt * rela_size, ELF_T_RELA);
    for (i = 0; i < fe->n_plt; i++) {
        GElf_Sym sym = { 0 };
        GElf_Rela r = { 0 };

        sym.st_name = (uint32_t)str_len;
        sym.st_info = GELF_ST_INFO(STB_GLOBAL, STT_FUNC);
        strcpy(names + str_len, fe->plt[i]);
        str_len += strlen(fe->plt[i]) + 1;
        assert_true(gelf_update_sym(elf_getdata(dyn, NULL), (int)i + 1,
                                    &sym));
        r.r_offset = fe->plt_addr + FAKE_GOT_OFFSET + 8 * (fe->n_plt - 1 - i);
        r.r_info = GELF_R_INFO(i + 1, R_X86_64_JUMP_SLOT);
        assert_true(gelf_update_rela(elf_getdata(rela, NULL), (int)i, &r));
    }
    add_data(str, names, str_len, ELF_T_BYTE);
    assert_non_null(gelf_getshdr(dyn, &sh));
    sh.sh_link = (uint32_t)elf_ndxscn(str);
    sh.sh_entsize = sym_size;
    sh.sh_info = 1;
    assert_true(gelf_update_shdr(dyn, &sh));
    assert_non_null(gelf_getshdr(rela, &sh));
    sh.sh_link = (uint32_t)elf_ndxscn(dyn);
    sh.sh_entsize = rela_size;
    assert_true(gelf_update_shdr(rela, &sh));
    plt = new_section(e, SH_PLT, SHT_PROGBITS, SHF_ALLOC | SHF_EXECINSTR,
                      fe->plt_addr, 0);
    bufs[3] = plt_code(fe, &plt_len);
    add_data(plt, bufs[3], plt_len, ELF_T_BYTE);
    assert_non_null(gelf_getshdr(plt, &sh));
    sh.sh_entsize = 16;
    assert_true(gelf_update_shdr(plt, &sh));
}

/* Symbol and string tables for fe; buffers freed by the caller. */
static void add_symtab(Elf *e, const struct fake_elf *fe, size_t text_idx,
                       void **symbuf, char **strbuf)
{
    size_t entsize = gelf_fsize(e, ELF_T_SYM, 1, EV_CURRENT);
    size_t i, str_len = 1;
    Elf_Scn *str_scn, *sym_scn;
    GElf_Shdr sh;
    Elf_Data *d;

    *strbuf = calloc(1, 4096);
    *symbuf = calloc(fe->n_syms + 1, entsize);
    str_scn = new_section(e, SH_STRTAB, SHT_STRTAB, 0, 0, 0);
    sym_scn = new_section(e, SH_SYMTAB, SHT_SYMTAB, 0, 0, 0);
    add_data(sym_scn, *symbuf, (fe->n_syms + 1) * entsize, ELF_T_SYM);
    d = elf_getdata(sym_scn, NULL);
    for (i = 0; i < fe->n_syms; i++) {
        GElf_Sym sym = { 0 };

        sym.st_name = (uint32_t)str_len;
        strcpy(*strbuf + str_len, fe->syms[i].name);
        str_len += strlen(fe->syms[i].name) + 1;
        sym.st_value = fe->syms[i].value;
        sym.st_size = fe->syms[i].size;
        sym.st_info = GELF_ST_INFO(fe->syms[i].bind, fe->syms[i].type);
        sym.st_shndx = (uint16_t)text_idx;
        assert_true(gelf_update_sym(d, (int)i + 1, &sym));
    }
    add_data(str_scn, *strbuf, str_len, ELF_T_BYTE);
    assert_non_null(gelf_getshdr(sym_scn, &sh));
    sh.sh_link = (uint32_t)elf_ndxscn(str_scn);
    sh.sh_entsize = entsize;
    sh.sh_info = 1;
    assert_true(gelf_update_shdr(sym_scn, &sh));
}

const char *fake_elf_write(const char *dir, const char *name,
                           const struct fake_elf *fe)
{
    static char path[512];
    void *symbuf, *plt_bufs[4] = { NULL, NULL, NULL, NULL };
    char *strbuf;
    Elf_Scn *text, *shs;
    GElf_Ehdr eh;
    Elf *e;
    size_t i;
    int fd;

    snprintf(path, sizeof(path), "%s/%s", dir, name);
    assert_int_not_equal(elf_version(EV_CURRENT), EV_NONE);
    fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
    assert_true(fd >= 0);
    e = elf_begin(fd, ELF_C_WRITE, NULL);
    assert_non_null(e);
    assert_non_null(gelf_newehdr(e, fe->cls));
    assert_non_null(gelf_getehdr(e, &eh));
    eh.e_ident[EI_DATA] = ELFDATA2LSB;
    eh.e_machine = (uint16_t)fe->machine;
    eh.e_type = (uint16_t)fe->type;
    eh.e_version = EV_CURRENT;
    assert_true(gelf_update_ehdr(e, &eh));
    assert_non_null(gelf_newphdr(e, fe->n_segs));
    text = new_section(e, SH_TEXT, SHT_NOBITS, SHF_ALLOC | SHF_EXECINSTR,
                       fe->text_addr, fe->text_size);
    /* libelf sizes sections from their data, even NOBITS ones. */
    add_data(text, NULL, fe->text_size, ELF_T_BYTE);
    add_symtab(e, fe, elf_ndxscn(text), &symbuf, &strbuf);
    if (fe->n_plt) {
        add_plt(e, fe, plt_bufs);
    }
    shs = new_section(e, SH_SHSTRTAB, SHT_STRTAB, 0, 0, 0);
    add_data(shs, (void *)shstr, sizeof(shstr), ELF_T_BYTE);
    assert_non_null(gelf_getehdr(e, &eh));
    eh.e_shstrndx = (uint16_t)elf_ndxscn(shs);
    assert_true(gelf_update_ehdr(e, &eh));
    for (i = 0; i < fe->n_segs; i++) {
        GElf_Phdr ph = { 0 };

        ph.p_type = PT_LOAD;
        ph.p_offset = fe->segs[i].offset;
        ph.p_vaddr = ph.p_paddr = fe->segs[i].vaddr;
        ph.p_filesz = ph.p_memsz = fe->segs[i].memsz;
        ph.p_flags = PF_R | (fe->segs[i].exec ? PF_X : 0);
        ph.p_align = 0x1000;
        assert_true(gelf_update_phdr(e, (int)i, &ph));
    }
    assert_true(elf_update(e, ELF_C_WRITE) >= 0);
    elf_end(e);
    close(fd);
    free(symbuf);
    free(strbuf);
    free(plt_bufs[0]);
    free(plt_bufs[1]);
    free(plt_bufs[2]);
    free(plt_bufs[3]);
    return path;
}

