/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * x86_64 assembly guest: no libc, every executed instruction, memory
 * access and address known by construction (see asm.ld for the layout).
 * The end-to-end tests assert these numbers; asm-x86_64.expect holds them.
 *
 * Known by construction:
 *   entry     _start = 0x400000
 *   executed  3 (set-up) + 100 * 5 (loop) + 5 (tail, syscall included)
 *             = 508 instructions; nothing after the syscall runs
 *   loads     101: 100 x 4 bytes from src (0x600000), 1 x 8 bytes from
 *             big (0x600010)
 *   stores    101: 100 x 4 bytes to dst (0x600008), 1 x 1 byte to
 *             byte (0x600018)
 *   loop head .Lloop = 0x400010, a block entered 100 times (the set-up
 *             ends in a jmp so QEMU starts a new block there)
 *   blocks    with QEMU's default translation: 0x400000 x 1,
 *             0x400010 x 100, 0x400022 x 1
 *   exit      exit_group(42), status 42
 * No instruction other than the four movs touches memory: no push, call,
 * ret, string op, rep prefix or loop instruction.
 */
    .text
    .globl _start
_start:
    mov     $100, %ecx              /* 0x400000: iteration count */
    xor     %eax, %eax              /* 0x400005: running sum */
    jmp     .Lloop                  /* 0x400007: end the set-up block */
    .balign 16                      /* padding, jumped over, never run */
.Lloop:                             /* 0x400010 */
    mov     src(%rip), %edx         /* load 4 bytes */
    add     %edx, %eax
    mov     %eax, dst(%rip)         /* store 4 bytes */
    dec     %ecx
    jnz     .Lloop

    mov     big(%rip), %rdx         /* load 8 bytes */
    mov     %dl, byte(%rip)         /* store 1 byte */
    mov     $42, %edi               /* exit status */
    mov     $231, %eax              /* __NR_exit_group */
    syscall

    .data
    .balign 8
src:    .long   3                   /* 0x600000 */
        .long   0
dst:    .long   0                   /* 0x600008 */
        .long   0
big:    .quad   0x0123456789abcdef  /* 0x600010 */
byte:   .byte   0                   /* 0x600018 */

    .section .note.GNU-stack, "", %progbits
