/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * aarch64 guest with a block at a page boundary (asm.ld puts .text at
 * 0x400000; .org places code at fixed offsets). A64 instructions are 4
 * bytes and aligned, so none straddles a page: QEMU ends a block at the
 * boundary. By construction:
 *
 *   0x400000  2 insns, 8 bytes: mov, b to 0x400ff8
 *   0x400ff8  2 insns, 8 bytes: two adds, up to the page boundary
 *   0x401000  3 insns, 12 bytes: mov, mov, svc (exit_group(42))
 */
    .text
    .globl _start
_start:
    mov     x0, #0                  /* 0x400000 */
    b       .Lcross                 /* 0x400004 */
    .org    0xff8, 0
.Lcross:
    add     x0, x0, #40             /* 0x400ff8 */
    add     x0, x0, #2              /* 0x400ffc */
    mov     x8, #94                 /* 0x401000: __NR_exit_group */
    mov     x0, #42                 /* 0x401004 */
    svc     #0                      /* 0x401008 */

    .section .note.GNU-stack, "", %progbits
