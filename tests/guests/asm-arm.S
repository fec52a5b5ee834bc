/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * arm (32-bit, A32 encoding) assembly guest: no libc, every executed
 * instruction, memory access and address known by construction (see
 * asm.ld for the layout). asm-arm.expect holds the numbers tests assert.
 *
 * Known by construction:
 *   entry     _start = 0x400000 (A32 state, not Thumb)
 *   executed  4 (set-up) + 100 * 5 (loop) + 5 (tail, svc included)
 *             = 509 instructions; nothing after the svc runs
 *   loads     101: 100 x 4 bytes from src (0x600000), 1 x 4 bytes from
 *             big (0x600010); 4, not 8, because a 32-bit core has no
 *             single 8-byte load (ldrd is two 4-byte accesses in QEMU)
 *   stores    101: 100 x 4 bytes to dst (0x600008), 1 x 1 byte to
 *             byte (0x600018)
 *   loop head .Lloop = 0x400010, a block entered 100 times (the set-up
 *             ends in a b so QEMU starts a new block there)
 *   blocks    with QEMU's default translation: 0x400000 x 1,
 *             0x400010 x 100, 0x400024 x 1
 *   exit      exit_group(42), status 42
 * Only the four ldr/str instructions touch memory; r1 holds the data base
 * (an encodable immediate) so no literal pool is read.
 */
    .syntax unified
    .arm
    .text
    .globl _start
_start:
    mov     r1, #0x600000           /* 0x400000: base of the data */
    mov     r2, #100                /* iteration count */
    mov     r0, #0                  /* running sum */
    b       .Lloop                  /* end the set-up block */
.Lloop:                             /* 0x400010 */
    ldr     r3, [r1]                /* load 4 bytes from src */
    add     r0, r0, r3
    str     r0, [r1, #8]            /* store 4 bytes to dst */
    subs    r2, r2, #1
    bne     .Lloop

    ldr     r3, [r1, #16]           /* load 4 bytes from big */
    strb    r3, [r1, #24]           /* store 1 byte to byte */
    mov     r0, #42                 /* exit status */
    mov     r7, #248                /* __NR_exit_group (EABI) */
    svc     #0

    .data
    .balign 8
src:    .long   3                   /* 0x600000 */
        .long   0
dst:    .long   0                   /* 0x600008 */
        .long   0
big:    .long   0x89abcdef          /* 0x600010 */
        .long   0
byte:   .byte   0                   /* 0x600018 */

    .section .note.GNU-stack, "", %progbits
