/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The executed extent of a block's instructions (insn-extent.h). Up to
 * QEMU 9.0 the bytes a plugin gets for an instruction are the bytes the
 * translator read while decoding it, and at a page boundary that is more
 * than the instruction (seen on Debian's 7.2):
 *
 *  - x86 starts decoding an instruction that crosses into the next page,
 *    gives up and ends the block before it (it becomes the first of the
 *    next block), but the plugin's block still lists it, with the bytes
 *    read before giving up (0x400ffc: 3 bytes executed, 4 reported).
 *  - Arm Thumb, when a block reaches 2 bytes before a page boundary,
 *    reads the next halfword to see whether the instruction there crosses
 *    the page, and those 2 bytes are appended to the last instruction.
 *
 * QEMU 9.1 (API 3) records an instruction's bytes from its start to the
 * next one's, so nothing is corrected there. Translation time only.
 */
#include <capstone.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../qemu/qemu-compat.h"
#include "insn-extent.h"

#define X86_MAX_INSN 15         /* bytes of the longest x86 instruction */
#define X86_PAGE 4096u          /* x86 pages, in every mode */
#define ARM_MIN_PAGE 1024u      /* Arm's smallest page (ARMv5, system) */

static enum { FIX_NONE, FIX_X86, FIX_ARM } fix;

void insn_extent_setup(const char *target, int api)
{
    fix = FIX_NONE;
    if (api >= 3) {
        return;
    }
    if (strcmp(target, "x86_64") == 0 || strcmp(target, "i386") == 0) {
        fix = FIX_X86;
    } else if (strcmp(target, "arm") == 0) {
        fix = FIX_ARM;
    }
}

/* The bytes QEMU holds for an instruction: up to len of them into buf. */
static size_t held_bytes(struct qemu_plugin_insn *insn, uint8_t *buf,
                         size_t len)
{
    memset(buf, 0, len);
    return qc_insn_bytes(insn, buf, len);
}

/*
 * An x86 instruction QEMU gave up on: the last of several, its bytes stop
 * before a page boundary that its full length could reach, and QEMU's own
 * disassembler, which knows the CPU mode, finds no instruction in them
 * (it prints ".byte"). The bytes are a strict prefix of a real
 * instruction, which x86's encoding never makes an instruction itself.
 */
static bool is_abandoned_x86(struct qemu_plugin_insn *insn)
{
    uint64_t pc = qemu_plugin_insn_vaddr(insn);
    uint64_t held = qemu_plugin_insn_size(insn);
    uint64_t page_end = (pc | (X86_PAGE - 1)) + 1;
    char *text;
    bool bad;

    if (held == 0 || pc + held > page_end ||
        pc + X86_MAX_INSN <= page_end) {
        return false;
    }
    text = qemu_plugin_insn_disas(insn);
    bad = text && strncmp(text, ".byte", 5) == 0;
    free(text);
    return bad;
}

size_t insn_extent_count(struct qemu_plugin_tb *tb, size_t n)
{
    if (fix == FIX_X86 && n > 1 &&
        is_abandoned_x86(qemu_plugin_tb_get_insn(tb, n - 1))) {
        return n - 1;
    }
    return n;
}

/* Thumb: a first halfword below 0b11101 starts a 16-bit instruction. */
static bool is_thumb16(const uint8_t *b)
{
    return (b[1] >> 3) < 0x1d;
}

/*
 * Whether the block is Thumb code, from what its instructions show: an
 * instruction at an address that is 2 mod 4, or of a size other than 4,
 * is Thumb; a 16-bit form in a 4-byte instruction before the last is Arm
 * (Thumb would have made it 2 bytes).
 */
static int block_shows_thumb(struct qemu_plugin_tb *tb, size_t n)
{
    size_t i;

    for (i = 0; i < n; i++) {
        struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
        uint8_t b[4];

        if ((qemu_plugin_insn_vaddr(insn) & 3) != 0 ||
            held_bytes(insn, b, sizeof(b)) != 4 ||
            qemu_plugin_insn_size(insn) != 4) {
            return 1;
        }
        if (i + 1 < n && is_thumb16(b)) {
            return 0;
        }
    }
    return -1;          /* cannot tell */
}

/*
 * The last instruction alone cannot tell: 4 bytes that are a 16-bit Thumb
 * instruction and the first half of the next, or one Arm instruction.
 * QEMU disassembled it in the CPU's mode: if its text is capstone's Thumb
 * text of the first halfword (QEMU 7.2 disassembles with capstone too),
 * the block is Thumb.
 */
static bool disas_is_thumb16(struct qemu_plugin_insn *insn, const uint8_t *b)
{
    char *qemu_text = qemu_plugin_insn_disas(insn);
    char text[256];
    cs_insn *ci = NULL;
    bool same = false;
    csh h;

    if (!qemu_text) {
        return false;
    }
    if (cs_open(CS_ARCH_ARM, CS_MODE_THUMB, &h) == CS_ERR_OK) {
        if (cs_disasm(h, b, 2, qemu_plugin_insn_vaddr(insn), 1, &ci) == 1) {
            snprintf(text, sizeof(text), "%s %s", ci->mnemonic, ci->op_str);
            same = strcmp(text, qemu_text) == 0;
            cs_free(ci, 1);
        }
        cs_close(&h);
    }
    free(qemu_text);
    return same;
}

/* Thumb code's size of the last instruction, whose bytes may run over. */
static size_t arm_last_size(struct qemu_plugin_tb *tb, size_t n,
                            struct qemu_plugin_insn *insn, size_t held)
{
    uint64_t pc = qemu_plugin_insn_vaddr(insn);
    uint8_t b[6];
    size_t want;
    int thumb;

    if (held_bytes(insn, b, sizeof(b)) < 4) {
        return held;
    }
    want = is_thumb16(b) ? 2 : 4;
    if (want >= held) {
        return held;
    }
    /* The read-ahead happens only 2 bytes before a page boundary. */
    if (((pc + held) & (ARM_MIN_PAGE - 1)) != 0) {
        return held;
    }
    thumb = held != 4 ? 1 : block_shows_thumb(tb, n);
    if (thumb < 0) {
        thumb = disas_is_thumb16(insn, b);
    }
    return thumb ? want : held;
}

size_t insn_extent_size(struct qemu_plugin_tb *tb, size_t idx, size_t n)
{
    struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, idx);
    size_t held = qemu_plugin_insn_size(insn);

    if (fix == FIX_NONE) {
        return held;
    }
    if (idx + 1 < n) {
        /* The next instruction starts where this one ends. */
        uint64_t pc = qemu_plugin_insn_vaddr(insn);
        uint64_t next = qemu_plugin_insn_vaddr(
            qemu_plugin_tb_get_insn(tb, idx + 1));

        if (next > pc && next - pc < held) {
            return (size_t)(next - pc);
        }
        return held;
    }
    if (fix == FIX_ARM) {
        return arm_last_size(tb, n, insn, held);
    }
    return held;
}
