/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * x86 system-mode guest: a 64 KiB firmware image for the pc machine
 * (-bios), run from the reset vector in 16-bit real mode. No BIOS, no
 * interrupts (IF is clear at reset); it ends QEMU through the
 * isa-debug-exit device at I/O port 0xf4, which exits with status
 * (value << 1) | 1. Every memory access is known by construction:
 *
 *   loads     100 x 2 bytes from 0x1000
 *   stores    100 x 2 bytes to 0x1008, 1 x 1 byte to 0x1010
 *   accesses  translated: 3 (the loop's load and store, the tail's
 *             store), each block translated once
 *   exit      value 20 to port 0xf4: status 41
 *
 * The image is mapped at 0xffff0000; its code runs with CS base
 * 0xffff0000 and its jumps are relative, so the same bytes come out
 * linked at 0 or at 0xffff0000. The build links it at 0xffff0000 as
 * boot-x86.elf (the symbols _start, loop, halt, reset at the addresses
 * QEMU reports for them) and copies its code into the flat image. DS is
 * 0: data addresses are physical (RAM).
 */
    .code16
    .text
    .globl _start
_start:
    xor     %ax, %ax
    mov     %ax, %ds                /* data at physical addresses */
    mov     $100, %cx               /* iteration count */
    jmp     loop                    /* end the set-up block */
loop:
    mov     0x1000, %dx             /* load 2 bytes */
    add     %dx, %ax
    mov     %ax, 0x1008             /* store 2 bytes */
    dec     %cx
    jnz     loop

    movb    %al, 0x1010             /* store 1 byte */
    mov     $20, %al
    out     %al, $0xf4              /* isa-debug-exit: QEMU exits, 41 */
halt:
    hlt
    jmp     halt

    .org    0xfff0                  /* the reset vector, 0xfffffff0 */
reset:
    jmp     _start
    .org    0x10000                 /* 64 KiB: QEMU's size for a BIOS */
