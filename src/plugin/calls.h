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

#include "../qemu/qemu-plugin.h"
#include "tbtab.h"
#include "vbuf.h"

#define CALLS_MAX_VCPUS 4096        /* as the plugin's vCPU table */
#define CALLS_MAX_DEPTH 1024        /* frames kept per vCPU */

/* What the next block start must look at (calls_hot.attn). */
#define CALLS_ATTN_BRANCH 1u        /* a call, return or tail call ran */
#define CALLS_ATTN_SYSCALL 2u       /* a system call returned */
#define CALLS_ATTN_SIGRETURN 4u     /* a signal handler's frame ends */

/* The part of a vCPU's state every block start reads. */
struct calls_hot {
    uint8_t attn;                   /* CALLS_ATTN_* */
    const struct tb_info *cur;      /* the block running now */
};

/* Indexed by vCPU index; NULL before the vCPU starts (or without calls). */
extern struct calls_hot *calls_vcpus[CALLS_MAX_VCPUS];

/*
 * At install: track calls for QEMU target `target`, recording func_entry
 * and/or func_exit. Returns false (and tracks nothing) when there is no
 * decoder for the target.
 */
bool calls_setup(const char *target, bool want_entry, bool want_exit);

/* A vCPU starts (vcpu_init): empty stack, records go to vb. */
void calls_vcpu_start(unsigned int vcpu, struct vbuf *vb);

/* A vCPU ends: open frames are closed (func_exit kind 3) at time. */
void calls_vcpu_stop(unsigned int vcpu, uint64_t time);

/*
 * Translation: classify the block's last instruction, register the
 * callback it needs, mark blocks that start at a return site.
 */
void calls_tb_trans(struct qemu_plugin_tb *tb, struct tb_info *ti);

/*
 * System call hooks (user mode): signal delivery (the block after a system
 * call is not where it returns), sigreturn and exit_group.
 */
void calls_syscall(unsigned int vcpu, int64_t num, uint64_t time);
void calls_syscall_ret(unsigned int vcpu, int64_t num);

/* "key=value\n" lines of counters for the END chunk. */
void calls_fmt_counts(char *buf, size_t len);

/* Out of line: resolve what calls_tb_start found to look at. */
void calls_block(struct calls_hot *hot, const struct tb_info *tb,
                 uint64_t time);

/*
 * Hot path, at every block start (time: the block's first instruction):
 * one load and a test unless the previous block ended in a call, return
 * or system call, or this one starts at a return site.
 */
static inline void calls_tb_start(unsigned int vcpu, const struct tb_info *tb,
                                  uint64_t time)
{
    struct calls_hot *hot = calls_vcpus[vcpu];

    if (__builtin_expect(!hot, 0)) {
        return;
    }
    if (__builtin_expect(hot->attn | (tb->flags & TB_F_RETURN_SITE), 0)) {
        calls_block(hot, tb, time);
    }
    hot->cur = tb;
}

#endif /* QTRACE_PLUGIN_CALLS_H */
