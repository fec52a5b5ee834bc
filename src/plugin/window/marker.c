/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The marker encodings (include/qtrace/marker.h gives them, with the
 * reasons for each choice): a fixed pattern with the kind in a few bits.
 * A kind past MARKER_SNAPSHOT is no marker: those encodings stay free
 * for later kinds.
 */
#include <string.h>

#include "marker.h"

static enum marker_kind kind_of(unsigned int k)
{
    return k >= MARKER_START && k <= MARKER_SNAPSHOT ? (enum marker_kind)k :
                                                       MARKER_NONE;
}

static uint32_t word_le(const uint8_t *code)
{
    return (uint32_t)code[0] | (uint32_t)code[1] << 8 |
           (uint32_t)code[2] << 16 | (uint32_t)code[3] << 24;
}

/* nopl 0xK5451(%rax): 0f 1f 80 51 54 0K 00. */
static enum marker_kind decode_x86(const uint8_t *code, size_t size)
{
    static const uint8_t head[] = { 0x0f, 0x1f, 0x80, 0x51, 0x54 };

    if (size != 7 || memcmp(code, head, sizeof(head)) != 0 || code[6]) {
        return MARKER_NONE;
    }
    return kind_of(code[5]);
}

/* movk xzr, #0x510K, lsl #32: 0xf2ca201f + (K << 5). */
static enum marker_kind decode_aarch64(const uint8_t *code, size_t size)
{
    uint32_t w;

    if (size != 4) {
        return MARKER_NONE;
    }
    w = word_le(code);
    if ((w & 0xffffe01fu) != 0xf2ca201fu) {
        return MARKER_NONE;
    }
    return kind_of((w >> 5) & 0xffu);
}

/* hint #0x5K: A32 0xe320f050 + K, Thumb-2 halfwords 0xf3af 0x8050 + K. */
static enum marker_kind decode_arm(const uint8_t *code, size_t size)
{
    uint32_t w;

    if (size != 4) {
        return MARKER_NONE;
    }
    w = word_le(code);
    if ((w & 0xfffffff0u) == 0xe320f050u) {
        return kind_of(w & 0xfu);
    }
    if ((w & 0xfff0ffffu) == 0x8050f3afu) {
        return kind_of((w >> 16) & 0xfu);
    }
    return MARKER_NONE;
}

/* slti zero, zero, 0x51K: (0x510 + K) << 20 | 0x2013. */
static enum marker_kind decode_riscv(const uint8_t *code, size_t size)
{
    uint32_t w;

    if (size != 4) {
        return MARKER_NONE;
    }
    w = word_le(code);
    if ((w & 0xff0fffffu) != 0x51002013u) {
        return MARKER_NONE;
    }
    return kind_of((w >> 20) & 0xfu);
}

marker_decode_fn marker_decoder(const char *target)
{
    static const struct {
        const char *target;
        marker_decode_fn decode;
    } table[] = {
        { "x86_64", decode_x86 },
        { "i386", decode_x86 },
        { "aarch64", decode_aarch64 },
        { "arm", decode_arm },
        { "riscv64", decode_riscv },
        { "riscv32", decode_riscv },
    };
    size_t i;

    for (i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
        if (strcmp(table[i].target, target) == 0) {
            return table[i].decode;
        }
    }
    return NULL;
}
