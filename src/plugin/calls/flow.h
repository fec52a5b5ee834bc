/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * System mode: how each executed block follows the one before, which
 * tells interrupts, exceptions, system calls and their returns (QEMU
 * 7.2 and 10.0 have no callback for them): a block that no branch of the
 * previous block leads to is a discontinuity (docs/calls.md, "Traps").
 * Records trap_entry and trap_return, and keeps the system-mode call
 * tracker (calls-sys.h) in step with them. Translation hooks run on any
 * translating thread, the rest on the vCPU's own thread, with no lock,
 * no malloc and no syscall per block.
 */
#ifndef QTRACE_PLUGIN_FLOW_H
#define QTRACE_PLUGIN_FLOW_H

#include <stdbool.h>
#include <stdint.h>

#include "../../qemu/qemu-plugin.h"
#include "../core/tbtab.h"
#include "../buffer/vbuf.h"

/* tb_info.sys_flags, set at translation. */
#define SYS_F_DYNAMIC 1u        /* goes on at a computed address: any
                                   next block is its successor */
#define SYS_F_SPECIAL 2u        /* raises or returns from an exception or
                                   a system call: the next start looks */
#define SYS_F_FALLS 4u          /* may also go on at the next instruction */
#define SYS_F_THUNK_JUMP 8u     /* a jump thunk (sysdec_thunk) */
#define SYS_F_THUNK_RETURN 16u  /* a return thunk */
#define SYS_F_LANDING 32u       /* a speculation trap's landing
                                   (sysdec_is_landing) */
#define SYS_F_SET 64u           /* decoded (the fields are valid) */
#define SYS_F_JUMP 128u         /* ends with an unconditional direct jump */
#define SYS_F_ENTRY 256u        /* starts like a function (sysdec_entry) */
#define SYS_F_ENTRY_CALL 512u   /* ... if sys_entry_call is __fentry__ */
#define SYS_F_ENTRY_NOP 2048u   /* ... if a call was seen to reach it */
/* Set on both: a direct jump to a block that starts like a function
 * may be a tail call, which the tracker looks at. */
#define SYS_F_TAIL_PAIR 1024u

/* flow_hot.attn: set by the call tracker's callbacks (calls-sys.c). */
#define FLOW_ATTN_BRANCH 1u     /* a call, return or tail call ran */
#define FLOW_ATTN_THUNK 2u      /* a call to a thunk waits for its target */

/*
 * What a block start reads and writes, in the plugin's vCPU slot next
 * to the instruction count.
 */
struct flow_hot {
    const struct tb_info *prev; /* the block that started last */
    uint8_t attn;               /* FLOW_ATTN_* */
};

/*
 * At install, system mode only: follow blocks for QEMU target `target`
 * (x86_64 and aarch64), recording trap_entry and trap_return as wanted
 * and telling the call tracker when `calls`. False (and nothing done)
 * for another target.
 */
bool flow_setup(const char *target, bool want_entry, bool want_return,
                bool calls);

/* Whether flow_setup took (the block callbacks must call flow). */
bool flow_active(void);

/* A vCPU starts: records go to vb; hot is its slot. */
void flow_vcpu_start(unsigned int vcpu, struct vbuf *vb,
                     struct flow_hot *hot);

/*
 * Translation: decode the block's last instruction into ti's sys_*
 * fields; on QEMU 9.2 and later, watch x86 lidt (the vectors).
 */
void flow_tb_trans(struct qemu_plugin_tb *tb, struct tb_info *ti);

/* Out of line: tb does not simply follow prev, or the tracker waits. */
void flow_block(unsigned int vcpu, const struct tb_info *prev,
                const struct tb_info *tb, uint64_t start);

/* "key=value\n" lines of counters for the END chunk. */
void flow_fmt_counts(char *buf, size_t len);

/*
 * Hot path, at every block start (start: the instruction count when it
 * begins). Blocks that follow their predecessor by a branch of its own
 * and find nothing noted cost a few compares.
 */
static inline void flow_tb_start(struct flow_hot *hot, unsigned int vcpu,
                                 const struct tb_info *tb, uint64_t start)
{
    const struct tb_info *prev = hot->prev;

    hot->prev = tb;
    if (__builtin_expect(!hot->attn && !(prev->sys_flags & SYS_F_SPECIAL) &&
                         (tb->pc == prev->pc + prev->size ||
                          (tb->pc == prev->sys_target &&
                           !(tb->sys_flags & prev->sys_flags &
                             SYS_F_TAIL_PAIR)) ||
                          (prev->sys_flags & SYS_F_DYNAMIC)), 1)) {
        return;
    }
    flow_block(vcpu, prev, tb, start);
}

/*
 * Translation: the bytes, pc and size of instruction i of tb, as the
 * decoders (calls-decode.h, sys-decode.h) take them.
 */
struct calls_insn;
void flow_insn_of(struct qemu_plugin_tb *tb, const struct tb_info *ti,
                  uint32_t i, struct calls_insn *out);

#endif /* QTRACE_PLUGIN_FLOW_H */
