/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * x86 bare-metal guest for system mode (qemu-system-x86_64 -machine pc
 * -bios bare-x86_64.bin -device isa-debug-exit,iobase=0xf4,iosize=4):
 * the 64 KiB firmware image itself, so no other code runs. From the reset
 * vector it enters 32-bit protected mode (flat segments, no paging: a
 * virtual address is the physical one), then runs the access patterns
 * of cache-x86_64.S over its own regions of RAM, reads two device
 * registers, makes three calls, and ends QEMU through isa-debug-exit.
 * Only the calls use a stack.
 *
 * Known by construction (bare-x86_64.expect holds the numbers):
 *   image     linked at 0xf0000 (bare.ld), the reset vector at 0xffff0
 *   regions   b = 0x20000 (64 KiB), a = 0x30000 (8 KiB), c = 0x40000
 *             (4 KiB), zeroed RAM
 *   thrash    two passes over b, one 4-byte load per 64 bytes:
 *             2048 loads
 *   cold_read a, 4-byte loads at every 4 bytes: 2048 loads
 *   warm_read the same again: 2048 loads
 *   cold_write c, 4-byte stores at every 4 bytes: 1024 stores
 *   device    two 4-byte loads of device registers, not RAM: the I/O
 *             APIC's index register (0xfec00000, a region of a whole
 *             page, which QEMU names "ioapic"), then the HPET's main
 *             counter (0xfed000f0, in a 1 KiB region: QEMU 7.2 and 10.0
 *             name the page's container "anon" and a number instead)
 *   calls     then, with a stack at 0x9000, calls leaf 3 times (the only
 *             calls: each a call and a return, at depth 1; a store and a
 *             load on the stack each)
 *   exit      writes 0x10 to port 0xf4: QEMU exits with (0x10 << 1) | 1
 *             = 33
 * Misses (LRU, per geometry) are those of cache-x86_64.S, cold_write's
 * being 4 KiB / line size too.
 */
    .text
    .code16
    .globl _start
_start:                                 /* 0xf0000, from the reset vector */
    cli
    lgdtl   %cs:(gdt_desc - _start)
    mov     %cr0, %eax
    or      $1, %eax                    /* protected mode */
    mov     %eax, %cr0
    ljmpl   $0x08, $protected

    .code32
protected:
    mov     $0x10, %ax                  /* flat data segment */
    mov     %ax, %ds
    mov     %ax, %es
    mov     %ax, %ss
    jmp     thrash

    .type   thrash, @function
thrash:
    mov     $2, %edx                    /* passes */
1:  mov     $0x20000, %esi              /* b */
    mov     $1024, %ecx
2:  mov     (%esi), %eax                /* load 4 bytes, one per line */
    add     $64, %esi
    dec     %ecx
    jnz     2b
    dec     %edx
    jnz     1b
    jmp     cold_read
    .size   thrash, . - thrash

    .type   cold_read, @function
cold_read:
    mov     $0x30000, %esi              /* a */
    mov     $2048, %ecx
1:  mov     (%esi), %eax                /* load 4 bytes */
    add     $4, %esi
    dec     %ecx
    jnz     1b
    jmp     warm_read
    .size   cold_read, . - cold_read

    .type   warm_read, @function
warm_read:
    mov     $0x30000, %esi              /* a again */
    mov     $2048, %ecx
1:  mov     (%esi), %eax                /* load 4 bytes */
    add     $4, %esi
    dec     %ecx
    jnz     1b
    jmp     cold_write
    .size   warm_read, . - warm_read

    .type   cold_write, @function
cold_write:
    mov     $0x40000, %edi              /* c */
    mov     $1024, %ecx
1:  mov     %eax, (%edi)                /* store 4 bytes */
    add     $4, %edi
    dec     %ecx
    jnz     1b
    jmp     device
    .size   cold_write, . - cold_write

    .type   device, @function
device:
    mov     0xfec00000, %eax            /* I/O APIC index register */
    mov     0xfed000f0, %eax            /* HPET main counter */
    jmp     calls
    .size   device, . - device

    .type   calls, @function
calls:
    mov     $0x9000, %esp               /* a stack, for the calls only */
    mov     $3, %ecx
1:  call    leaf                        /* 3 calls, at depth 1 */
    dec     %ecx
    jnz     1b
    jmp     finish
    .size   calls, . - calls

    .type   leaf, @function
leaf:
    ret
    .size   leaf, . - leaf

    .type   finish, @function
finish:
    mov     $0x10, %al
    out     %al, $0xf4                  /* isa-debug-exit: QEMU exits */
1:  hlt
    jmp     1b
    .size   finish, . - finish

    .balign 8
gdt:
    .quad   0                           /* null descriptor */
    .quad   0x00cf9a000000ffff          /* 0x08: code, flat, 32-bit */
    .quad   0x00cf92000000ffff          /* 0x10: data, flat */
gdt_desc:
    .word   gdt_desc - gdt - 1
    .long   gdt

    .code16
    .org    0xfff0                      /* 0xffff0: the reset vector */
reset:
    ljmp    $0xf000, $(_start - 0xf0000)
    .org    0x10000                     /* the image is 64 KiB */

    .section .note.GNU-stack, "", %progbits
