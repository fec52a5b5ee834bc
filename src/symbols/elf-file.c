/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Reading an ELF file's segments and function symbols with libelf (see
 * elf-file.h). symtab and dynsym are both read: a stripped library keeps
 * only dynsym, a static program only symtab; duplicates collapse.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "debug-file.h"
#include "elf-file.h"
#include "open-file.h"
#include "sym-collect.h"

/* The guest page size QEMU maps with is at least this, at most a segment's
 * alignment: a mapping offset is rounded down to it. */
#define MIN_PAGE 4096u

static int grow(void **p, size_t *cap, size_t need, size_t elem)
{
    size_t n = *cap ? *cap : 64;
    void *q;

    if (need <= *cap) {
        return 0;
    }
    while (n < need) {
        n *= 2;
    }
    q = realloc(*p, n * elem);
    if (!q) {
        return -ENOMEM;
    }
    *p = q;
    *cap = n;
    return 0;
}

/* Whether a name is a symbol people call: not $x, $d, .L1... */
static bool is_wanted_name(const char *name)
{
    return name[0] && name[0] != '$' && strncmp(name, ".L", 2) != 0;
}

/* Rank at one address: a function over a label, global > weak > local. */
static int rank_of(const GElf_Sym *sym)
{
    int type = GELF_ST_TYPE(sym->st_info);
    int bind = GELF_ST_BIND(sym->st_info);
    int r = (type == STT_FUNC || type == STT_GNU_IFUNC) ? CAND_RANK_FUNC : 0;

    if (bind == STB_GLOBAL) {
        r += 2;
    } else if (bind == STB_WEAK) {
        r += 1;
    }
    return r;
}

static size_t underscores(const char *name)
{
    return strspn(name, "_");
}

/* The section a symbol sits in, if it is code; false for anything else. */
static bool code_section(Elf *elf, const GElf_Sym *sym, GElf_Shdr *sh)
{
    Elf_Scn *scn;

    if (sym->st_shndx == SHN_UNDEF || sym->st_shndx >= SHN_LORESERVE) {
        return false;
    }
    scn = elf_getscn(elf, sym->st_shndx);
    return scn && gelf_getshdr(scn, sh) &&
           (sh->sh_flags & SHF_EXECINSTR);
}

int collect_add(struct collect *col, const GElf_Sym *sym,
                const GElf_Shdr *sh, const char *name)
{
    size_t len = strlen(name) + 1;
    struct cand *c;

    if (grow((void **)&col->c, &col->cap, col->n + 1, sizeof(*col->c)) < 0 ||
        grow((void **)&col->pool, &col->pool_cap, col->pool_len + len, 1) <
        0) {
        return -ENOMEM;
    }
    c = &col->c[col->n++];
    c->addr = sym->st_value;
    /* Arm functions in Thumb state have bit 0 set in their value. */
    if (col->machine == EM_ARM && GELF_ST_TYPE(sym->st_info) == STT_FUNC) {
        c->addr &= ~(uint64_t)1;
    }
    c->size = sym->st_size;
    c->sec_end = sh->sh_addr + sh->sh_size;
    c->name = col->pool_len;
    c->rank = rank_of(sym);
    c->type = (unsigned char)GELF_ST_TYPE(sym->st_info);
    /* A full symbol table spells a non-default version "name@VERSION". */
    c->compat = strchr(name, '@') && !strstr(name, "@@") &&
                c->rank >= CAND_RANK_FUNC;
    memcpy(col->pool + col->pool_len, name, len);
    col->pool_len += len;
    return 0;
}

/* The version table of a dynamic symbol table, or NULL. */
static Elf_Data *versym_data(Elf *elf)
{
    Elf_Scn *scn = NULL;
    GElf_Shdr sh;

    while ((scn = elf_nextscn(elf, scn)) != NULL) {
        if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_GNU_versym) {
            return elf_getdata(scn, NULL);
        }
    }
    return NULL;
}

/* Whether dynamic symbol i has a hidden (non-default) version. */
static bool versym_hidden(Elf_Data *versym, size_t i)
{
    GElf_Versym v;

    return versym && gelf_getversym(versym, (int)i, &v) &&
           (v & 0x8000) != 0;
}

/*
 * Note a kernel's start symbols, whatever their type or section: at the
 * address of _text a function (startup_64) usually takes the name.
 */
static void note_anchor(struct collect *col, const GElf_Sym *sym,
                        const char *name)
{
    if (sym->st_shndx == SHN_UNDEF || !name) {
        return;
    }
    if (strcmp(name, "_text") == 0) {
        col->has_text = true;
        col->text = sym->st_value;
    } else if (strcmp(name, "_stext") == 0) {
        col->has_stext = true;
        col->stext = sym->st_value;
    }
}

/* Every wanted symbol of one symbol table section. */
static int collect_table(Elf *elf, Elf_Scn *scn, const GElf_Shdr *tab,
                         struct collect *col)
{
    Elf_Data *data = elf_getdata(scn, NULL);
    Elf_Data *versym = tab->sh_type == SHT_DYNSYM ? versym_data(elf) : NULL;
    size_t i, n;

    if (!data || tab->sh_entsize == 0) {
        return 0;
    }
    n = tab->sh_size / tab->sh_entsize;
    for (i = 1; i < n; i++) {
        GElf_Sym sym;
        GElf_Shdr sh;
        const char *name;
        int type;

        if (!gelf_getsym(data, (int)i, &sym)) {
            break;
        }
        type = GELF_ST_TYPE(sym.st_info);
        if (tab->sh_type == SHT_SYMTAB) {
            note_anchor(col, &sym, elf_strptr(elf, tab->sh_link,
                                              sym.st_name));
        }
        if ((type != STT_FUNC && type != STT_GNU_IFUNC &&
             type != STT_NOTYPE) || !code_section(elf, &sym, &sh)) {
            continue;
        }
        name = elf_strptr(elf, tab->sh_link, sym.st_name);
        if (!name || !is_wanted_name(name)) {
            continue;
        }
        if (collect_add(col, &sym, &sh, name) < 0) {
            return -ENOMEM;
        }
        col->c[col->n - 1].compat |= versym_hidden(versym, i) &&
                                     type != STT_NOTYPE;
    }
    return 0;
}

/* Every symbol table of elf of type type (SHT_SYMTAB or SHT_DYNSYM). */
static int collect_tables(Elf *elf, Elf64_Word type, struct collect *col,
                          bool *found)
{
    Elf_Scn *scn = NULL;

    while ((scn = elf_nextscn(elf, scn)) != NULL) {
        GElf_Shdr sh;

        if (!gelf_getshdr(scn, &sh) || sh.sh_type != type) {
            continue;
        }
        *found = true;
        if (collect_table(elf, scn, &sh, col) < 0) {
            return -ENOMEM;
        }
    }
    return 0;
}

/*
 * The full symbol table of a stripped file, from its separate debug file
 * (same link-time addresses; its sections keep their flags and sizes,
 * not their bytes). A debug file that cannot be read is no error: the
 * dynamic symbols stay.
 */
static int collect_debug_file(const char *path, struct collect *col)
{
    char *debug = debug_file_find(path);
    struct qtrace_err why;
    bool found = false;
    Elf *elf;
    int fd, ret = 0;

    if (!debug) {
        return 0;
    }
    fd = open_regular_file(debug, &why);
    elf = fd >= 0 ? elf_begin(fd, ELF_C_READ_MMAP, NULL) : NULL;
    if (elf && elf_kind(elf) == ELF_K_ELF) {
        ret = collect_tables(elf, SHT_SYMTAB, col, &found);
    }
    elf_end(elf);
    if (fd >= 0) {
        close(fd);
    }
    free(debug);
    return ret;
}

/*
 * symtab and dynsym of the file, symtab of its debug file when it has
 * none itself, then the PLT stubs (named after symbols of both).
 */
static int collect_symbols(Elf *elf, const char *path, struct collect *col)
{
    bool has_symtab = false, has_dynsym = false;
    int ret = collect_tables(elf, SHT_SYMTAB, col, &has_symtab);

    if (ret == 0) {
        ret = collect_tables(elf, SHT_DYNSYM, col, &has_dynsym);
    }
    if (ret == 0 && !has_symtab) {
        ret = collect_debug_file(path, col);
    }
    return ret == 0 ? plt_collect(elf, col) : ret;
}

/*
 * By address; at one address the best first: a function before a label,
 * a current version before one kept for old binaries (free, not
 * cfree@GLIBC_2.2.5), then the name with the fewest leading underscores (calloc, not
 * __calloc: the name people call), then global, weak, local, then by
 * name so the choice never depends on the table order.
 */
static int cmp_cand(const void *pa, const void *pb, void *pool)
{
    const struct cand *a = pa;
    const struct cand *b = pb;
    const char *na = (const char *)pool + a->name;
    const char *nb = (const char *)pool + b->name;
    size_t ua = underscores(na), ub = underscores(nb);

    if (a->addr != b->addr) {
        return a->addr < b->addr ? -1 : 1;
    }
    if ((a->rank >= CAND_RANK_FUNC) != (b->rank >= CAND_RANK_FUNC)) {
        return a->rank >= CAND_RANK_FUNC ? -1 : 1;
    }
    if (a->compat != b->compat) {
        return a->compat ? 1 : -1;
    }
    if (ua != ub) {
        return ua < ub ? -1 : 1;
    }
    if (a->rank != b->rank) {
        return b->rank - a->rank;
    }
    return strcmp(na, nb);
}

const char *collect_name_at(const struct collect *col, uint64_t addr)
{
    const struct cand *best = NULL;
    size_t i;

    for (i = 0; i < col->n; i++) {
        const struct cand *c = &col->c[i];

        if (c->addr != addr || c->rank < CAND_RANK_FUNC) {
            continue;
        }
        if (!best || (c->type == STT_GNU_IFUNC) > (best->type ==
            STT_GNU_IFUNC) || ((c->type == STT_GNU_IFUNC) ==
            (best->type == STT_GNU_IFUNC) &&
            cmp_cand(c, best, col->pool) < 0)) {
            best = c;
        }
    }
    return best ? col->pool + best->name : NULL;
}

/*
 * Sorted candidates to disjoint symbols: one per address, each end cut at
 * the next symbol. A label inside a sized function (glibc's __wrap_main
 * in aarch64's _start) ends where the function ends, as objdump shows
 * it. Writes the kept ones to the front of col->c, returns their count.
 */
static size_t trim_cands(struct collect *col)
{
    struct cand *c = col->c;
    uint64_t covered = 0;           /* end of the last sized symbol */
    size_t i, n = 0;

    for (i = 0; i < col->n; i++) {
        if (n && c[n - 1].addr == c[i].addr) {
            continue;               /* a worse name at the same address */
        }
        c[n] = c[i];
        if (c[n].size == 0 && c[n].addr < covered &&
            covered < c[n].sec_end) {
            c[n].sec_end = covered;
        }
        if (c[n].size && c[n].addr + c[n].size > covered) {
            covered = c[n].addr + c[n].size;
        }
        n++;
    }
    for (i = 0; i < n; i++) {
        uint64_t end = c[i].size ? c[i].addr + c[i].size : c[i].sec_end;

        if (i + 1 < n && (end > c[i + 1].addr || end <= c[i].addr)) {
            end = c[i + 1].addr;
        }
        if (end <= c[i].addr) {
            end = c[i].addr + 1;    /* a label at its section's end */
        }
        c[i].size = end - c[i].addr;
    }
    return n;
}

int collect_build(struct elf_file *f, struct collect *col)
{
    size_t i, n;

    if (col->n) {
        qsort_r(col->c, col->n, sizeof(*col->c), cmp_cand, col->pool);
    }
    n = trim_cands(col);
    f->syms = calloc(n ? n : 1, sizeof(*f->syms));
    if (!f->syms) {
        return -ENOMEM;
    }
    f->names = col->pool;
    col->pool = NULL;
    for (i = 0; i < n; i++) {
        f->syms[i].addr = col->c[i].addr;
        f->syms[i].size = col->c[i].size;
        f->syms[i].name = f->names + col->c[i].name;
    }
    f->n_syms = n;
    f->has_anchor = col->has_text || col->has_stext;
    f->anchor = col->has_text ? col->text : col->stext;
    return 0;
}

static int read_segments(Elf *elf, struct elf_file *f)
{
    size_t i, n;

    if (elf_getphdrnum(elf, &n) != 0) {
        return -EINVAL;
    }
    f->segs = calloc(n ? n : 1, sizeof(*f->segs));
    if (!f->segs) {
        return -ENOMEM;
    }
    for (i = 0; i < n; i++) {
        GElf_Phdr ph;
        struct elf_segment *sg;

        if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD) {
            continue;
        }
        sg = &f->segs[f->n_segs++];
        sg->offset = ph.p_offset;
        sg->vaddr = ph.p_vaddr;
        sg->filesz = ph.p_filesz;
        sg->memsz = ph.p_memsz;
        sg->exec = (ph.p_flags & PF_X) != 0;
        if (f->n_segs == 1 || ph.p_vaddr < f->lo) {
            f->lo = ph.p_vaddr;
            f->lo_offset = ph.p_offset;
        }
        if (ph.p_vaddr + ph.p_memsz > f->hi) {
            f->hi = ph.p_vaddr + ph.p_memsz;
        }
    }
    return 0;
}

/* Header checks, segments, symbols; err filled on failure. */
static int read_elf(Elf *elf, struct elf_file *f, const char *path,
                    struct qtrace_err *err)
{
    struct collect col = { .c = NULL };
    GElf_Ehdr eh;
    int ret;

    if (elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &eh)) {
        qtrace_err_set(err, "%s: not an ELF file", path);
        return -ENOEXEC;
    }
    if (eh.e_type != ET_EXEC && eh.e_type != ET_DYN) {
        qtrace_err_set(err, "%s: not a program or shared object (ELF "
                       "type %u)", path, (unsigned)eh.e_type);
        return -EINVAL;
    }
    f->dynamic = eh.e_type == ET_DYN;
    col.machine = eh.e_machine;
    ret = read_segments(elf, f);
    if (ret == 0) {
        ret = collect_symbols(elf, path, &col);
    }
    if (ret == 0) {
        ret = collect_build(f, &col);
    }
    free(col.c);
    free(col.pool);
    if (ret < 0) {
        qtrace_err_set(err, "%s: %s", path, ret == -ENOMEM ?
                       strerror(ENOMEM) : "unreadable program headers");
    }
    return ret;
}

int elf_file_read(struct elf_file *f, const char *path,
                  struct qtrace_err *err)
{
    Elf *elf;
    int fd, ret;

    memset(f, 0, sizeof(*f));
    if (elf_version(EV_CURRENT) == EV_NONE) {
        qtrace_err_set(err, "%s: libelf: %s", path, elf_errmsg(-1));
        return -EINVAL;
    }
    fd = open_regular_file(path, err);
    if (fd < 0) {
        return fd;
    }
    elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
    if (!elf) {
        qtrace_err_set(err, "%s: %s", path, elf_errmsg(-1));
        close(fd);
        return -EINVAL;
    }
    ret = read_elf(elf, f, path, err);
    elf_end(elf);
    close(fd);
    if (ret < 0) {
        elf_file_fini(f);
    }
    return ret;
}

void elf_file_fini(struct elf_file *f)
{
    free(f->segs);
    free(f->syms);
    free(f->names);
    memset(f, 0, sizeof(*f));
}

/* How well segment sg explains offset mapped at [start, end) by bias. */
static int bias_score(const struct elf_segment *sg, uint64_t start,
                      uint64_t end, uint64_t offset, uint64_t bias)
{
    uint64_t top = (sg->vaddr + sg->memsz + MIN_PAGE - 1) &
                   ~(uint64_t)(MIN_PAGE - 1);
    bool fits = end - bias <= top && start - bias >= (sg->vaddr &
                ~(uint64_t)(MIN_PAGE - 1));
    bool holds = sg->offset <= offset && offset < sg->offset + sg->filesz;

    return 2 * fits + holds;
}

uint64_t elf_file_bias(const struct elf_file *f, uint64_t start,
                       uint64_t end, uint64_t offset,
                       const uint64_t *known)
{
    uint64_t best_bias = 0;
    int best = -1;
    size_t i;

    for (i = 0; i < f->n_segs; i++) {
        const struct elf_segment *sg = &f->segs[i];
        /* The segment maps file offset o at vaddr + (o - p_offset). */
        uint64_t bias = start - (sg->vaddr - sg->offset + offset);
        int score;

        if ((sg->offset & ~(uint64_t)(MIN_PAGE - 1)) > offset ||
            offset >= sg->offset + (sg->filesz ? sg->filesz : 1) +
                      MIN_PAGE) {
            continue;
        }
        if (known && bias == *known) {
            return bias;
        }
        score = bias_score(sg, start, end, offset, bias);
        if (score > best) {
            best = score;
            best_bias = bias;
        }
    }
    if (best < 0) {
        return f->dynamic ? start - f->lo : 0;
    }
    return best_bias;
}

uint64_t elf_file_exec_lo(const struct elf_file *f)
{
    uint64_t lo = UINT64_MAX;
    size_t i;

    for (i = 0; i < f->n_segs; i++) {
        if (f->segs[i].exec && f->segs[i].vaddr < lo) {
            lo = f->segs[i].vaddr;
        }
    }
    return lo == UINT64_MAX ? f->lo : lo;
}

uint64_t elf_file_anchor(const struct elf_file *f)
{
    return f->has_anchor ? f->anchor : elf_file_exec_lo(f);
}
