/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Call, return and tail-call instructions, told from their bytes at
 * translation time, and the few per-architecture facts the call tracker
 * and the image map need (system call numbers). Pure functions: no QEMU
 * calls, so the unit tests drive them with byte patterns.
 */
#ifndef QTRACE_PLUGIN_CALLS_DECODE_H
#define QTRACE_PLUGIN_CALLS_DECODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum calls_isa {
    CALLS_ISA_NONE = 0,         /* no decoder: no call events */
    CALLS_ISA_X86_64,
    CALLS_ISA_AARCH64,
    CALLS_ISA_RISCV64,
    CALLS_ISA_RISCV32,
    CALLS_ISA_ARM,              /* A32 and Thumb-2, little-endian */
};

/* What the last instruction of a block does to the call stack. */
enum calls_class {
    CALLS_OTHER = 0,
    CALLS_CALL,                 /* pushes a return address */
    CALLS_RET,                  /* returns to its caller */
    CALLS_TAIL,                 /* jumps to a function in place of a call */
    CALLS_INDIRECT,             /* other jump to a computed address */
    CALLS_SYSCALL,              /* enters the kernel (svc, ecall...) */
};

/* Linux ABI facts of a guest architecture (user mode). */
struct calls_abi {
    const char *target;         /* QEMU target name */
    enum calls_isa isa;
    uint8_t word_bits;          /* 32: syscall values are 32-bit */
    int64_t nr_mmap;            /* mmap or mmap2 */
    uint32_t mmap_unit;         /* bytes per unit of the offset argument */
    int64_t nr_sigreturn[2];    /* rt_sigreturn and sigreturn; -1 none */
    int64_t nr_exit_group;
    uint32_t map_anonymous;     /* MAP_ANONYMOUS */
};

/* The ABI of a QEMU target name, or NULL when calls are not decoded. */
const struct calls_abi *calls_abi_of(const char *target);

/* One instruction as QEMU translated it. */
struct calls_insn {
    uint64_t pc;
    uint8_t size;               /* bytes, as QEMU reports */
    uint8_t bytes[16];          /* the first min(size, 16) code bytes */
};

/*
 * Classify the last instruction of a block of n instructions (n >= 1).
 * The whole block is passed because on arm the instruction set (A32 or
 * Thumb) is not known to plugins and is guessed from the block: see
 * calls_arm_is_thumb().
 */
enum calls_class calls_classify_block(enum calls_isa isa,
                                      const struct calls_insn *insns,
                                      size_t n);

/*
 * The block ends with an unconditional direct jump (x86_64 jmp rel,
 * aarch64 b, RISC-V j / jal x0 / c.j, arm b / b.w): true, and its
 * target in *target. Such a jump is a tail call when the target is a
 * function's entry, which only the symbols can tell.
 */
bool calls_direct_jump(enum calls_isa isa, const struct calls_insn *insns,
                       size_t n, uint64_t *target);

/* One instruction of a known instruction set (thumb: arm only). */
enum calls_class calls_classify(enum calls_isa isa, const uint8_t *code,
                                size_t size, bool thumb);

/*
 * arm: true when the block is Thumb code. A 2-byte instruction or a pc
 * that is not 4-aligned says Thumb; a 4-byte instruction whose first
 * halfword cannot start a 32-bit Thumb instruction says A32; otherwise
 * the block is ambiguous and *ambiguous is set (the caller decodes both
 * ways).
 */
bool calls_arm_is_thumb(const struct calls_insn *insns, size_t n,
                        bool *ambiguous);

#endif /* QTRACE_PLUGIN_CALLS_DECODE_H */
