/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Arm guest with Thumb and Arm blocks at page boundaries (asm.ld puts
 * .text at 0x400000; .org places code at fixed offsets). By construction:
 *
 *   0x400000  Thumb, 2 insns, 6 bytes: movs, b.w to 0x400ffc
 *   0x400ffc  Thumb, 1 insn, 2 bytes: adds; the 32-bit movw after it
 *             straddles 0x401000, so QEMU ends the block before it
 *   0x400ffe  Thumb, 1 insn, 4 bytes: the straddling movw, alone: QEMU
 *             ends a Thumb block that reaches a page boundary
 *   0x401002  Thumb, 3 insns, 6 bytes: movs, ldr, bx to Arm code at
 *             0x401ffc
 *   0x401ffc  Arm, 1 insn, 4 bytes: svc 0 (exit_group(42)), the last
 *             word of its page
 */
    .syntax unified
    .text
    .thumb
    .globl _start
    .thumb_func
_start:
    movs    r0, #0                  /* 0x400000 */
    b.w     .Lcross                 /* 0x400002 */
    .org    0xffc, 0
    .thumb_func
.Lcross:
    adds    r0, #40                 /* 0x400ffc, 16-bit */
    movw    r7, #248                /* 0x400ffe, 32-bit: __NR_exit_group */
    movs    r0, #42                 /* 0x401002 */
    ldr     r1, .Larm_addr          /* 0x401004 */
    bx      r1                      /* 0x401006 */
    .balign 4
.Larm_addr:
    .word   .Larm_exit
    .org    0x1ffc, 0
    .arm
.Larm_exit:
    svc     #0                      /* 0x401ffc */

    .section .note.GNU-stack, "", %progbits
