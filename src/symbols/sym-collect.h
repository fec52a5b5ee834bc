/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The symbols of one ELF file while they are gathered, before sorting
 * (elf-file.c): shared by the symbol table reader and the PLT decoder
 * (plt.c). Single-threaded.
 */
#ifndef QTRACE_SYMBOLS_SYM_COLLECT_H
#define QTRACE_SYMBOLS_SYM_COLLECT_H

#include <gelf.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>

struct elf_file;

/* A symbol found, before sorting and trimming. */
struct cand {
    uint64_t addr;
    uint64_t size;                  /* st_size, 0 for most labels */
    uint64_t sec_end;               /* end of its section (ELF address) */
    size_t name;                    /* offset in the name pool */
    int rank;                       /* higher wins at one address */
    unsigned char type;             /* STT_* */
    bool compat;                    /* an old version kept for old
                                       binaries (cfree@GLIBC_2.2.5) */
};

/* Ranks: a function over a label, then global > weak > local. */
#define CAND_RANK_FUNC 4

/* What a read collects; freed or handed to the elf_file at the end. */
struct collect {
    struct cand *c;
    size_t n, cap;
    char *pool;                     /* names, NUL-terminated each */
    size_t pool_len, pool_cap;
    uint16_t machine;               /* e_machine */
    bool has_text, has_stext;       /* _text, _stext defined */
    uint64_t text, stext;           /* their addresses */
};

/* Add sym (in section sh) called name; -ENOMEM on failure. */
int collect_add(struct collect *col, const GElf_Sym *sym,
                const GElf_Shdr *sh, const char *name);

/*
 * The best function name collected at ELF address addr (an IFUNC
 * symbol first, then the rules of cmp_cand), or NULL. Linear: for the
 * few IRELATIVE slots of a file.
 */
const char *collect_name_at(const struct collect *col, uint64_t addr);

/*
 * Sort, rank and trim what col collected into f's symbols (the rules of
 * include/qtrace/symbols.h); the names move from col to f. 0 or -ENOMEM.
 */
int collect_build(struct elf_file *f, struct collect *col);

/* Name the PLT stubs of elf (plt.c); 0 or -ENOMEM. */
int plt_collect(Elf *elf, struct collect *col);

#endif /* QTRACE_SYMBOLS_SYM_COLLECT_H */
