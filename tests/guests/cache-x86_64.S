/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * x86_64 assembly guest for data cache simulators: four functions, one
 * after the other (jumps, no call, no stack), each making one access
 * pattern over its own zeroed region (see asm.ld for the layout). Only
 * the loads and stores named below touch memory.
 *
 * Known by construction (cache-x86_64.expect holds the numbers):
 *   regions   b = 0x600000 (64 KiB), a = 0x610000 (8 KiB),
 *             c = 0x612000 (4 KiB)
 *   thrash    two passes over b, one 4-byte load per 64 bytes:
 *             2048 loads
 *   cold_read a, 4-byte loads at every 4 bytes: 2048 loads
 *   warm_read the same again: 2048 loads
 *   cold_write c, 8-byte stores at every 8 bytes: 512 stores
 *   exit      exit_group(0)
 * Misses for a cache of S bytes, A ways, L-byte lines (LRU): cold_read
 * misses 8 KiB / L lines and cold_write 4 KiB / L (first touch), and
 * warm_read none while 8 KiB fits; thrash misses all 2048 when b's 1024
 * lines (L = 64) are more than the cache holds per set (S < 64 KiB),
 * only the first 1024 when they fit (S >= 64 KiB).
 */
    .text
    .globl _start
_start:
    jmp     thrash

    .type   thrash, @function
thrash:
    mov     $2, %edx                /* passes */
1:  lea     region_b(%rip), %rsi
    mov     $1024, %ecx
2:  mov     (%rsi), %eax            /* load 4 bytes, one per line */
    add     $64, %rsi
    dec     %ecx
    jnz     2b
    dec     %edx
    jnz     1b
    jmp     cold_read
    .size   thrash, . - thrash

    .type   cold_read, @function
cold_read:
    lea     region_a(%rip), %rsi
    mov     $2048, %ecx
1:  mov     (%rsi), %eax            /* load 4 bytes */
    add     $4, %rsi
    dec     %ecx
    jnz     1b
    jmp     warm_read
    .size   cold_read, . - cold_read

    .type   warm_read, @function
warm_read:
    lea     region_a(%rip), %rsi
    mov     $2048, %ecx
1:  mov     (%rsi), %eax            /* load 4 bytes */
    add     $4, %rsi
    dec     %ecx
    jnz     1b
    jmp     cold_write
    .size   warm_read, . - warm_read

    .type   cold_write, @function
cold_write:
    lea     region_c(%rip), %rdi
    mov     $512, %ecx
1:  mov     %rax, (%rdi)            /* store 8 bytes */
    add     $8, %rdi
    dec     %ecx
    jnz     1b
    xor     %edi, %edi              /* exit status 0 */
    mov     $231, %eax              /* __NR_exit_group */
    syscall
    .size   cold_write, . - cold_write

    .data
    .balign 4096
region_b:   .skip   65536           /* 0x600000 */
region_a:   .skip   8192            /* 0x610000 */
region_c:   .skip   4096            /* 0x612000 */

    .section .note.GNU-stack, "", %progbits
