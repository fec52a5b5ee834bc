/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * x86_64 guest with blocks at a page boundary (asm.ld puts .text at
 * 0x400000; .org places code at fixed offsets). pagecross-x86_64.expect
 * lists the blocks QEMU must make of it, by construction:
 *
 *   0x400000  2 insns, 7 bytes: xor, jmp to 0x400ffc
 *   0x400ffc  1 insn, 3 bytes: add; the mov after it starts at 0x400fff
 *             and crosses into the next page, so QEMU ends the block
 *             before it (a block never continues onto a second page with
 *             an instruction that straddles it)
 *   0x400fff  the straddling mov starts a block (an instruction may
 *             straddle a boundary as the first of its block)
 *   0x401ffe  the same for a 5-byte mov straddling 0x402000, reached by
 *             a jmp; the block of mov and syscall (exit_group(42)) ends
 *             the run
 * Which blocks QEMU makes after a straddling first instruction is its
 * choice and not asserted.
 */
    .text
    .globl _start
_start:
    xor     %eax, %eax              /* 0x400000 */
    jmp     .Lcross                 /* 0x400002, 5 bytes */
    .org    0xffc, 0x90
.Lcross:
    add     $1, %eax                /* 0x400ffc, 3 bytes */
    mov     $42, %edi               /* 0x400fff, 5 bytes, straddles */
    jmp     .Lfirst                 /* 0x401004, 5 bytes */
    .org    0x1ffe, 0x90
.Lfirst:
    mov     $231, %eax              /* 0x401ffe, 5 bytes, straddles */
    mov     $42, %edi               /* 0x402003 */
    syscall                         /* 0x402008 */

    .section .note.GNU-stack, "", %progbits
