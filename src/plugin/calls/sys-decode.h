/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What system mode needs to know of instructions, told from their bytes
 * at translation time (docs/calls.md, "System mode"): where a block may
 * go next (its successors, which tell a discontinuity: an interrupt or
 * an exception), which instructions raise or return from an exception,
 * which blocks are thunks (retpolines and their kin) and which
 * instructions save or restore a frame's return address on the stack.
 * Pure functions: no QEMU calls, so the unit tests drive them with byte
 * patterns.
 */
#ifndef QTRACE_PLUGIN_SYS_DECODE_H
#define QTRACE_PLUGIN_SYS_DECODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "calls-decode.h"

/* How a block's last instruction leaves it. */
enum sysdec_end {
    SYSDEC_NEXT = 0,            /* on to the next instruction */
    SYSDEC_BRANCH,              /* direct jump, branch or call: target */
    SYSDEC_DYNAMIC,             /* computed target: return, jump or call
                                   through a register or memory, far
                                   transfer */
    SYSDEC_TRAP,                /* raises an exception itself (int3, int n,
                                   ud2, brk, udf): its handler is next */
    SYSDEC_SYSCALL,             /* enters the kernel: syscall, sysenter,
                                   svc */
    SYSDEC_TRAP_RETURN,         /* returns from an exception: iret, eret */
    SYSDEC_SYSCALL_RETURN,      /* returns from a system call: sysret,
                                   sysexit */
};

struct sysdec_flow {
    enum sysdec_end end;
    bool may_fall;              /* BRANCH: conditional; TRAP: may go on
                                   without trapping (into, hvc, smc) */
    int32_t vector;             /* TRAP: the vector raised, -1 unknown */
    uint64_t target;            /* BRANCH: where it jumps */
};

/* Where the last instruction of a block, insn, may send execution. */
void sysdec_flow(enum calls_isa isa, const struct calls_insn *insn,
                 struct sysdec_flow *out);

/*
 * x86 call whose target lies 1 to 8 bytes past its own end (target is
 * the call's): a speculation trap when what it reaches is a landing
 * (sysdec_is_landing), not a call of a function.
 */
bool sysdec_is_short_call(enum calls_isa isa, const struct calls_insn *insn,
                          uint64_t target);

/*
 * x86: insn, first of a block, makes the block a speculation trap's
 * landing: it overwrites the return address the trap call pushed (mov
 * %reg,(%rsp): a retpoline) or drops it (add or lea on %rsp: the return
 * stack filling of a context switch), or it is the next short call of
 * such a filling.
 */
bool sysdec_is_landing(enum calls_isa isa, const struct calls_insn *insn);

/* What a called block does for its caller (sysdec_thunk). */
enum sysdec_thunk {
    SYSDEC_THUNK_NONE = 0,
    /*
     * A jump thunk: the block only passes control to a computed target,
     * which is the function really called: a retpoline's first block
     * (a short call) or its disabled form, jmp *%reg (after lfence).
     */
    SYSDEC_THUNK_JUMP,
    /*
     * A return thunk: the block drops its own return address and
     * returns for its caller (lea 8(%rsp),%rsp or add $8,%rsp, then
     * ret): no frame of its own.
     */
    SYSDEC_THUNK_RETURN,
};

/* Whether a block of n instructions is a thunk (x86_64 only). */
enum sysdec_thunk sysdec_thunk(enum calls_isa isa,
                               const struct calls_insn *insns, size_t n);

/* Frame record accesses on the stack (sysdec_frame_access). */
enum sysdec_frame {
    SYSDEC_FRAME_NONE = 0,
    SYSDEC_FRAME_SAVE,          /* stores the return address (x30) */
    SYSDEC_FRAME_RESTORE,       /* loads it back */
};

/*
 * aarch64: whether insn saves or restores x30 relative to sp (stp/ldp
 * x29, x30 or str/ldr x30, every addressing form): a function's
 * prologue and epilogue, whose address tells the frame's place on the
 * stack.
 */
enum sysdec_frame sysdec_frame_access(enum calls_isa isa,
                                      const struct calls_insn *insn);

/* What a block's first instruction says of a function entry. */
enum sysdec_entry {
    SYSDEC_ENTRY_NO = 0,
    /* Only a function starts so: x86 endbr64, aarch64 bti c, paciasp. */
    SYSDEC_ENTRY_YES,
    /*
     * A nop: what ftrace leaves of a function's call to __fentry__ (x86
     * the five-byte nop, aarch64 nop), but also a static branch's.
     */
    SYSDEC_ENTRY_NOP,
    /* x86 call rel32: a function entry if its target is __fentry__. */
    SYSDEC_ENTRY_IF_FENTRY,
};

/*
 * Whether insn, first of a block, starts a function the way a compiled
 * kernel's functions start (a direct jump there is then a tail call);
 * *call_target: the target of SYSDEC_ENTRY_IF_FENTRY's call.
 */
enum sysdec_entry sysdec_entry_like(enum calls_isa isa,
                                    const struct calls_insn *insn,
                                    uint64_t *call_target);

/* insn is an unconditional direct jump (x86 jmp rel, aarch64 b). */
bool sysdec_is_direct_jump(enum calls_isa isa, const struct calls_insn *insn);

/* x86: insn is lidt with a memory operand (0f 01 /3). */
bool sysdec_is_lidt(enum calls_isa isa, const struct calls_insn *insn);

#endif /* QTRACE_PLUGIN_SYS_DECODE_H */
