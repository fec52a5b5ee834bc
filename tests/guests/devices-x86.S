/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * x86 firmware guest for what QEMU's plugin API reports of devices
 * (qemu-system-x86_64 -machine pc -bios devices-x86.bin -device
 * isa-debug-exit,iobase=0xf4,iosize=4): from the reset vector it enters
 * 32-bit protected mode (flat segments, no paging: a virtual address is
 * the physical one) and makes, between probe_start and probe_end, one of
 * each kind of access below, each by one instruction with a label of its
 * own. Known by construction (devices-x86.expect):
 *
 *   ram_store, ram_load   4 bytes at 0x5000 (RAM)
 *   rom_low               4 bytes of rom_word through the BIOS's alias
 *                         below 1 MiB (0xf0000 + its offset; the image
 *                         is linked there, bare.ld)
 *   rom_high              the same 4 bytes where the pc machine maps the
 *                         BIOS itself, 0xffff0000 + the offset
 *   ioapic_store          4 bytes to the I/O APIC's index register,
 *                         0xfec00000 (a region of a whole page, "ioapic")
 *   ioapic_load           4 bytes from it
 *   hpet_load             the HPET's main counter, 0xfed000f0 (a 1 KiB
 *                         region: its page is a container QEMU leaves
 *                         unnamed)
 *   apic_load             the local APIC's version register, 0xfee00030
 *   port_out80            out to port 0x80 (a byte)
 *   port_out70, port_in71 the CMOS index and data ports
 *   port_outl, port_inl   PCI configuration: 0x80000000 to 0xcf8, then
 *                         4 bytes from 0xcfc (vendor and device id of
 *                         00:00.0)
 *   port_outs             outsb: 1 byte read from RAM at 0x5000 and
 *                         written to port 0x80
 *   port_ins              insb: 1 byte read from port 0x71 and stored to
 *                         RAM at 0x5008
 *   exit                  writes 0x15 to port 0xf4 after probe_end:
 *                         QEMU exits with (0x15 << 1) | 1 = 43
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
    mov     $0x12345678, %ebx
    mov     $0x5000, %esi
    mov     $0x5008, %edi
    jmp     probe_start

    .globl probe_start
probe_start:
ram_store:
    mov     %ebx, 0x5000
ram_load:
    mov     0x5000, %eax
rom_low:
    mov     rom_word, %eax
rom_high:
    mov     rom_word - 0xf0000 + 0xffff0000, %eax
ioapic_store:
    movl    $0, 0xfec00000
ioapic_load:
    mov     0xfec00000, %eax
hpet_load:
    mov     0xfed000f0, %eax
apic_load:
    mov     0xfee00030, %eax
port_out80:
    mov     $0x51, %al
    out     %al, $0x80
port_out70:
    mov     $0x0a, %al                  /* CMOS status register A */
    out     %al, $0x70
port_in71:
    in      $0x71, %al
port_outl:
    mov     $0xcf8, %dx
    mov     $0x80000000, %eax           /* bus 0, device 0, register 0 */
    outl    %eax, %dx
port_inl:
    mov     $0xcfc, %dx
    inl     %dx, %eax
port_outs:
    mov     $0x80, %dx
    outsb                               /* (%esi) = 0x5000 to port 0x80 */
port_ins:
    mov     $0x71, %dx
    insb                                /* port 0x71 to (%edi) = 0x5008 */
    .globl probe_end
probe_end:
    mov     $0x15, %al
    out     %al, $0xf4                  /* isa-debug-exit: QEMU exits */
1:  hlt
    jmp     1b

    .balign 8
rom_word:
    .long   0xc0ffee42
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
    .org    0x10000                     /* 64 KiB: QEMU's size for a BIOS */

    .section .note.GNU-stack, "", %progbits
