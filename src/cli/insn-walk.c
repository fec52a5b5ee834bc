/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Instruction boundaries of a block (insn-walk.h). Only x86 needs a
 * decoder; the others say their length in their first bits, which also
 * covers RISC-V, for which capstone 4 (Debian bookworm) has no decoder.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "disasm.h"
#include "insn-walk.h"

enum walk_kind { WALK_FIXED4, WALK_RISCV, WALK_ARM, WALK_DISASM };

#define MAX_MODES 3

struct insn_walk {
    enum walk_kind kind;
    bool big_endian;                /* armeb: Thumb halfwords */
    struct disasm *dis[MAX_MODES];  /* WALK_DISASM: the target's own
                                       mode first, then the others */
    size_t n_dis;
    struct disasm *cur;             /* the one insn_len() decodes with */
    struct disasm *show;            /* the target's own, for the rules'
                                       targets (insn_walk_decoder) */
    bool detail;                    /* decoders with capstone's details */
    bool last_thumb;                /* the last block was Thumb */
    size_t last;                    /* index of the mode that fit last */
};

static struct disasm *open_dis(const struct insn_walk *w, const char *arch)
{
    return w->detail ? disasm_new_detail(arch) : disasm_new(arch);
}

/*
 * An x86 guest runs 16-, 32- and 64-bit code (firmware starts in real
 * mode): the mode that decodes a block into exactly its instructions
 * is the block's.
 */
static void open_modes(struct insn_walk *w, const char *arch)
{
    static const char *const x86[] = { "x86_64", "i386", "x86_16" };
    size_t i;

    w->dis[w->n_dis] = open_dis(w, arch);
    w->n_dis += w->dis[w->n_dis] != NULL;
    if (strcmp(arch, "x86_64") != 0 && strcmp(arch, "i386") != 0) {
        return;
    }
    for (i = 0; i < 3 && w->n_dis < MAX_MODES; i++) {
        if (strcmp(x86[i], arch) != 0) {
            w->dis[w->n_dis] = open_dis(w, x86[i]);
            w->n_dis += w->dis[w->n_dis] != NULL;
        }
    }
}

static struct insn_walk *new_walk(const char *arch, bool detail)
{
    struct insn_walk *w = calloc(1, sizeof(*w));

    if (!w) {
        return NULL;
    }
    w->detail = detail;
    arch = arch ? arch : "";
    if (strncmp(arch, "aarch64", 7) == 0) {
        w->kind = WALK_FIXED4;
    } else if (strncmp(arch, "riscv", 5) == 0) {
        w->kind = WALK_RISCV;
    } else if (strcmp(arch, "arm") == 0 || strcmp(arch, "armeb") == 0) {
        w->kind = WALK_ARM;
        w->big_endian = strcmp(arch, "armeb") == 0;
    } else {
        w->kind = WALK_DISASM;
        open_modes(w, arch);
    }
    if (w->kind != WALK_DISASM) {
        w->show = open_dis(w, arch);
    }
    return w;
}

struct insn_walk *insn_walk_new(const char *arch)
{
    return new_walk(arch, false);
}

struct insn_walk *insn_walk_new_detail(const char *arch)
{
    return new_walk(arch, true);
}

struct disasm *insn_walk_decoder(const struct insn_walk *w)
{
    return w->kind == WALK_DISASM ? w->cur : w->show;
}

bool insn_walk_thumb(const struct insn_walk *w)
{
    return w->last_thumb;
}

void insn_walk_free(struct insn_walk *w)
{
    size_t i;

    if (w) {
        for (i = 0; i < w->n_dis; i++) {
            disasm_free(w->dis[i]);
        }
        disasm_free(w->show);
        free(w);
    }
}

/* The length of the instruction at p (left bytes), or 0. */
static size_t insn_len(struct insn_walk *w, const uint8_t *p, size_t left,
                       uint64_t pc, bool thumb)
{
    char text[160];
    unsigned int hw;

    switch (w->kind) {
    case WALK_FIXED4:
        return left >= 4 ? 4 : 0;
    case WALK_RISCV:
        /* Low bits 11: a 32-bit instruction; else a compressed one. */
        if (left < 2) {
            return 0;
        }
        return (p[0] & 3) == 3 ? 4 : 2;
    case WALK_ARM:
        if (!thumb) {
            return left >= 4 ? 4 : 0;
        }
        if (left < 2) {
            return 0;
        }
        hw = w->big_endian ? (unsigned)(p[0] << 8 | p[1])
                           : (unsigned)(p[1] << 8 | p[0]);
        /* 0b11101, 0b11110, 0b11111 in bits 15..11: a 32-bit Thumb-2. */
        return (hw >> 11) >= 0x1d ? 4 : 2;
    case WALK_DISASM:
    default:
        return w->cur ? disasm_insn(w->cur, p, left, pc, false, text,
                                    sizeof(text)) : 0;
    }
}

/* One walk with the current decoder; the offsets found. */
static size_t walk(struct insn_walk *w, const uint8_t *code, size_t code_len,
                   uint64_t pc, uint32_t size, size_t want, bool thumb,
                   uint32_t *offs, size_t max, size_t *end)
{
    size_t n = 0, off = 0, len;

    while (n < want && n < max && off < code_len) {
        len = insn_len(w, code + off, code_len - off, pc + off, thumb);
        if (len == 0 || off + len > size) {
            break;
        }
        offs[n++] = (uint32_t)off;
        off += len;
    }
    *end = off;
    return n;
}

size_t insn_walk_block(struct insn_walk *w, const uint8_t *code,
                       size_t code_len, uint64_t pc, uint32_t size,
                       uint32_t n_insns, uint32_t *offs, size_t max)
{
    /* A32 instructions are all four bytes: a block of others is Thumb. */
    bool thumb = w->kind == WALK_ARM && n_insns &&
                 size != 4 * (uint64_t)n_insns;
    size_t n = 0, off = 0, i, k, want = n_insns ? n_insns : size;
    bool fits = false;

    if (code_len > size) {
        code_len = size;
    }
    w->last_thumb = thumb;
    /*
     * The mode that fit the block before first: code runs in one mode
     * for long stretches, and a few blocks decode exactly in two.
     */
    for (k = 0; k < (w->n_dis ? w->n_dis : 1) && !fits; k++) {
        i = k == 0 ? w->last : (k <= w->last ? k - 1 : k);
        w->cur = w->n_dis ? w->dis[i] : NULL;
        n = walk(w, code, code_len, pc, size, want, thumb, offs, max, &off);
        fits = !n_insns || (n == n_insns && off == size);
        if (fits) {
            w->last = i;
        }
    }
    if (!fits && w->n_dis > 1) {
        /* No mode fits exactly: the target's own, as it decodes. */
        w->cur = w->dis[0];
        n = walk(w, code, code_len, pc, size, want, thumb, offs, max, &off);
    }
    /* Undecoded: the remaining instructions share the remaining bytes. */
    if (n_insns && n < n_insns && off < size) {
        size_t rest = n_insns - n, step = (size - off) / rest;

        for (i = 0; i < rest && n < max; i++) {
            offs[n++] = (uint32_t)(off + i * (step ? step : 1));
        }
    }
    return n;
}
