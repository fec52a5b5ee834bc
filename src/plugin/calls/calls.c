/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The call tracker (see calls.h and docs/calls.md). A call, return or
 * tail-call instruction only notes itself; the next block start, whose
 * address is the branch's target, updates the shadow stack and records
 * func_entry / func_exit. No register is read, so it works on QEMU 7.2.
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qtrace-events.h"
#include "../../qemu/qemu-compat.h"
#include "calls.h"
#include "../buffer/pack.h"
#include "calls-decode.h"
#include "entries.h"
#include "../instrument/instr.h"
#include "qtrace/instrument.h"

#define LAND_SLOTS 1024u            /* return sites remembered per vCPU */

enum { ENTRY_CALL = 0, ENTRY_TAIL = 1, ENTRY_SYNTH = 2 };
enum { EXIT_RETURN = 0, EXIT_UNWOUND = 1, EXIT_REPLACED = 2, EXIT_END = 3 };

struct frame {
    uint64_t entry;                 /* the function's first address */
    uint64_t ret;                   /* return address; 0: unknown */
    uint32_t serial;                /* unique per push on this vCPU */
    bool signal;                    /* a signal handler, entered by QEMU */
};

/*
 * A return site and the frame that made the call returning there: when
 * execution reaches the site without a return (longjmp), that frame is
 * the one running again, and every frame above it is gone.
 */
struct land {
    uint64_t ret;
    uint32_t depth;                 /* the caller's depth, 0: none */
    uint32_t serial;                /* the caller's frame serial */
};

struct calls_vcpu {
    struct calls_hot *hot;          /* in the plugin's vCPU slot */
    unsigned int vcpu;              /* its index */
    struct vbuf *vb;
    uint8_t pend_class;             /* enum calls_class of the branch */
    uint64_t pend_pc;               /* the branch instruction */
    uint64_t pend_next;             /* its fall-through address */
    uint64_t sys_next;              /* after the system call instruction */
    uint64_t sys_insn;              /* the system call instruction */
    uint32_t depth;                 /* may exceed CALLS_MAX_DEPTH */
    uint32_t serial;
    uint32_t sigreturn_skip;        /* handlers that returned normally */
    bool quick;                     /* quick_branch may run (user mode,
                                       packed records only) */
    uint64_t overflows;             /* calls deeper than CALLS_MAX_DEPTH */
    uint64_t unmatched;             /* returns to no known frame */
    struct frame frames[CALLS_MAX_DEPTH];
    struct land land[LAND_SLOTS];
};

/* Indexed by vCPU index; NULL before the vCPU starts. */
static struct calls_vcpu *calls_vcpus[CALLS_MAX_VCPUS];

static struct {
    const struct calls_abi *abi;
    bool want_entry;
    bool want_exit;
    bool instr_entry;               /* a library asked for entries */
    bool instr_exit;                /* ... for exits */
    bool entry_out;                 /* want_entry || instr_entry */
    bool exit_out;                  /* want_exit || instr_exit */
    bool entry_packed_only;         /* want_entry && !instr_entry */
    bool exit_packed_only;          /* want_exit && !instr_exit */
    bool note_at_start;             /* branches noted by their block */
    bool quick;                     /* user mode, packed records only */
    pthread_mutex_t sites_lock;     /* return-site set, translation time */
    uint64_t *sites;                /* open addressing, 0 = empty */
    size_t sites_cap;               /* a power of two */
    size_t sites_used;
} cs = { .sites_lock = PTHREAD_MUTEX_INITIALIZER };

static struct calls_vcpu *cv_of(unsigned int vcpu)
{
    return vcpu < CALLS_MAX_VCPUS ? calls_vcpus[vcpu] : NULL;
}

/* ---- records ---- */

/*
 * func_entry and func_exit share one layout (pc, then where from or to,
 * depth, kind), so one function writes both.
 */
_Static_assert(sizeof(struct qtrace_ev_func_entry) ==
               sizeof(struct qtrace_ev_func_exit) &&
               offsetof(struct qtrace_ev_func_entry, from) ==
               offsetof(struct qtrace_ev_func_exit, to) &&
               offsetof(struct qtrace_ev_func_entry, kind) ==
               offsetof(struct qtrace_ev_func_exit, kind),
               "func_entry and func_exit differ in layout");

/* Inlined into func_entry_out and func_exit_out: one call per event. */
static inline __attribute__((always_inline)) void
emit_func(struct calls_vcpu *cv, uint16_t id, uint64_t pc, uint64_t other,
          uint32_t depth, uint8_t kind, uint64_t time)
{
    struct qtrace_ev_func_entry *r;

    if (cv->vb->pack && kind < PK_FUNC_KINDS) {
        pack_func(cv->vb, id == QTRACE_EV_FUNC_EXIT, kind, time, pc, other,
                  depth);
        return;
    }
    r = vbuf_event(cv->vb, id, sizeof(*r), time);
    r->pc = pc;
    r->from = other;
    r->depth = depth;
    r->kind = kind;
}

/*
 * The same event for the instrumentation libraries that asked for it.
 * Only frames that have a record reach here (depth <= CALLS_MAX_DEPTH),
 * so the frame of that depth is the event's.
 */
static struct qtrace_instr_func instr_func_of(const struct calls_vcpu *cv,
                                              uint64_t pc, uint32_t depth,
                                              uint8_t kind, uint64_t time)
{
    return (struct qtrace_instr_func){
        .entry = pc,
        .return_addr = cv->frames[depth - 1].ret,
        .icount = time,
        .depth = depth,
        .kind = kind,
    };
}

/* The library hand-off (instr_func_entry / instr_func_exit): rare. */
static void __attribute__((noinline, cold))
hand_to_libraries(const struct calls_vcpu *cv, bool entry, uint64_t pc,
                  uint64_t other, uint32_t depth, uint8_t kind, uint64_t time)
{
    struct qtrace_instr_func f = instr_func_of(cv, pc, depth, kind, time);

    if (entry) {
        f.from = other;
        instr_func_entry(cv->vcpu, &f);
    } else {
        f.to = other;
        instr_func_exit(cv->vcpu, &f);
    }
}

/*
 * A function entry or exit to its consumers: the trace's record, and the
 * libraries that asked. One out-of-line call behind one test in the
 * shadow stack's push and pop, as when the record was the only consumer,
 * so that they stay small enough to be inlined into calls_block.
 */
static void __attribute__((noinline))
func_entry_out(struct calls_vcpu *cv, uint64_t pc, uint64_t from,
               uint32_t depth, uint8_t kind, uint64_t time)
{
    if (cs.want_entry) {
        emit_func(cv, QTRACE_EV_FUNC_ENTRY, pc, from, depth, kind, time);
    }
    if (__builtin_expect(cs.instr_entry, 0)) {
        hand_to_libraries(cv, true, pc, from, depth, kind, time);
    }
}

static void __attribute__((noinline))
func_exit_out(struct calls_vcpu *cv, uint64_t pc, uint64_t to,
              uint32_t depth, uint8_t kind, uint64_t time)
{
    if (cs.want_exit) {
        emit_func(cv, QTRACE_EV_FUNC_EXIT, pc, to, depth, kind, time);
    }
    if (__builtin_expect(cs.instr_exit, 0)) {
        hand_to_libraries(cv, false, pc, to, depth, kind, time);
    }
}

/*
 * When the packed record is the event's only consumer (the usual case)
 * it is staged in place: no call.
 */
static inline void emit_entry(struct calls_vcpu *cv, uint64_t pc,
                              uint64_t from, uint32_t depth, uint8_t kind,
                              uint64_t time)
{
    if (cs.entry_packed_only && cv->vb->pack && kind < PK_FUNC_KINDS) {
        pack_func(cv->vb, false, kind, time, pc, from, depth);
    } else if (cs.entry_out) {
        func_entry_out(cv, pc, from, depth, kind, time);
    }
}

static inline void emit_exit(struct calls_vcpu *cv, uint64_t pc,
                             uint64_t to, uint32_t depth, uint8_t kind,
                             uint64_t time)
{
    if (cs.exit_packed_only && cv->vb->pack && kind < PK_FUNC_KINDS) {
        pack_func(cv->vb, true, kind, time, pc, to, depth);
    } else if (cs.exit_out) {
        func_exit_out(cv, pc, to, depth, kind, time);
    }
}

/* ---- the shadow stack ---- */

static struct land *land_slot(struct calls_vcpu *cv, uint64_t ret)
{
    return &cv->land[(ret ^ (ret >> 10) ^ (ret >> 20)) & (LAND_SLOTS - 1)];
}

/*
 * Frames deeper than CALLS_MAX_DEPTH are only counted: no record, so
 * every func_entry has its func_exit.
 */
static inline void push(struct calls_vcpu *cv, uint64_t entry, uint64_t ret,
                 uint64_t from, uint8_t kind, bool signal, uint64_t time)
{
    struct frame *f;

    cv->depth++;
    if (cv->depth > CALLS_MAX_DEPTH) {
        cv->overflows++;
        return;
    }
    f = &cv->frames[cv->depth - 1];
    f->entry = entry;
    f->ret = ret;
    f->serial = ++cv->serial;
    f->signal = signal;
    emit_entry(cv, entry, from, cv->depth, kind, time);
}

static inline void pop(struct calls_vcpu *cv, uint64_t to, uint8_t kind,
                uint64_t time)
{
    if (cv->depth <= CALLS_MAX_DEPTH) {
        emit_exit(cv, cv->frames[cv->depth - 1].entry, to, cv->depth, kind,
                  time);
    }
    cv->depth--;
}

static void unwind_to(struct calls_vcpu *cv, uint32_t keep, uint64_t to,
                      uint64_t time)
{
    while (cv->depth > keep) {
        pop(cv, to, EXIT_UNWOUND, time);
    }
}

static inline void do_call(struct calls_vcpu *cv, uint64_t target,
                           uint64_t time)
{
    uint32_t caller = cv->depth;
    struct land *l = land_slot(cv, cv->pend_next);

    if (caller <= CALLS_MAX_DEPTH) {
        l->ret = cv->pend_next;
        l->depth = caller;
        l->serial = caller ? cv->frames[caller - 1].serial : 0;
    }
    push(cv, target, cv->pend_next, cv->pend_pc, ENTRY_CALL, false, time);
}

/*
 * A return goes to the innermost frame whose return address is the
 * target; frames above it were left without a return (longjmp, an
 * exception) and are unwound. A target that is no frame's return
 * address ends the top frame only when that frame's return address is
 * unknown (a signal handler returning to its trampoline); otherwise the
 * return belongs to a frame never seen (entered before tracing began), or
 * is a longjmp that ends with a return instruction: the stack is left as
 * it is and false returned, for the landing check.
 */
static bool do_return(struct calls_vcpu *cv, uint64_t target, uint64_t time)
{
    uint32_t k;

    if (cv->depth > CALLS_MAX_DEPTH) {
        cv->depth--;
        return true;
    }
    for (k = cv->depth; k > 0; k--) {
        if (cv->frames[k - 1].ret == target) {
            unwind_to(cv, k, target, time);
            pop(cv, target, EXIT_RETURN, time);
            return true;
        }
    }
    if (cv->depth > 0 && cv->frames[cv->depth - 1].ret == 0) {
        if (cv->frames[cv->depth - 1].signal) {
            cv->sigreturn_skip++;   /* its trampoline's sigreturn is next */
        }
        pop(cv, target, EXIT_RETURN, time);
        return true;
    }
    cv->unmatched++;
    return false;
}

/* The top frame's function jumps to another, which returns in its place. */
static void do_tail(struct calls_vcpu *cv, uint64_t target, uint64_t time)
{
    struct frame *f;

    if (cv->depth == 0 || cv->depth > CALLS_MAX_DEPTH) {
        return;
    }
    f = &cv->frames[cv->depth - 1];
    emit_exit(cv, f->entry, target, cv->depth, EXIT_REPLACED, time);
    f->entry = target;
    emit_entry(cv, target, cv->pend_pc, cv->depth, ENTRY_TAIL, time);
}

/*
 * Execution jumped to a return site through a computed address (see
 * calls_block): if the frame that called from there is still on the
 * stack below the top, everything above it was abandoned (longjmp, or an
 * exception caught there). Unless the top frame runs the same function:
 * then the jump may be one of its own (a switch).
 */
static void do_landing(struct calls_vcpu *cv, uint64_t pc, uint64_t time)
{
    const struct land *l = land_slot(cv, pc);
    const struct frame *caller;

    if (l->ret != pc || l->depth >= cv->depth) {
        return;
    }
    if (l->depth > 0) {
        caller = &cv->frames[l->depth - 1];
        if (caller->serial != l->serial) {
            return;                 /* that frame has returned since */
        }
        if (cv->depth <= CALLS_MAX_DEPTH &&
            cv->frames[cv->depth - 1].entry == caller->entry) {
            return;
        }
    }
    unwind_to(cv, l->depth, pc, time);
}

/*
 * rt_sigreturn: unless the handler returned normally (its frame already
 * ended), the innermost signal handler frame and those above end.
 */
static void do_sigreturn(struct calls_vcpu *cv, uint64_t pc, uint64_t time)
{
    uint32_t k = cv->depth < CALLS_MAX_DEPTH ? cv->depth : CALLS_MAX_DEPTH;

    if (cv->sigreturn_skip > 0) {
        cv->sigreturn_skip--;
        return;
    }
    for (; k > 0; k--) {
        if (cv->frames[k - 1].signal) {
            unwind_to(cv, k - 1, pc, time);
            return;
        }
    }
}

/* Returns true when the branch accounts for reaching pc. */
static bool do_branch(struct calls_vcpu *cv, uint64_t pc, uint64_t time)
{
    if (pc == cv->pend_next) {
        return true;    /* not taken (a condition failed), or a get-pc call */
    }
    switch (cv->pend_class) {
    case CALLS_CALL:
        do_call(cv, pc, time);
        return true;
    case CALLS_RET:
        return do_return(cv, pc, time);
    case CALLS_TAIL:
        do_tail(cv, pc, time);
        return true;
    default:
        return false;
    }
}

/*
 * A block ending in an indirect jump or a system call leaves its end
 * count (see struct calls_hot). Outside range= the count stands still
 * (start equals end), so there every block overwrites the marks: a mark
 * left by an earlier block would otherwise seem to be the previous one.
 */
static void leave_marks(struct calls_hot *hot, const struct tb_info *tb,
                        uint64_t start, uint64_t end)
{
    if (start == end || (tb->flags & TB_F_ENDS_INDIRECT)) {
        hot->indirect_end = tb->flags & TB_F_ENDS_INDIRECT ? end : ~0ull;
    }
    if (start == end || (tb->flags & TB_F_ENDS_SYSCALL)) {
        hot->sys_tb = tb->flags & TB_F_ENDS_SYSCALL ? tb : NULL;
        hot->sys_end = end;
    }
}

/*
 * The branch the previous block noted at its start (calls_tb_start),
 * into cv's pending branch; true unless that block did not reach it:
 * QEMU restarted it inside (a write to a page of translated code, a
 * fault it handled), which the next start inside the block tells. A
 * restart at the block's first instruction cannot be told from a call
 * to it and is taken as the branch (docs/calls.md).
 */
static bool take_noted_branch(struct calls_vcpu *cv, uint64_t pc)
{
    const struct tb_info *b = cv->hot->branch_tb;

    if (!b) {
        return true;            /* noted by the instruction's callback */
    }
    cv->hot->branch_tb = NULL;
    if (pc - b->pc - 1 < (uint64_t)b->size - 1) {
        return false;
    }
    cv->pend_class = b->flags & TB_F_ENDS_CALL ? CALLS_CALL :
                     b->flags & TB_F_ENDS_RET ? CALLS_RET : CALLS_TAIL;
    cv->pend_next = b->pc + b->size;
    cv->pend_pc = cv->pend_next - b->branch_size;
    return true;
}

/*
 * The previous block ended in an indirect jump if one ended at start. A
 * longjmp reaches setjmp's return site through the address saved in the
 * jmp_buf: with an indirect jump or a return that matched no frame
 * (explained is false then). A direct branch to a return site is a branch
 * inside the function (a recursive function skipping its own call), never
 * a longjmp. An indirect jump to a function's entry is a tail call.
 */
/*
 * The common case of calls_block, for call-heavy code: the block before,
 * b, ended in a call or a return, noted at its start, nothing else
 * happened, and this block is the branch's target (a call's, or the
 * return address of the top frame); its own marks are none to leave.
 * In user mode (where every noted branch has its block), when the packed
 * records are the events' only consumers and the chunk has room, the
 * quick way does what the general way does then, in the short staged
 * form (pack_qentry_at, pack_qexit_at). quick_start tells whether it
 * may, quick_call and quick_return take it: leaves that call nothing,
 * so that they need no stack frame.
 */
static inline bool quick_start(const struct calls_hot *hot,
                               const struct calls_vcpu *cv,
                               const struct tb_info *tb,
                               const struct tb_info *b, uint64_t start,
                               uint64_t end)
{
    const struct vbuf *vb = cv->vb;

    return cv->quick && hot->attn == CALLS_ATTN_BRANCH && start != end &&
           !(tb->flags & (TB_F_ENDS_INDIRECT | TB_F_ENDS_SYSCALL)) &&
           /* Neither inside b (a restart) nor b's fall-through. */
           tb->pc - b->pc - 1 >= (uint64_t)b->size &&
           vb->pos + STAGED_QEXIT_BYTES <= vb->end &&
           start - vb->chunk->t0 + 0x80000000ull <= 0xffffffffull;
}

/* The quick way's end: this block's own branch is noted. */
static inline void quick_done(struct calls_hot *hot, const struct tb_info *tb)
{
    hot->attn = 0;
    hot->branch_tb = NULL;
    calls_note_branch_end(hot, tb);
}

static bool quick_return(struct calls_vcpu *cv, const struct tb_info *tb,
                         uint64_t start)
{
    uint32_t d = cv->depth;
    uint8_t *p = cv->vb->pos;

    if (d == 0 || d > CALLS_MAX_DEPTH || cv->frames[d - 1].ret != tb->pc) {
        return false;
    }
    pack_qexit_at(p, (int32_t)(start - cv->vb->chunk->t0), d,
                  cv->frames[d - 1].entry, tb->id);
    /* No vbuf_count: the writer counts a staged stream's records. */
    cv->vb->pos = p + STAGED_QEXIT_BYTES;
    cv->depth = d - 1;
    quick_done(cv->hot, tb);
    return true;
}

static bool quick_call(struct calls_vcpu *cv, const struct tb_info *tb,
                       const struct tb_info *b, uint64_t start)
{
    uint32_t d = cv->depth;
    uint8_t *p = cv->vb->pos;
    uint64_t next = b->pc + b->size;
    struct land *l = land_slot(cv, next);
    struct frame *f;

    if (d >= CALLS_MAX_DEPTH) {
        return false;
    }
    f = &cv->frames[d];
    l->ret = next;
    l->depth = d;
    l->serial = d ? cv->frames[d - 1].serial : 0;
    f->entry = tb->pc;
    f->ret = next;
    f->serial = ++cv->serial;
    f->signal = false;
    pack_qentry_at(p, (int32_t)(start - cv->vb->chunk->t0), d + 1, tb->id,
                   b->id);
    cv->vb->pos = p + STAGED_QENTRY_BYTES;
    cv->depth = d + 1;
    quick_done(cv->hot, tb);
    return true;
}

/*
 * calls_block's general way: every case, the rare ones included; ends by
 * noting the block's own branch, so that calls_block reaches it by a
 * tail call.
 */
static void __attribute__((noinline))
any_block(struct calls_vcpu *cv, const struct tb_info *tb, uint64_t start,
          uint64_t end)
{
    uint8_t attn;
    uint64_t pc = tb->pc;
    bool explained = false;

    attn = cv->hot->attn;
    cv->hot->attn = 0;
    if (attn & CALLS_ATTN_SIGRETURN) {
        do_sigreturn(cv, pc, start);
    }
    if (attn & CALLS_ATTN_SYSCALL) {
        explained = true;
        if (pc != cv->sys_next && pc != cv->sys_insn) {
            /*
             * Not where the system call returns (nor its restart): QEMU
             * delivered a signal and this is the handler's first block.
             */
            push(cv, pc, 0, 0, ENTRY_SYNTH, true, start);
        }
    }
    if ((attn & CALLS_ATTN_BRANCH) && take_noted_branch(cv, pc)) {
        explained = do_branch(cv, pc, start);
    } else if (cv->hot->indirect_end != start) {
        explained = true;
    } else if (tb->flags & TB_F_FUNC_ENTRY) {
        /*
         * A jump through a register or memory to a function's entry (a
         * function pointer or a vtable slot in tail position): a tail
         * call, from an instruction the block before did not note.
         */
        cv->pend_pc = 0;
        do_tail(cv, pc, start);
        explained = true;
    }
    if (!explained && (tb->flags & TB_F_RETURN_SITE)) {
        do_landing(cv, pc, start);
    }
    leave_marks(cv->hot, tb, start, end);
    calls_note_branch_end(cv->hot, tb);
}

void calls_block(struct calls_hot *hot, const struct tb_info *tb,
                 uint64_t start, uint64_t end)
{
    struct calls_vcpu *cv = hot->cv;
    const struct tb_info *b = hot->branch_tb;

    if (!cv) {
        return;
    }
    if (b && (b->flags & (TB_F_ENDS_CALL | TB_F_ENDS_RET)) &&
        quick_start(hot, cv, tb, b, start, end) &&
        (b->flags & TB_F_ENDS_RET ? quick_return(cv, tb, start) :
                                    quick_call(cv, tb, b, start))) {
        return;
    }
    any_block(cv, tb, start, end);
}

/* ---- execution callbacks of branch instructions ---- */

static inline void note_branch(unsigned int vcpu, const struct insn_info *in,
                               uint8_t cls)
{
    struct calls_vcpu *cv;

    cv = cv_of(vcpu);
    if (!cv) {
        return;
    }
    cv->hot->attn |= CALLS_ATTN_BRANCH;
    cv->pend_class = cls;
    cv->pend_pc = in->pc;
    cv->pend_next = in->pc + in->size;
}

static void vcpu_call(unsigned int vcpu, void *udata)
{
    note_branch(vcpu, udata, CALLS_CALL);
}

static void vcpu_return(unsigned int vcpu, void *udata)
{
    note_branch(vcpu, udata, CALLS_RET);
}

static void vcpu_tail(unsigned int vcpu, void *udata)
{
    note_branch(vcpu, udata, CALLS_TAIL);
}

/* ---- system calls ---- */

static bool is_sigreturn(int64_t num)
{
    return num == cs.abi->nr_sigreturn[0] || num == cs.abi->nr_sigreturn[1];
}

void calls_syscall(unsigned int vcpu, int64_t num, uint64_t time)
{
    struct calls_vcpu *cv;

    cv = cv_of(vcpu);
    if (!cv) {
        return;
    }
    if (is_sigreturn(num)) {
        cv->hot->attn |= CALLS_ATTN_SIGRETURN;
    } else if (num == cs.abi->nr_exit_group) {
        /* QEMU calls no vcpu_exit at exit_group: close the frames now. */
        calls_vcpu_stop(vcpu, time);
    }
}

void calls_syscall_ret(unsigned int vcpu, int64_t num, uint64_t icount)
{
    struct calls_vcpu *cv;
    const struct tb_info *tb;

    cv = cv_of(vcpu);
    if (!cv) {
        return;
    }
    /*
     * The block running now ends with the system call instruction and
     * left its mark; if it did not (an instruction not decoded as one),
     * where the call returns is unknown and a signal goes unseen.
     */
    tb = cv->hot->sys_end == icount ? cv->hot->sys_tb : NULL;
    if (!tb || tb->n_insns == 0 || is_sigreturn(num)) {
        return;
    }
    cv->sys_next = tb->pc + tb->size;
    cv->sys_insn = tb->insns[tb->n_insns - 1].pc;
    cv->hot->attn |= CALLS_ATTN_SYSCALL;
}

/* ---- vCPU life ---- */

void calls_vcpu_start(unsigned int vcpu, struct vbuf *vb,
                      struct calls_hot *hot)
{
    struct calls_vcpu *cv;

    if (!cs.abi || vcpu >= CALLS_MAX_VCPUS) {
        return;
    }
    cv = calls_vcpus[vcpu];
    if (!cv) {
        /* Once per vCPU index; kept for a later vCPU of the same index. */
        cv = calloc(1, sizeof(*cv));
        if (!cv) {
            return;
        }
    }
    hot->attn = 0;
    hot->branch_tb = NULL;
    hot->indirect_end = ~0ull;
    hot->sys_tb = NULL;
    hot->sys_end = ~0ull;
    cv->hot = hot;
    hot->cv = cv;
    cv->vcpu = vcpu;
    cv->vb = vb;
    cv->quick = cs.quick && vb->pack;
    cv->depth = 0;
    cv->sigreturn_skip = 0;
    memset(cv->land, 0, sizeof(cv->land));
    __atomic_store_n(&calls_vcpus[vcpu], cv, __ATOMIC_RELEASE);
}

void calls_vcpu_stop(unsigned int vcpu, uint64_t time)
{
    struct calls_vcpu *cv;

    cv = cv_of(vcpu);
    if (!cv) {
        return;
    }
    while (cv->depth > 0) {
        pop(cv, 0, EXIT_END, time);
    }
    cv->hot->attn = 0;
}

/*
 * At exit. Counters of vCPUs still running may be a little behind: they
 * are the vCPUs' own, not shared, so the hot path has no atomic.
 */
void calls_fmt_counts(char *buf, size_t len)
{
    uint64_t overflows = 0, unmatched = 0;
    size_t i;

    for (i = 0; i < CALLS_MAX_VCPUS; i++) {
        const struct calls_vcpu *cv = __atomic_load_n(&calls_vcpus[i],
                                                      __ATOMIC_ACQUIRE);

        if (cv) {
            overflows += cv->overflows;
            unmatched += cv->unmatched;
        }
    }
    snprintf(buf, len, "calls_overflow=%" PRIu64 "\ncalls_unmatched=%"
             PRIu64 "\n", overflows, unmatched);
}

/* ---- translation ---- */

static size_t site_index(uint64_t pc, size_t cap)
{
    return (size_t)((pc * 0x9e3779b97f4a7c15ull) >> 32) & (cap - 1);
}

/* Add a return site; a set that cannot grow just forgets (no landing). */
static void sites_add_locked(uint64_t pc)
{
    size_t i;

    if (cs.sites_used * 2 >= cs.sites_cap) {
        size_t new_cap = cs.sites_cap ? cs.sites_cap * 2 : 4096;
        uint64_t *grown = calloc(new_cap, sizeof(*grown));
        size_t j;

        if (!grown) {
            return;
        }
        for (j = 0; j < cs.sites_cap; j++) {
            if (cs.sites[j]) {
                i = site_index(cs.sites[j], new_cap);
                while (grown[i]) {
                    i = (i + 1) & (new_cap - 1);
                }
                grown[i] = cs.sites[j];
            }
        }
        free(cs.sites);
        cs.sites = grown;
        cs.sites_cap = new_cap;
    }
    i = site_index(pc, cs.sites_cap);
    while (cs.sites[i] && cs.sites[i] != pc) {
        i = (i + 1) & (cs.sites_cap - 1);
    }
    if (!cs.sites[i]) {
        cs.sites[i] = pc;
        cs.sites_used++;
    }
}

static bool sites_has_locked(uint64_t pc)
{
    size_t i;

    if (!cs.sites_cap) {
        return false;
    }
    for (i = site_index(pc, cs.sites_cap); cs.sites[i];
         i = (i + 1) & (cs.sites_cap - 1)) {
        if (cs.sites[i] == pc) {
            return true;
        }
    }
    return false;
}

/*
 * The class of the block's last instruction, from its code bytes. A
 * direct jump to the first address of a known function is a tail call:
 * without the symbols, it could be any jump inside a function.
 */
static enum calls_class classify_tb(struct qemu_plugin_tb *tb,
                                    const struct tb_info *ti)
{
    struct calls_insn *insns;
    enum calls_class cls;
    uint64_t target;
    uint32_t i, first = 0;

    /*
     * arm needs the whole block (A32 or Thumb), x86_64 the last two
     * instructions (the resolver's exit), the others the last.
     */
    if (cs.abi->isa == CALLS_ISA_X86_64 && ti->n_insns >= 2) {
        first = ti->n_insns - 2;
    } else if (cs.abi->isa != CALLS_ISA_ARM) {
        first = ti->n_insns - 1;
    }
    insns = calloc(ti->n_insns - first, sizeof(*insns));
    if (!insns) {
        return CALLS_OTHER;
    }
    for (i = first; i < ti->n_insns; i++) {
        struct calls_insn *ci = &insns[i - first];

        ci->pc = ti->insns[i].pc;
        ci->size = ti->insns[i].size;
        qc_insn_bytes(qemu_plugin_tb_get_insn(tb, i), ci->bytes,
                      sizeof(ci->bytes));
    }
    cls = calls_classify_block(cs.abi->isa, insns, ti->n_insns - first);
    if (cls == CALLS_OTHER &&
        calls_direct_jump(cs.abi->isa, insns, ti->n_insns - first,
                          &target) &&
        entries_is_function(target)) {
        cls = CALLS_TAIL;
    }
    free(insns);
    return cls;
}

void calls_tb_trans(struct qemu_plugin_tb *tb, struct tb_info *ti)
{
    static const qemu_plugin_vcpu_udata_cb_t cbs[] = {
        [CALLS_CALL] = vcpu_call,
        [CALLS_RET] = vcpu_return,
        [CALLS_TAIL] = vcpu_tail,
        [CALLS_INDIRECT] = NULL,    /* only flags the block */
        [CALLS_SYSCALL] = NULL,
    };
    struct insn_info *last;
    enum calls_class cls;

    if (!cs.abi || ti->n_insns == 0) {
        return;
    }
    /*
     * QEMU ends a block at every instruction that may write the pc, so a
     * call or return can only be a block's last instruction.
     */
    last = &ti->insns[ti->n_insns - 1];
    cls = classify_tb(tb, ti);
    pthread_mutex_lock(&cs.sites_lock);
    if (cls == CALLS_CALL) {
        sites_add_locked(last->pc + last->size);
    }
    if (sites_has_locked(ti->pc)) {
        ti->flags |= TB_F_RETURN_SITE;
    }
    pthread_mutex_unlock(&cs.sites_lock);
    if (entries_is_function(ti->pc)) {
        ti->flags |= TB_F_FUNC_ENTRY;
    }
    if (cls == CALLS_INDIRECT) {
        ti->flags |= TB_F_ENDS_INDIRECT;
    } else if (cls == CALLS_SYSCALL) {
        ti->flags |= TB_F_ENDS_SYSCALL;
    } else if (cls != CALLS_OTHER && cs.note_at_start) {
        ti->flags |= cls == CALLS_CALL ? TB_F_ENDS_CALL :
                     cls == CALLS_RET ? TB_F_ENDS_RET : TB_F_ENDS_TAIL;
        ti->branch_size = last->size;
    } else if (cls != CALLS_OTHER) {
        qemu_plugin_register_vcpu_insn_exec_cb(
            qemu_plugin_tb_get_insn(tb, ti->n_insns - 1), cbs[cls],
            QEMU_PLUGIN_CB_NO_REGS, last);
    }
}

bool calls_available(const char *target)
{
    return calls_abi_of(target) != NULL;
}

bool calls_setup(const char *target, bool system_mode, bool want_entry,
                 bool want_exit, bool instr_entry, bool instr_exit)
{
    const struct calls_abi *abi = calls_abi_of(target);

    if (!abi || (!want_entry && !want_exit && !instr_entry && !instr_exit)) {
        return false;
    }
    cs.abi = abi;
    cs.want_entry = want_entry;
    cs.want_exit = want_exit;
    cs.instr_entry = instr_entry;
    cs.instr_exit = instr_exit;
    cs.entry_out = want_entry || instr_entry;
    cs.exit_out = want_exit || instr_exit;
    cs.entry_packed_only = want_entry && !instr_entry;
    cs.exit_packed_only = want_exit && !instr_exit;
    cs.quick = cs.entry_packed_only && cs.exit_packed_only && !system_mode;
    /*
     * In system mode a block is often cut short by a fault the guest's
     * kernel handles and its first instruction run again: there the
     * instruction's own callback says the branch was reached.
     */
    cs.note_at_start = !system_mode;
    return true;
}
