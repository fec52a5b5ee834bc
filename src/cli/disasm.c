/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Capstone behind disasm.h: a table from QEMU target names to capstone
 * architecture and mode. Which capstone names exist depends on its
 * version, so meson probes them (QTRACE_HAVE_CS_*).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <capstone.h>

#include "disasm.h"

/* capstone 6 renamed ARM64 to AArch64 and SysZ to SystemZ. */
#ifdef QTRACE_HAVE_CS_AARCH64
#define CS_A64 CS_ARCH_AARCH64
#else
#define CS_A64 CS_ARCH_ARM64
#endif

struct target {
    const char *name;               /* QEMU target name */
    cs_arch arch;
    unsigned int mode;              /* CS_MODE_* flags */
    bool thumb;                     /* has a Thumb state (arm, armeb) */
};

#define BE ((unsigned int)CS_MODE_BIG_ENDIAN)

static const struct target targets[] = {
    { "x86_64", CS_ARCH_X86, CS_MODE_64, false },
    { "i386", CS_ARCH_X86, CS_MODE_32, false },
    /* No QEMU target: real-mode code of an x86 guest (insn-walk.c). */
    { "x86_16", CS_ARCH_X86, CS_MODE_16, false },
    { "aarch64", CS_A64, CS_MODE_LITTLE_ENDIAN, false },
    { "aarch64_be", CS_A64, BE, false },
    { "arm", CS_ARCH_ARM, CS_MODE_ARM, true },
    { "armeb", CS_ARCH_ARM, CS_MODE_ARM | BE, true },
#ifdef QTRACE_HAVE_CS_RISCV
    { "riscv64", CS_ARCH_RISCV, CS_MODE_RISCV64 | CS_MODE_RISCVC, false },
    { "riscv32", CS_ARCH_RISCV, CS_MODE_RISCV32 | CS_MODE_RISCVC, false },
#endif
    { "mips", CS_ARCH_MIPS, CS_MODE_MIPS32 | BE, false },
    { "mipsel", CS_ARCH_MIPS, CS_MODE_MIPS32, false },
    { "mips64", CS_ARCH_MIPS, CS_MODE_MIPS64 | BE, false },
    { "mips64el", CS_ARCH_MIPS, CS_MODE_MIPS64, false },
    { "ppc", CS_ARCH_PPC, CS_MODE_32 | BE, false },
    { "ppc64", CS_ARCH_PPC, CS_MODE_64 | BE, false },
    { "ppc64le", CS_ARCH_PPC, CS_MODE_64, false },
#ifdef QTRACE_HAVE_CS_SYSZ
    { "s390x", CS_ARCH_SYSZ, BE, false },
#endif
    { "sparc64", CS_ARCH_SPARC, CS_MODE_V9 | BE, false },
};

struct disasm {
    csh main;                       /* the target's default state */
    cs_insn *main_insn;             /* decode buffer for main */
    bool has_thumb;
    bool thumb_open;                /* thumb handle opened (on first use) */
    csh thumb;
    cs_insn *thumb_insn;
    unsigned int thumb_mode;
    bool detail;                    /* CS_OPT_DETAIL on every handle */
};

static const struct target *find_target(const char *name)
{
    size_t i;

    for (i = 0; i < sizeof(targets) / sizeof(targets[0]); i++) {
        if (strcmp(targets[i].name, name) == 0) {
            return &targets[i];
        }
    }
    return NULL;
}

/* Open one capstone handle and its reusable instruction buffer. */
static bool open_handle(cs_arch arch, unsigned int mode, bool detail,
                        csh *h, cs_insn **insn)
{
    if (cs_open(arch, (cs_mode)mode, h) != CS_ERR_OK) {
        return false;
    }
    if (detail && cs_option(*h, CS_OPT_DETAIL, CS_OPT_ON) != CS_ERR_OK) {
        cs_close(h);
        return false;
    }
    /*
     * cs_malloc() lets cs_disasm_iter() reuse one buffer: no allocation
     * per instruction in a dump of millions of them.
     */
    *insn = cs_malloc(*h);
    if (!*insn) {
        cs_close(h);
        return false;
    }
    return true;
}

static struct disasm *new_disasm(const char *arch, bool detail)
{
    const struct target *t = arch ? find_target(arch) : NULL;
    struct disasm *d;

    if (!t || !cs_support((int)t->arch)) {
        return NULL;
    }
    d = calloc(1, sizeof(*d));
    if (!d) {
        return NULL;
    }
    d->detail = detail;
    if (!open_handle(t->arch, t->mode, detail, &d->main, &d->main_insn)) {
        free(d);
        return NULL;
    }
    d->has_thumb = t->thumb;
    d->thumb_mode = (t->mode & BE) | CS_MODE_THUMB;
    return d;
}

struct disasm *disasm_new(const char *arch)
{
    return new_disasm(arch, false);
}

struct disasm *disasm_new_detail(const char *arch)
{
    return new_disasm(arch, true);
}

void disasm_free(struct disasm *d)
{
    if (!d) {
        return;
    }
    cs_free(d->main_insn, 1);
    cs_close(&d->main);
    if (d->thumb_open) {
        cs_free(d->thumb_insn, 1);
        cs_close(&d->thumb);
    }
    free(d);
}

bool disasm_has_thumb(const struct disasm *d)
{
    return d->has_thumb;
}

/* Decode one instruction into the handle's buffer; NULL if it fails. */
static const cs_insn *decode(struct disasm *d, const uint8_t *code,
                             size_t len, uint64_t addr, bool thumb)
{
    csh h = d->main;
    cs_insn *insn = d->main_insn;
    const uint8_t *p = code;
    size_t left = len;
    uint64_t at = addr;

    if (thumb && d->has_thumb) {
        if (!d->thumb_open) {
            d->thumb_open = open_handle(CS_ARCH_ARM, d->thumb_mode,
                                        d->detail, &d->thumb,
                                        &d->thumb_insn);
        }
        if (d->thumb_open) {
            h = d->thumb;
            insn = d->thumb_insn;
        }
    }
    if (!cs_disasm_iter(h, &p, &left, &at, insn)) {
        return NULL;
    }
    return insn;
}

size_t disasm_insn(struct disasm *d, const uint8_t *code, size_t len,
                   uint64_t addr, bool thumb, char *buf, size_t buf_len)
{
    const cs_insn *insn = decode(d, code, len, addr, thumb);

    if (!insn) {
        snprintf(buf, buf_len, "(bad)");
        return 0;
    }
    if (insn->op_str[0] != '\0') {
        snprintf(buf, buf_len, "%s %s", insn->mnemonic, insn->op_str);
    } else {
        snprintf(buf, buf_len, "%s", insn->mnemonic);
    }
    return insn->size;
}

size_t disasm_insn_groups(struct disasm *d, const uint8_t *code, size_t len,
                          uint64_t addr, bool thumb, char *mnem,
                          size_t mnem_len, const char **groups, size_t max,
                          size_t *n_groups)
{
    const cs_insn *insn = decode(d, code, len, addr, thumb);
    csh h = thumb && d->thumb_open ? d->thumb : d->main;
    size_t i;

    *n_groups = 0;
    if (!insn) {
        snprintf(mnem, mnem_len, "(bad)");
        return 0;
    }
    snprintf(mnem, mnem_len, "%s", insn->mnemonic);
    for (i = 0; insn->detail && i < insn->detail->groups_count &&
         *n_groups < max; i++) {
        const char *name = cs_group_name(h, insn->detail->groups[i]);

        if (name) {
            groups[(*n_groups)++] = name;
        }
    }
    return insn->size;
}
