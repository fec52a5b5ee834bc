/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * aarch64 assembly guest: no libc, every executed instruction, memory
 * access and address known by construction (see asm.ld for the layout).
 * The end-to-end tests assert these numbers; asm-aarch64.expect holds them.
 *
 * Known by construction:
 *   entry     _start = 0x400000
 *   executed  4 (set-up) + 100 * 5 (loop) + 5 (tail, svc included)
 *             = 509 instructions; nothing after the svc runs
 *   loads     101: 100 x 4 bytes from src (0x600000), 1 x 8 bytes from
 *             big (0x600010)
 *   stores    101: 100 x 4 bytes to dst (0x600008), 1 x 1 byte to
 *             byte (0x600018)
 *   loop head .Lloop = 0x400010, a block entered 100 times (the set-up
 *             ends in a b so QEMU starts a new block there)
 *   blocks    with QEMU's default translation: 0x400000 x 1,
 *             0x400010 x 100, 0x400024 x 1
 *   exit      exit_group(42), status 42
 * Only the four ldr/str instructions touch memory; x1 holds the data base
 * so no literal pool is read.
 */
    .text
    .globl _start
_start:
    mov     x1, #0x600000           /* 0x400000: movz, base of the data */
    mov     w2, #100                /* iteration count */
    mov     w0, #0                  /* running sum */
    b       .Lloop                  /* end the set-up block */
.Lloop:                             /* 0x400010 */
    ldr     w3, [x1]                /* load 4 bytes from src */
    add     w0, w0, w3
    str     w0, [x1, #8]            /* store 4 bytes to dst */
    subs    w2, w2, #1
    b.ne    .Lloop

    ldr     x3, [x1, #16]           /* load 8 bytes from big */
    strb    w3, [x1, #24]           /* store 1 byte to byte */
    mov     x0, #42                 /* exit status */
    mov     x8, #94                 /* __NR_exit_group */
    svc     #0

    .data
    .balign 8
src:    .long   3                   /* 0x600000 */
        .long   0
dst:    .long   0                   /* 0x600008 */
        .long   0
big:    .quad   0x0123456789abcdef  /* 0x600010 */
byte:   .byte   0                   /* 0x600018 */

    .section .note.GNU-stack, "", %progbits
