/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * PLT stubs named after the GOT slot they jump through: each stub of the
 * .plt, .plt.sec, .plt.got and .iplt sections is decoded to find its
 * slot, and the dynamic relocation of that slot names it: "name@plt"
 * for a JUMP_SLOT or GLOB_DAT of symbol name, and for an IRELATIVE (an
 * IFUNC bound at load time) the function at the relocation's addend,
 * the IFUNC's resolver, which carries the IFUNC's name ("memchr@plt");
 * "*ABS*+0xADDR@plt" when no symbol is there. Relocation order is not
 * used: linkers put IRELATIVE slots anywhere. Stubs decoded: x86_64
 * (jmp *GOT(%rip), with endbr64 and bnd prefixes), aarch64 (adrp x16;
 * ldr x17; with or without bti c), riscv64 (auipc t3; ld t3) and arm
 * (add ip, pc; add ip, ip; ldr pc, with or without a Thumb bx pc).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sym-collect.h"

/* One GOT slot with a dynamic relocation. */
struct slot {
    uint64_t got;                   /* r_offset: the slot's address */
    const char *name;               /* the symbol's name, or NULL */
    uint64_t target;                /* IRELATIVE: the resolver */
    bool irelative;
};

struct slots {
    struct slot *s;
    size_t n, cap;
};

/* A decoded stub: where it starts, its size, the slot it reads. */
struct stub {
    uint64_t start;
    uint64_t size;
    uint64_t got;
};

/* Decode the stub whose key instruction is at p (address addr). */
typedef bool (*decode_fn)(const uint8_t *p, size_t avail, size_t before,
                          uint64_t addr, struct stub *out);

static uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
           (uint32_t)p[3] << 24;
}

static int64_t sext(uint64_t v, unsigned int bits)
{
    uint64_t m = UINT64_C(1) << (bits - 1);

    return (int64_t)((v ^ m) - m);
}

/* x86_64: [endbr64] [bnd] jmp *disp32(%rip), at an entry start. */
static bool decode_x86_64(const uint8_t *p, size_t avail, size_t before,
                          uint64_t addr, struct stub *out)
{
    static const uint8_t endbr64[4] = { 0xf3, 0x0f, 0x1e, 0xfa };
    size_t i = 0;

    (void)before;
    if (avail >= 4 && memcmp(p, endbr64, 4) == 0) {
        i = 4;
    }
    if (i < avail && p[i] == 0xf2) {
        i++;                        /* bnd: Intel MPX's branch prefix */
    }
    if (i + 6 > avail || p[i] != 0xff || p[i + 1] != 0x25) {
        return false;
    }
    out->start = addr;
    out->got = addr + i + 6 + (uint64_t)sext(le32(p + i + 2), 32);
    return true;
}

/* aarch64: [bti c] adrp x16, page; ldr x17, [x16, #lo]; add; br x17. */
static bool decode_aarch64(const uint8_t *p, size_t avail, size_t before,
                           uint64_t addr, struct stub *out)
{
    uint32_t adrp, ldr;
    uint64_t page;

    if (avail < 16) {
        return false;
    }
    adrp = le32(p);
    ldr = le32(p + 4);
    if ((adrp & 0x9f00001fu) != 0x90000010u ||
        (ldr & 0xffc003ffu) != 0xf9400211u || le32(p + 12) != 0xd61f0220u) {
        return false;
    }
    page = (uint64_t)sext(((adrp >> 5) & 0x7ffff) << 2 | ((adrp >> 29) & 3),
                          21) << 12;
    out->got = (addr & ~UINT64_C(0xfff)) + page +
               (uint64_t)((ldr >> 10) & 0xfff) * 8;
    out->start = addr;
    out->size = 16;
    if (before >= 4 && le32(p - 4) == 0xd503245fu) {
        out->start -= 4;            /* bti c opens the entry */
        out->size += 4;
    }
    return true;
}

/* riscv64: auipc t3, hi; ld t3, lo(t3); jalr t1, t3. */
static bool decode_riscv64(const uint8_t *p, size_t avail, size_t before,
                           uint64_t addr, struct stub *out)
{
    uint32_t auipc, ld;

    (void)before;
    if (avail < 12) {
        return false;
    }
    auipc = le32(p);
    ld = le32(p + 4);
    if ((auipc & 0xfffu) != 0xe17u || (ld & 0xfffffu) != 0xe3e03u ||
        le32(p + 8) != 0x000e0367u) {
        return false;
    }
    out->got = addr + (uint64_t)sext(auipc & 0xfffff000u, 32) +
               (uint64_t)sext(ld >> 20, 12);
    out->start = addr;
    out->size = 16;
    return true;
}

/* An A32 data-processing immediate: imm8 rotated right by 2 * rot. */
static uint32_t arm_imm(uint32_t insn)
{
    uint32_t imm = insn & 0xff, rot = 2 * ((insn >> 8) & 0xf);

    return rot ? (imm >> rot) | (imm << (32 - rot)) : imm;
}

/* arm: [bx pc; nop] add ip, pc, #a; add ip, ip, #b; ldr pc, [ip, #c]!. */
static bool decode_arm(const uint8_t *p, size_t avail, size_t before,
                       uint64_t addr, struct stub *out)
{
    uint32_t a, b, c;

    if (avail < 12) {
        return false;
    }
    a = le32(p);
    b = le32(p + 4);
    c = le32(p + 8);
    if ((a & 0xfffff000u) != 0xe28fc000u || (b & 0xfffff000u) !=
        0xe28cc000u || (c & 0xfffff000u) != 0xe5bcf000u) {
        return false;
    }
    out->got = (addr + 8 + arm_imm(a) + arm_imm(b) + (c & 0xfff)) &
               UINT64_C(0xffffffff);
    out->start = addr;
    out->size = 12;
    if (before >= 4 && (le32(p - 4) & 0xffffu) == 0x4778u) {
        out->start -= 4;            /* Thumb callers enter by bx pc */
        out->size += 4;
    }
    return true;
}

/* The decoder of a machine, and the step between tries. */
static decode_fn decoder_of(uint16_t machine, uint64_t *step)
{
    switch (machine) {
    case EM_X86_64:
        *step = 0;                  /* the section's entry size */
        return decode_x86_64;
    case EM_AARCH64:
        *step = 4;
        return decode_aarch64;
    case EM_RISCV:
        *step = 4;
        return decode_riscv64;
    case EM_ARM:
        *step = 4;
        return decode_arm;
    default:
        return NULL;
    }
}

/* ---- relocations ---- */

struct reloc_types {
    uint16_t machine;
    uint32_t jump_slot, glob_dat, irelative;
};

static const struct reloc_types reloc_types[] = {
    { EM_X86_64, R_X86_64_JUMP_SLOT, R_X86_64_GLOB_DAT,
      R_X86_64_IRELATIVE },
    { EM_AARCH64, R_AARCH64_JUMP_SLOT, R_AARCH64_GLOB_DAT,
      R_AARCH64_IRELATIVE },
    { EM_RISCV, R_RISCV_JUMP_SLOT, R_RISCV_JUMP_SLOT, R_RISCV_IRELATIVE },
    { EM_ARM, R_ARM_JUMP_SLOT, R_ARM_GLOB_DAT, R_ARM_IRELATIVE },
};

/* The bytes of the section holding ELF address addr, from there. */
static const uint8_t *bytes_at(Elf *elf, uint64_t addr, size_t *avail)
{
    Elf_Scn *scn = NULL;

    while ((scn = elf_nextscn(elf, scn)) != NULL) {
        GElf_Shdr sh;
        Elf_Data *d;

        if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS ||
            addr < sh.sh_addr || addr >= sh.sh_addr + sh.sh_size) {
            continue;
        }
        d = elf_getdata(scn, NULL);
        if (!d || !d->d_buf || addr - sh.sh_addr >= d->d_size) {
            return NULL;
        }
        *avail = d->d_size - (addr - sh.sh_addr);
        return (const uint8_t *)d->d_buf + (addr - sh.sh_addr);
    }
    return NULL;
}

/* A REL IRELATIVE's addend is the slot's content (arm: 4 bytes). */
static uint64_t rel_addend(Elf *elf, uint64_t got)
{
    size_t avail = 0;
    const uint8_t *p = bytes_at(elf, got, &avail);

    return p && avail >= 4 ? le32(p) : 0;
}

static int add_slot(struct slots *sl, const struct slot *s)
{
    if (sl->n == sl->cap) {
        size_t cap = sl->cap ? 2 * sl->cap : 64;
        void *grown = realloc(sl->s, cap * sizeof(*sl->s));

        if (!grown) {
            return -ENOMEM;
        }
        sl->s = grown;
        sl->cap = cap;
    }
    sl->s[sl->n++] = *s;
    return 0;
}

/* The name of dynamic symbol index i of the table at section link. */
static const char *dynsym_name(Elf *elf, size_t link, size_t i)
{
    Elf_Scn *tab = elf_getscn(elf, link);
    GElf_Shdr sh;
    GElf_Sym sym;

    if (!i || !tab || !gelf_getshdr(tab, &sh) ||
        !gelf_getsym(elf_getdata(tab, NULL), (int)i, &sym)) {
        return NULL;
    }
    return elf_strptr(elf, sh.sh_link, sym.st_name);
}

/* The slots of one relocation section (loaded: SHF_ALLOC). */
static int read_relocs(Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh,
                       const struct reloc_types *rt, struct slots *sl)
{
    Elf_Data *data = elf_getdata(scn, NULL);
    size_t i, n = sh->sh_entsize ? sh->sh_size / sh->sh_entsize : 0;

    for (i = 0; data && i < n; i++) {
        struct slot s = { 0, NULL, 0, false };
        GElf_Rela r = { 0, 0, 0 };
        GElf_Rel rel;
        uint32_t type;

        if (sh->sh_type == SHT_RELA) {
            if (!gelf_getrela(data, (int)i, &r)) {
                break;
            }
        } else if (gelf_getrel(data, (int)i, &rel)) {
            r.r_offset = rel.r_offset;
            r.r_info = rel.r_info;
        } else {
            break;
        }
        type = (uint32_t)GELF_R_TYPE(r.r_info);
        s.got = r.r_offset;
        if (type == rt->irelative) {
            s.irelative = true;
            s.target = sh->sh_type == SHT_RELA ? (uint64_t)r.r_addend
                                               : rel_addend(elf, s.got);
        } else if (type == rt->jump_slot || type == rt->glob_dat) {
            s.name = dynsym_name(elf, sh->sh_link, GELF_R_SYM(r.r_info));
            if (!s.name || !s.name[0]) {
                continue;
            }
        } else {
            continue;
        }
        if (add_slot(sl, &s) < 0) {
            return -ENOMEM;
        }
    }
    return 0;
}

static int cmp_slot(const void *a, const void *b)
{
    const struct slot *x = a, *y = b;

    return x->got < y->got ? -1 : x->got > y->got;
}

static int read_slots(Elf *elf, const struct reloc_types *rt,
                      struct slots *sl)
{
    Elf_Scn *scn = NULL;

    while ((scn = elf_nextscn(elf, scn)) != NULL) {
        GElf_Shdr sh;

        if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_ALLOC) ||
            (sh.sh_type != SHT_RELA && sh.sh_type != SHT_REL)) {
            continue;
        }
        if (read_relocs(elf, scn, &sh, rt, sl) < 0) {
            return -ENOMEM;
        }
    }
    if (sl->n) {
        qsort(sl->s, sl->n, sizeof(*sl->s), cmp_slot);
    }
    return 0;
}

static const struct slot *find_slot(const struct slots *sl, uint64_t got)
{
    struct slot key = { got, NULL, 0, false };

    return sl->n ? bsearch(&key, sl->s, sl->n, sizeof(*sl->s), cmp_slot)
                 : NULL;
}

/* ---- naming ---- */

/* A stub is a sized label: any real symbol at its address wins. */
static int add_stub(struct collect *col, const struct stub *st,
                    const struct slot *s)
{
    char full[300];
    const char *name = s->name;
    GElf_Sym sym = { 0 };
    GElf_Shdr sh = { 0 };

    if (s->irelative) {
        name = collect_name_at(col, s->target);
    }
    if (name) {
        snprintf(full, sizeof(full), "%s@plt", name);
    } else {
        snprintf(full, sizeof(full), "*ABS*+0x%" PRIx64 "@plt", s->target);
    }
    sym.st_value = st->start;
    sym.st_size = st->size;
    sym.st_info = GELF_ST_INFO(STB_LOCAL, STT_NOTYPE);
    sh.sh_addr = st->start;
    sh.sh_size = st->size;
    return collect_add(col, &sym, &sh, full);
}

static bool is_plt_name(const char *name)
{
    return strcmp(name, ".plt") == 0 || strcmp(name, ".plt.sec") == 0 ||
           strcmp(name, ".plt.got") == 0 || strcmp(name, ".iplt") == 0;
}

/* Try the decoder at every step of one PLT section. */
static int scan_section(Elf_Scn *scn, const GElf_Shdr *sh,
                        decode_fn decode, uint64_t step,
                        const struct slots *sl, struct collect *col)
{
    Elf_Data *d = elf_getdata(scn, NULL);
    uint64_t off;

    if (!d || !d->d_buf) {
        return 0;
    }
    if (!step) {
        /* x86_64: 16-byte entries say so; a static program's .plt of
         * IRELATIVE stubs (jmp; xchg %ax,%ax) has 8 and says nothing. */
        step = sh->sh_entsize ? sh->sh_entsize : 8;
    }
    for (off = 0; off < d->d_size; off += step) {
        struct stub st = { 0, step, 0 };
        const struct slot *s;

        if (!decode((const uint8_t *)d->d_buf + off, d->d_size - off, off,
                    sh->sh_addr + off, &st) ||
            !(s = find_slot(sl, st.got))) {
            continue;
        }
        if (add_stub(col, &st, s) < 0) {
            return -ENOMEM;
        }
    }
    return 0;
}

int plt_collect(Elf *elf, struct collect *col)
{
    struct slots sl = { NULL, 0, 0 };
    const struct reloc_types *rt = NULL;
    Elf_Scn *scn = NULL;
    uint64_t step = 0;
    decode_fn decode = decoder_of(col->machine, &step);
    size_t i, shstrndx;
    int ret = 0;

    for (i = 0; i < sizeof(reloc_types) / sizeof(reloc_types[0]); i++) {
        if (reloc_types[i].machine == col->machine) {
            rt = &reloc_types[i];
        }
    }
    if (!decode || !rt || elf_getshdrstrndx(elf, &shstrndx) != 0) {
        return 0;
    }
    ret = read_slots(elf, rt, &sl);
    while (ret == 0 && sl.n && (scn = elf_nextscn(elf, scn)) != NULL) {
        GElf_Shdr sh;
        const char *name;

        if (gelf_getshdr(scn, &sh) && (sh.sh_flags & SHF_EXECINSTR) &&
            (name = elf_strptr(elf, shstrndx, sh.sh_name)) &&
            is_plt_name(name)) {
            ret = scan_section(scn, &sh, decode, step, &sl, col);
        }
    }
    free(sl.s);
    return ret;
}
