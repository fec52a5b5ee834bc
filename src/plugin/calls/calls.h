/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Function call tracking: func_entry and func_exit records from the call,
 * return and tail-call instructions found at translation time and a
 * shadow stack per vCPU (docs/calls.md). Translation hooks run on any
 * translating thread; everything else on the vCPU's own thread, with no
 * lock, no malloc and no syscall per event.
 */
#ifndef QTRACE_PLUGIN_CALLS_H
#define QTRACE_PLUGIN_CALLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../../qemu/qemu-plugin.h"
#include "../core/tbtab.h"
#include "../buffer/vbuf.h"

#define CALLS_MAX_VCPUS 4096        /* as the plugin's vCPU table */
#define CALLS_MAX_DEPTH 1024        /* frames kept per vCPU */

/* What the next block start must look at (calls_hot.attn). */
#define CALLS_ATTN_BRANCH 1u        /* a call, return or tail call ran */
#define CALLS_ATTN_SYSCALL 2u       /* a system call returned */
#define CALLS_ATTN_SIGRETURN 4u     /* a signal handler's frame ends */

/*
 * The part of a vCPU's state block starts read and write. It lives in the
 * plugin's own vCPU slot, next to the instruction count, so that a block
 * start touches one cache line and follows no pointer. Most blocks only
 * read attn. Blocks ending in an indirect jump or a system call leave
 * their mark with the instruction count at their end, which tells later
 * whether such a block is the one just before, or the one running now,
 * without a store in every block.
 */
struct calls_vcpu;

struct calls_hot {
    uint8_t attn;                   /* CALLS_ATTN_* */
    struct calls_vcpu *cv;          /* the rest, calls.c's; NULL: none */
    /* The block that noted CALLS_ATTN_BRANCH at its start, or NULL. */
    const struct tb_info *branch_tb;
    uint64_t indirect_end;          /* end of the last indirect jump's block */
    const struct tb_info *sys_tb;   /* the last block ending in a syscall */
    uint64_t sys_end;               /* its end */
};

/*
 * At install: track calls for QEMU target `target`, recording func_entry
 * and/or func_exit (want_*) and handing them to the instrumentation
 * libraries (instr_*: instr_func_entry / instr_func_exit). Returns false
 * (and tracks nothing) when there is no decoder for the target or
 * nothing is wanted.
 */
bool calls_setup(const char *target, bool system_mode, bool want_entry,
                 bool want_exit, bool instr_entry, bool instr_exit);

/* Whether there is a decoder for QEMU target `target`. */
bool calls_available(const char *target);

/*
 * A vCPU starts (vcpu_init): empty stack, records go to vb; hot is the
 * vCPU's slot that calls_tb_start is given.
 */
void calls_vcpu_start(unsigned int vcpu, struct vbuf *vb,
                      struct calls_hot *hot);

/* A vCPU ends: open frames are closed (func_exit kind 3) at time. */
void calls_vcpu_stop(unsigned int vcpu, uint64_t time);

/*
 * Translation: classify the block's last instruction, register the
 * callback it needs, mark blocks that start at a return site.
 */
void calls_tb_trans(struct qemu_plugin_tb *tb, struct tb_info *ti);

/*
 * System call hooks (user mode): signal delivery (the block after a system
 * call is not where it returns), sigreturn and exit_group. icount: the
 * vCPU's instruction count now.
 */
void calls_syscall(unsigned int vcpu, int64_t num, uint64_t time);
void calls_syscall_ret(unsigned int vcpu, int64_t num, uint64_t icount);

/* "key=value\n" lines of counters for the END chunk. */
void calls_fmt_counts(char *buf, size_t len);

/*
 * How a block starts, from its flags: most blocks have none of
 * TB_F_RETURN_SITE, TB_F_ENDS_INDIRECT, TB_F_ENDS_SYSCALL and
 * TB_F_FUNC_ENTRY and take the plain way. A function's entry also looks
 * at the indirect jump mark: a loop whose head is a function's first
 * instruction runs it at every turn. Outside range=, where nothing is
 * counted (end equals start), every block takes CALLS_START_ANY and
 * overwrites the marks. The plain and entry ways of a block that ends in
 * a call, return or tail call (TB_F_ENDS_BRANCH) are ways of their own,
 * which note it without testing the flags: in call-heavy code, a test
 * in every block start costs.
 */
enum calls_start {
    CALLS_START_PLAIN,
    CALLS_START_PLAIN_NOTE,         /* and TB_F_ENDS_BRANCH */
    CALLS_START_INDIRECT,           /* TB_F_ENDS_INDIRECT alone */
    CALLS_START_ENTRY,              /* TB_F_FUNC_ENTRY alone */
    CALLS_START_ENTRY_NOTE,         /* and TB_F_ENDS_BRANCH */
    CALLS_START_ANY,
    CALLS_START__COUNT
};

static inline enum calls_start calls_start_of(const struct tb_info *tb)
{
    uint32_t f = tb->flags & (TB_F_RETURN_SITE | TB_F_ENDS_INDIRECT |
                              TB_F_ENDS_SYSCALL | TB_F_FUNC_ENTRY);
    bool note = tb->flags & TB_F_ENDS_BRANCH;

    if (f == TB_F_ENDS_INDIRECT) {
        return CALLS_START_INDIRECT;    /* a branch of its own class */
    }
    if (f == TB_F_FUNC_ENTRY) {
        return note ? CALLS_START_ENTRY_NOTE : CALLS_START_ENTRY;
    }
    if (f) {
        return CALLS_START_ANY;
    }
    return note ? CALLS_START_PLAIN_NOTE : CALLS_START_PLAIN;
}

/*
 * The block's last instruction is a call, return or tail call (user
 * mode): note it now for the next block start, saving QEMU a callback
 * on the instruction.
 */
static inline void calls_note_branch_end(struct calls_hot *hot,
                                         const struct tb_info *tb)
{
    if (tb->flags & TB_F_ENDS_BRANCH) {
        hot->attn |= CALLS_ATTN_BRANCH;
        hot->branch_tb = tb;
    }
}

/*
 * Out of line: the block starts after a call, return or system call, at
 * a return site or at a function's entry; then leaves the block's marks
 * and notes its own branch (calls_note_branch_end), so that the callers
 * below reach it by a tail call.
 */
void calls_block(struct calls_hot *hot, const struct tb_info *tb,
                 uint64_t start, uint64_t end);

/*
 * Hot path, at every block start: start is the instruction count when the
 * block begins, end when it ends. A load and a test unless the previous
 * block ended in a call, return or system call; the way is a constant.
 */
static inline void calls_tb_start(struct calls_hot *hot,
                                  const struct tb_info *tb, uint64_t start,
                                  uint64_t end, enum calls_start way)
{
    switch (way) {
    case CALLS_START_PLAIN:
    case CALLS_START_PLAIN_NOTE:
        if (__builtin_expect(hot->attn, 0)) {
            calls_block(hot, tb, start, end);
            return;
        }
        break;
    case CALLS_START_INDIRECT:
        if (__builtin_expect(hot->attn, 0)) {
            calls_block(hot, tb, start, end);
            return;
        }
        hot->indirect_end = end;
        return;
    case CALLS_START_ENTRY:
    case CALLS_START_ENTRY_NOTE:
        if (__builtin_expect(hot->attn || hot->indirect_end == start, 0)) {
            calls_block(hot, tb, start, end);
            return;
        }
        break;
    default:
        calls_block(hot, tb, start, end);
        return;
    }
    /* Nothing was pending (attn is 0): this block's branch is. */
    if (way == CALLS_START_PLAIN_NOTE || way == CALLS_START_ENTRY_NOTE) {
        hot->attn = CALLS_ATTN_BRANCH;
        hot->branch_tb = tb;
    }
}

#endif /* QTRACE_PLUGIN_CALLS_H */
