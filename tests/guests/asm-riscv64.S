/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * riscv64 assembly guest: no libc, every executed instruction, memory
 * access and address known by construction (see asm.ld for the layout).
 * The end-to-end tests assert these numbers; asm-riscv64.expect holds them.
 *
 * Known by construction:
 *   entry     _start = 0x400000
 *   executed  4 (set-up) + 100 * 5 (loop) + 5 (tail, ecall included)
 *             = 509 instructions; nothing after the ecall runs
 *   loads     101: 100 x 4 bytes from src (0x600000), 1 x 8 bytes from
 *             big (0x600010)
 *   stores    101: 100 x 4 bytes to dst (0x600008), 1 x 1 byte to
 *             byte (0x600018)
 *   loop head .Lloop = 0x400010, a block entered 100 times (the set-up
 *             ends in a j so QEMU starts a new block there)
 *   blocks    with QEMU's default translation: 0x400000 x 1,
 *             0x400010 x 100, 0x400024 x 1
 *   exit      exit_group(42), status 42
 * Compressed encodings and linker relaxation are off, so every
 * instruction is 4 bytes and each pseudo-instruction is exactly one.
 */
    .option norvc
    .option norelax
    .text
    .globl _start
_start:
    lui     a1, 0x600               /* 0x400000: a1 = 0x600000, data base */
    li      a2, 100                 /* iteration count (one addi) */
    li      a0, 0                   /* running sum */
    j       .Lloop                  /* end the set-up block */
.Lloop:                             /* 0x400010 */
    lw      a3, 0(a1)               /* load 4 bytes from src */
    addw    a0, a0, a3
    sw      a0, 8(a1)               /* store 4 bytes to dst */
    addi    a2, a2, -1
    bnez    a2, .Lloop

    ld      a3, 16(a1)              /* load 8 bytes from big */
    sb      a3, 24(a1)              /* store 1 byte to byte */
    li      a0, 42                  /* exit status */
    li      a7, 94                  /* __NR_exit_group */
    ecall

    .data
    .balign 8
src:    .word   3                   /* 0x600000 */
        .word   0
dst:    .word   0                   /* 0x600008 */
        .word   0
big:    .dword  0x0123456789abcdef  /* 0x600010 */
byte:   .byte   0                   /* 0x600018 */

    .section .note.GNU-stack, "", %progbits
