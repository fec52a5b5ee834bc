/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * aarch64 assembly guest for data cache simulators: four functions, one
 * after the other (jumps, no call, no stack), each making one access
 * pattern over its own zeroed region (see asm.ld for the layout). Only
 * the loads and stores named below touch memory.
 *
 * Known by construction (cache-aarch64.expect holds the numbers):
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
    b       thrash

    .type   thrash, %function
thrash:
    mov     w2, #2                  /* passes */
1:  adrp    x1, region_b
    add     x1, x1, :lo12:region_b
    mov     w3, #1024
2:  ldr     w0, [x1]                /* load 4 bytes, one per line */
    add     x1, x1, #64
    subs    w3, w3, #1
    b.ne    2b
    subs    w2, w2, #1
    b.ne    1b
    b       cold_read
    .size   thrash, . - thrash

    .type   cold_read, %function
cold_read:
    adrp    x1, region_a
    add     x1, x1, :lo12:region_a
    mov     w3, #2048
1:  ldr     w0, [x1]                /* load 4 bytes */
    add     x1, x1, #4
    subs    w3, w3, #1
    b.ne    1b
    b       warm_read
    .size   cold_read, . - cold_read

    .type   warm_read, %function
warm_read:
    adrp    x1, region_a
    add     x1, x1, :lo12:region_a
    mov     w3, #2048
1:  ldr     w0, [x1]                /* load 4 bytes */
    add     x1, x1, #4
    subs    w3, w3, #1
    b.ne    1b
    b       cold_write
    .size   warm_read, . - warm_read

    .type   cold_write, %function
cold_write:
    adrp    x1, region_c
    add     x1, x1, :lo12:region_c
    mov     w3, #512
1:  str     x0, [x1]                /* store 8 bytes */
    add     x1, x1, #8
    subs    w3, w3, #1
    b.ne    1b
    mov     x0, #0                  /* exit status 0 */
    mov     x8, #94                 /* __NR_exit_group */
    svc     #0
    .size   cold_write, . - cold_write

    .data
    .balign 4096
region_b:   .skip   65536           /* 0x600000 */
region_a:   .skip   8192            /* 0x610000 */
region_c:   .skip   4096            /* 0x612000 */

    .section .note.GNU-stack, "", %progbits
