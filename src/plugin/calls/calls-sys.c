/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The call tracker of system mode (see calls-sys.h and docs/calls.md,
 * "System mode"). A guest kernel switches tasks by switching stacks, so
 * each frame remembers where on the guest's stack it lies (its slot: on
 * x86 the address the call wrote its return address to, on aarch64 the
 * address the prologue saved x30 at); a return that reads a slot of
 * another task's stack switches to that task's shadow stack. Thunks
 * (retpolines, return thunks) are told by their code and make no
 * frame. No register is read: it works on QEMU 7.2.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qtrace-events.h"
#include "../../qemu/qemu-compat.h"
#include "calls-decode.h"
#include "calls-sys.h"
#include "../instrument/instr.h"
#include "../buffer/pack.h"
#include "qtrace/instrument.h"
#include "sys-decode.h"

#define SYS_MAX_VCPUS 4096          /* as the plugin's vCPU table */
#define SYS_MAX_DEPTH 1024          /* frames recorded per stack */
#define SYS_TASKS 512               /* tasks remembered per vCPU */
#define SYS_KEYS 1024u              /* index of saved tasks, 2 x tasks */
/*
 * Two slots this close belong to one stack: Linux's kernel stacks are
 * 16 KiB (x86_64 and arm64 with 4 KiB pages), with a guard page between
 * two of them, and a task switches out well inside its stack.
 */
#define STACK_NEAR 0x4000u
/* Blocks a call to a thunk may take to reach its target. */
#define THUNK_BLOCKS 8

enum { LEVEL_KERNEL = 0, LEVEL_USER = 1 };
enum { ENTRY_CALL = 0, ENTRY_TAIL = 1, ENTRY_SYNTH = 2 };
enum { EXIT_RETURN = 0, EXIT_UNWOUND = 1, EXIT_REPLACED = 2, EXIT_END = 3 };
enum { HELD_NONE = 0, HELD_CALL, HELD_THUNK };

struct sframe {
    uint64_t entry;                 /* the function's first address */
    uint64_t ret;                   /* return address; 0: unknown */
    uint64_t slot;                  /* place on the guest stack; 0: unknown */
    /*
     * A trap frame entered after a call but before its callee's first
     * block holds the call (or the thunk call), made when it returns.
     */
    uint64_t held_ret, held_slot, held_from;
    uint8_t held;                   /* HELD_* */
    bool trap;                      /* an interrupt, exception or syscall */
};

struct sstack {
    struct sframe *frames;          /* grows to SYS_MAX_DEPTH */
    uint32_t depth;                 /* may exceed SYS_MAX_DEPTH */
    uint32_t cap;
    uint64_t last_slot;             /* where on the guest stack it was */
};

struct stask {
    struct sstack st[2];            /* by level */
    uint32_t id;                    /* the number func_stack gives it */
    uint64_t key;                   /* its index key while saved, or 0 */
    uint64_t used;                  /* when last current (LRU) */
    bool live;
};

struct sys_vcpu {
    struct flow_hot *hot;
    unsigned int vcpu;
    struct vbuf *vb;
    struct stask tasks[SYS_TASKS];
    struct stask *cur;
    uint8_t level;                  /* LEVEL_* */
    uint32_t next_id;
    uint64_t clock;
    uint16_t keys[SYS_KEYS];        /* saved tasks by key: index + 1 */
    /* The branch its instruction noted (flow_hot.attn). */
    uint8_t pend_class;             /* enum calls_class */
    uint64_t pend_pc;               /* the instruction */
    uint64_t pend_next;             /* its fall-through address */
    uint64_t pend_slot;             /* its stack slot, 0 unknown */
    /* A call to a thunk, until its target starts. */
    uint64_t thunk_ret, thunk_slot, thunk_from;
    uint8_t thunk_blocks;
    /* A call whose callee a trap came before (call_before_trap). */
    uint8_t held;                   /* HELD_* */
    uint64_t held_ret, held_slot, held_from;
    /* aarch64: the last frame restore, for the return after it. */
    uint64_t restore_slot;
    const struct tb_info *restore_tb;
    /* Counters for the END chunk. */
    uint64_t overflows, unmatched, switches, new_tasks, evicted, thunks;
};

static struct sys_vcpu *sys_vcpus[SYS_MAX_VCPUS];

static struct {
    enum calls_isa isa;
    bool active;
    bool want_entry, want_exit, want_stack;
    bool instr_entry, instr_exit;
} ss;

static struct sys_vcpu *sv_of(unsigned int vcpu)
{
    return vcpu < SYS_MAX_VCPUS ? sys_vcpus[vcpu] : NULL;
}

static struct sstack *cur_stack(struct sys_vcpu *sv)
{
    return &sv->cur->st[sv->level];
}

/* ---- records ---- */

static void hand_to_libraries(const struct sys_vcpu *sv, bool entry,
                              const struct sframe *f, uint64_t other,
                              uint32_t depth, uint8_t kind, uint64_t time)
{
    struct qtrace_instr_func fn = {
        .entry = f->entry,
        .return_addr = f->ret,
        .icount = time,
        .depth = depth,
        .kind = kind,
    };

    if (entry) {
        fn.from = other;
        instr_func_entry(sv->vcpu, &fn);
    } else {
        fn.to = other;
        instr_func_exit(sv->vcpu, &fn);
    }
}

/* func_entry and func_exit share one layout (see calls.c). */
static void emit_func(struct sys_vcpu *sv, bool exit, const struct sframe *f,
                      uint64_t other, uint32_t depth, uint8_t kind,
                      uint64_t time)
{
    struct qtrace_ev_func_entry *r;

    if (exit ? ss.instr_exit : ss.instr_entry) {
        hand_to_libraries(sv, !exit, f, other, depth, kind, time);
    }
    if (!(exit ? ss.want_exit : ss.want_entry)) {
        return;
    }
    if (sv->vb->pack && kind < PK_FUNC_KINDS) {
        pack_func(sv->vb, exit, kind, time, f->entry, other, depth);
        return;
    }
    r = vbuf_event(sv->vb, exit ? QTRACE_EV_FUNC_EXIT : QTRACE_EV_FUNC_ENTRY,
                   sizeof(*r), time);
    r->pc = f->entry;
    r->from = other;
    r->depth = depth;
    r->kind = kind;
}

/* The records that follow are of the current task's stack at its level. */
static void emit_stack(struct sys_vcpu *sv, uint64_t time)
{
    struct qtrace_ev_func_stack *r;

    if (!ss.want_stack) {
        return;
    }
    r = vbuf_event(sv->vb, QTRACE_EV_FUNC_STACK, sizeof(*r), time);
    r->task = sv->cur->id;
    r->user = sv->level;
    r->sp = cur_stack(sv)->last_slot;
}

/* ---- one stack ---- */

static bool is_near(uint64_t a, uint64_t b)
{
    return a - b < STACK_NEAR || b - a < STACK_NEAR;
}

static struct sframe *top_of(struct sstack *st)
{
    return st->depth > 0 && st->depth <= st->cap ?
           &st->frames[st->depth - 1] : NULL;
}

static void pop(struct sys_vcpu *sv, struct sstack *st, uint64_t to,
                uint8_t kind, uint64_t time)
{
    if (st->depth <= SYS_MAX_DEPTH && st->depth <= st->cap) {
        emit_func(sv, true, &st->frames[st->depth - 1], to, st->depth, kind,
                  time);
    }
    st->depth--;
}

static void unwind_to(struct sys_vcpu *sv, struct sstack *st, uint32_t keep,
                      uint64_t to, uint8_t kind, uint64_t time)
{
    while (st->depth > keep) {
        pop(sv, st, to, kind, time);
    }
}

/*
 * Frames a new slot proves gone: the stack grows down, so one at or
 * below slot (and near it: the same stack) was left without a return
 * seen (an exception unwound it, or its function exited otherwise).
 */
static void drop_below(struct sys_vcpu *sv, struct sstack *st, uint64_t slot,
                       bool inclusive, uint64_t to, uint64_t time)
{
    const struct sframe *f;

    while ((f = top_of(st)) != NULL && f->slot &&
           (inclusive ? f->slot <= slot : f->slot < slot) &&
           slot - f->slot < STACK_NEAR) {
        pop(sv, st, to, EXIT_UNWOUND, time);
    }
}

/* Room for one more frame; false (counted) when it cannot be made. */
static bool grow(struct sys_vcpu *sv, struct sstack *st)
{
    uint32_t cap;
    struct sframe *more;

    if (st->depth < st->cap) {
        return true;
    }
    if (st->depth >= SYS_MAX_DEPTH) {
        return false;
    }
    /* Rare: stacks reach their usual depth early and stay there. */
    cap = st->cap ? st->cap * 2 : 32;
    more = realloc(st->frames, cap * sizeof(*more));
    if (!more) {
        sv->overflows++;
        return false;
    }
    st->frames = more;
    st->cap = cap;
    return true;
}

static void push(struct sys_vcpu *sv, uint64_t entry, uint64_t ret,
                 uint64_t slot, uint64_t from, uint8_t kind, bool trap,
                 uint64_t time)
{
    struct sstack *st = cur_stack(sv);
    struct sframe *f;

    if (slot) {
        drop_below(sv, st, slot, true, entry, time);
        st->last_slot = slot;
    }
    if (!grow(sv, st)) {
        st->depth++;
        sv->overflows++;
        return;
    }
    f = &st->frames[st->depth++];
    memset(f, 0, sizeof(*f));
    f->entry = entry;
    f->ret = ret;
    f->slot = slot;
    f->trap = trap;
    emit_func(sv, false, f, from, st->depth, kind, time);
}

/* ---- tasks ---- */

static uint32_t key_hash(uint64_t key)
{
    return (uint32_t)((key * 0x9e3779b97f4a7c15ull) >> 40) & (SYS_KEYS - 1);
}

/* The saved task indexed by key, or NULL. */
static struct stask *key_find(struct sys_vcpu *sv, uint64_t key)
{
    uint32_t i;

    for (i = key_hash(key); sv->keys[i]; i = (i + 1) & (SYS_KEYS - 1)) {
        struct stask *t = &sv->tasks[sv->keys[i] - 1];

        if (t->key == key) {
            return t;
        }
    }
    return NULL;
}

/* Index t by key (at most SYS_TASKS entries: the table has room). */
static void key_add(struct sys_vcpu *sv, struct stask *t, uint64_t key)
{
    uint32_t i;

    if (!key || key_find(sv, key)) {
        return;                 /* no key, or one that another task holds */
    }
    for (i = key_hash(key); sv->keys[i]; i = (i + 1) & (SYS_KEYS - 1)) {
    }
    sv->keys[i] = (uint16_t)(t - sv->tasks + 1);
    t->key = key;
}

/* Take t out of the index (linear probing: close the gap). */
static void key_del(struct sys_vcpu *sv, struct stask *t)
{
    uint32_t i, j, h;

    if (!t->key) {
        return;
    }
    for (i = key_hash(t->key); sv->keys[i]; i = (i + 1) & (SYS_KEYS - 1)) {
        if (&sv->tasks[sv->keys[i] - 1] == t) {
            break;
        }
    }
    t->key = 0;
    if (!sv->keys[i]) {
        return;
    }
    sv->keys[i] = 0;
    for (j = (i + 1) & (SYS_KEYS - 1); sv->keys[j];
         j = (j + 1) & (SYS_KEYS - 1)) {
        h = key_hash(sv->tasks[sv->keys[j] - 1].key);
        /* Move j back to i unless its home lies cyclically in (i, j]. */
        if ((j > i && (h <= i || h > j)) || (j < i && h <= i && h > j)) {
            sv->keys[i] = sv->keys[j];
            sv->keys[j] = 0;
            i = j;
        }
    }
}

/* The slot of st's innermost frame that has one, 0 if none. */
static uint64_t innermost_slot(const struct sstack *st)
{
    uint32_t k = st->depth < st->cap ? st->depth : st->cap;

    for (; k > 0; k--) {
        if (st->frames[k - 1].slot) {
            return st->frames[k - 1].slot;
        }
    }
    return 0;
}

/* The innermost frame of t's kernel stack with a slot: its key. */
static uint64_t task_key(struct stask *t)
{
    return innermost_slot(&t->st[LEVEL_KERNEL]);
}

/* Close every frame of t's stacks (kind), marking each stack first. */
static void close_task(struct sys_vcpu *sv, struct stask *t, uint8_t kind,
                       uint64_t time)
{
    struct stask *was = sv->cur;
    uint8_t level = sv->level;
    int l;

    for (l = 0; l < 2; l++) {
        if (t->st[l].depth == 0) {
            continue;
        }
        sv->cur = t;
        sv->level = (uint8_t)l;
        if (t != was || l != level) {
            emit_stack(sv, time);
        }
        unwind_to(sv, &t->st[l], 0, 0, kind, time);
        sv->cur = was;
        sv->level = level;
        if (t != was || l != level) {
            emit_stack(sv, time);
        }
    }
}

/* A task record for a new task: a free one, or the longest unused. */
static struct stask *task_alloc(struct sys_vcpu *sv, uint64_t time)
{
    struct stask *t = NULL;
    size_t i;

    for (i = 0; i < SYS_TASKS; i++) {
        struct stask *c = &sv->tasks[i];

        if (!c->live) {
            t = c;
            break;
        }
        if (c != sv->cur && (!t || c->used < t->used)) {
            t = c;
        }
    }
    if (t->live) {
        /* Forgotten: its frames end now, so every entry has its exit. */
        sv->evicted++;
        key_del(sv, t);
        close_task(sv, t, EXIT_UNWOUND, time);
    }
    t->st[0].depth = t->st[1].depth = 0;
    t->st[0].last_slot = t->st[1].last_slot = 0;
    t->id = sv->next_id++;
    t->key = 0;
    t->live = true;
    return t;
}

/* Leave the current task (indexed by its kernel stack's top) for t. */
static void switch_to(struct sys_vcpu *sv, struct stask *t, uint64_t time)
{
    struct stask *old = sv->cur;

    if (t == old) {
        return;
    }
    key_add(sv, old, task_key(old));
    key_del(sv, t);
    old->used = ++sv->clock;
    sv->cur = t;
    sv->switches++;
    emit_stack(sv, time);
}

/* A return read slot on a stack of no task known: a task new here. */
static void new_task(struct sys_vcpu *sv, uint64_t slot, uint64_t time)
{
    struct stask *t = task_alloc(sv, time);

    t->st[LEVEL_KERNEL].last_slot = slot;
    sv->new_tasks++;
    switch_to(sv, t, time);
}

/* ---- returns ---- */

/* Innermost frame of st at or above `from` whose field equals v. */
static uint32_t find_slot(const struct sstack *st, uint64_t slot)
{
    uint32_t k = st->depth < st->cap ? st->depth : st->cap;

    for (; k > 0; k--) {
        if (st->frames[k - 1].slot == slot) {
            return k;
        }
    }
    return 0;
}

static uint32_t find_ret(const struct sstack *st, uint64_t ret)
{
    uint32_t k = st->depth < st->cap ? st->depth : st->cap;

    for (; k > 0; k--) {
        if (st->frames[k - 1].ret == ret) {
            return k;
        }
    }
    return 0;
}

/* Frame k of st returns to target; true when it should have gone else. */
static bool return_from(struct sys_vcpu *sv, struct sstack *st, uint32_t k,
                        uint64_t target, uint64_t time)
{
    uint64_t ret = st->frames[k - 1].ret;

    unwind_to(sv, st, k, target, EXIT_UNWOUND, time);
    if (st->frames[k - 1].slot) {
        st->last_slot = st->frames[k - 1].slot;
    }
    pop(sv, st, target, EXIT_RETURN, time);
    return ret && ret != target;
}

/*
 * A return without a slot (aarch64 leaf functions, which save nothing):
 * to the innermost frame with that return address. One that no frame
 * explains in the kernel, while frames are open, is the first return of
 * a task new here (a context switch into a forked task returns to its
 * fork path): a new task; if it was not, the next return with a slot of
 * the old task switches back.
 */
static bool return_unplaced(struct sys_vcpu *sv, struct sstack *st,
                            uint64_t target, uint64_t time)
{
    uint32_t k = find_ret(st, target);

    if (k) {
        return return_from(sv, st, k, target, time);
    }
    sv->unmatched++;
    if (sv->level == LEVEL_KERNEL && st->depth > 0 && task_key(sv->cur)) {
        new_task(sv, 0, time);
    }
    return false;
}

/*
 * A return that read its address at slot and goes to target. Returns
 * true when the frame it ends returns elsewhere (an interrupt came
 * right after the return).
 */
static bool do_return(struct sys_vcpu *sv, uint64_t slot, uint64_t target,
                      uint64_t time)
{
    struct sstack *st = cur_stack(sv);
    struct sframe *top = top_of(st);
    struct stask *t;
    uint64_t ref;
    uint32_t k;

    if (st->depth > SYS_MAX_DEPTH || (st->depth && !top)) {
        st->depth--;
        return false;
    }
    if (!slot) {
        return return_unplaced(sv, st, target, time);
    }
    k = find_slot(st, slot);
    if (k) {
        return return_from(sv, st, k, target, time);
    }
    /*
     * The top frame's return address, read elsewhere: the callee moved
     * it (x86 entry code's save_ret) or saves none (an aarch64 leaf).
     */
    if (top && top->ret == target &&
        (!top->slot || is_near(slot, top->slot))) {
        /* On another stack, the same address is a context switch: every
         * task switched out returns to the same place in the scheduler. */
        return return_from(sv, st, st->depth, target, time);
    }
    t = sv->level == LEVEL_KERNEL ? key_find(sv, slot) : NULL;
    if (t) {
        /* The stack of a task switched out: a context switch. */
        switch_to(sv, t, time);
        st = cur_stack(sv);
        k = find_slot(st, slot);
        return k ? return_from(sv, st, k, target, time) : false;
    }
    ref = innermost_slot(st);
    if (!ref) {
        ref = st->last_slot;
    }
    if (!ref || is_near(slot, ref)) {
        /*
         * This stack, but no frame of ours: a frame entered before
         * tracing began, or a thunk's trap call. Frames below the slot
         * have ended.
         */
        drop_below(sv, st, slot, false, target, time);
        st->last_slot = slot;
        sv->unmatched++;
        return false;
    }
    sv->unmatched++;
    if (sv->level == LEVEL_KERNEL) {
        new_task(sv, slot, time);
    }
    return false;
}

/* ---- calls and thunks ---- */

/*
 * __fentry__ (x86), learnt from calls made by a function's first
 * instruction: the one target most such calls have (a majority vote,
 * shared by the vCPUs; a torn update only delays it).
 */
static uint64_t fentry_addr, fentry_votes;

static void learn_fentry(struct sys_vcpu *sv, uint64_t target)
{
    const struct sframe *f = top_of(cur_stack(sv));
    uint64_t cand = __atomic_load_n(&fentry_addr, __ATOMIC_RELAXED);
    uint64_t votes = __atomic_load_n(&fentry_votes, __ATOMIC_RELAXED);

    if (!f || f->entry != sv->pend_pc) {
        return;
    }
    if (cand == target) {
        votes += votes < 1000;
    } else if (votes > 0) {
        votes--;
    } else {
        __atomic_store_n(&fentry_addr, target, __ATOMIC_RELAXED);
        votes = 1;
    }
    __atomic_store_n(&fentry_votes, votes, __ATOMIC_RELAXED);
}

/*
 * Addresses calls reached (functions' entries), shared by the vCPUs:
 * open addressing, 0 empty, filled by compare-and-swap; full, it only
 * stops learning. A nop at a jump's target is a function's entry when
 * a call reached it too, and a static branch's otherwise.
 */
#define ENTRY_SLOTS (1u << 17)
static uint64_t entry_set[ENTRY_SLOTS];

static uint32_t entry_hash(uint64_t pc)
{
    return (uint32_t)((pc * 0x9e3779b97f4a7c15ull) >> 40) &
           (ENTRY_SLOTS - 1);
}

static bool entry_known(uint64_t pc)
{
    uint32_t i, n;

    for (i = entry_hash(pc), n = 0; n < 64; i = (i + 1) & (ENTRY_SLOTS - 1),
         n++) {
        uint64_t v = __atomic_load_n(&entry_set[i], __ATOMIC_RELAXED);

        if (v == pc) {
            return true;
        }
        if (!v) {
            return false;
        }
    }
    return false;
}

static void entry_add(uint64_t pc)
{
    uint32_t i, n;

    for (i = entry_hash(pc), n = 0; n < 64; i = (i + 1) & (ENTRY_SLOTS - 1),
         n++) {
        uint64_t v = __atomic_load_n(&entry_set[i], __ATOMIC_RELAXED);

        if (v == pc) {
            return;
        }
        if (!v && __atomic_compare_exchange_n(&entry_set[i], &v, pc, false,
                                              __ATOMIC_RELAXED,
                                              __ATOMIC_RELAXED)) {
            return;
        }
        if (v == pc) {
            return;
        }
    }
}

static void do_call(struct sys_vcpu *sv, const struct tb_info *tb,
                    uint64_t entry, uint64_t time)
{
    if (ss.isa == CALLS_ISA_X86_64) {
        learn_fentry(sv, entry);
    }
    if (tb && (tb->sys_flags & SYS_F_ENTRY_NOP) && !entry_known(entry)) {
        entry_add(entry);
    }
    if (tb && (tb->sys_flags & SYS_F_THUNK_RETURN)) {
        return;                     /* returns for its caller */
    }
    if (tb && (tb->sys_flags & SYS_F_THUNK_JUMP)) {
        /* The function called is where the thunk goes. */
        sv->thunk_ret = sv->pend_next;
        sv->thunk_slot = sv->pend_slot;
        sv->thunk_from = sv->pend_pc;
        sv->thunk_blocks = 0;
        sv->hot->attn |= FLOW_ATTN_THUNK;
        sv->thunks++;
        return;
    }
    push(sv, entry, sv->pend_next, sv->pend_slot, sv->pend_pc, ENTRY_CALL,
         false, time);
}

static void thunk_lands(struct sys_vcpu *sv, uint64_t entry, uint64_t time)
{
    sv->hot->attn &= (uint8_t)~FLOW_ATTN_THUNK;
    push(sv, entry, sv->thunk_ret, sv->thunk_slot, sv->thunk_from,
         ENTRY_CALL, false, time);
}

/* The top frame's function jumps to another, which returns in its place. */
static void do_tail(struct sys_vcpu *sv, uint64_t target, uint64_t time)
{
    struct sstack *st = cur_stack(sv);
    struct sframe *f = top_of(st);

    if (!f || st->depth > SYS_MAX_DEPTH) {
        return;
    }
    emit_func(sv, true, f, target, st->depth, EXIT_REPLACED, time);
    f->entry = target;
    emit_func(sv, false, f, sv->pend_pc, st->depth, ENTRY_TAIL, time);
}

void calls_sys_jump(unsigned int vcpu, const struct tb_info *tb,
                    uint64_t from, uint64_t time)
{
    struct sys_vcpu *sv = sv_of(vcpu);
    uint64_t fentry = __atomic_load_n(&fentry_addr, __ATOMIC_RELAXED);

    if (!sv || (sv->hot->attn & FLOW_ATTN_THUNK)) {
        return;
    }
    if ((tb->sys_flags & SYS_F_ENTRY) ||
        ((tb->sys_flags & SYS_F_ENTRY_CALL) && fentry &&
         tb->sys_entry_call == fentry) ||
        ((tb->sys_flags & SYS_F_ENTRY_NOP) && entry_known(tb->pc))) {
        sv->pend_pc = from;
        do_tail(sv, tb->pc, time);
    }
}

/*
 * An interrupt came between a call and its callee's first block: the
 * call is held by the trap's frame until the trap returns to the
 * callee, whose block then tells a function from a thunk or a landing.
 */
static void call_before_trap(struct sys_vcpu *sv)
{
    sv->held = HELD_CALL;
    sv->held_ret = sv->pend_next;
    sv->held_slot = sv->pend_slot;
    sv->held_from = sv->pend_pc;
}

/*
 * A call to a thunk waits for the thunk's jump (its return, or a jump
 * through a register): tb is its target. Returns true when the branch
 * noted was that jump, used up.
 */
static bool thunk_step(struct sys_vcpu *sv, const struct tb_info *prev,
                       const struct tb_info *tb, uint8_t attn,
                       uint64_t start, bool trap)
{
    bool is_ret = (attn & FLOW_ATTN_BRANCH) && sv->pend_class == CALLS_RET;

    if (trap) {
        /* The thunk's target comes after the trap returns. */
        sv->hot->attn &= (uint8_t)~FLOW_ATTN_THUNK;
        sv->held = HELD_THUNK;
        sv->held_ret = sv->thunk_ret;
        sv->held_slot = sv->thunk_slot;
        sv->held_from = sv->thunk_from;
        return is_ret;
    }
    if (is_ret || (prev->sys_flags & SYS_F_DYNAMIC) ||
        ++sv->thunk_blocks > THUNK_BLOCKS) {
        thunk_lands(sv, tb->pc, start);
        return is_ret;
    }
    if (attn & FLOW_ATTN_BRANCH) {
        /* Not a thunk after all: its frame is the block that called. */
        thunk_lands(sv, prev->pc, start);
    }
    return false;
}

bool calls_sys_branch(unsigned int vcpu, const struct tb_info *prev,
                      const struct tb_info *tb, uint64_t start, bool trap)
{
    struct sys_vcpu *sv = sv_of(vcpu);
    uint8_t attn;

    if (!sv) {
        return false;
    }
    attn = sv->hot->attn;
    sv->hot->attn = attn & FLOW_ATTN_THUNK;
    sv->held = HELD_NONE;
    if ((attn & FLOW_ATTN_BRANCH) && sv->pend_class == CALLS_CALL &&
        !trap && (tb->sys_flags & SYS_F_LANDING) &&
        tb->pc - sv->pend_next - 1 < 8) {
        /*
         * A short call to a speculation trap's landing (a retpoline's,
         * or the return stack filling of a context switch): the address
         * it pushes is overwritten or dropped, it calls nothing.
         */
        attn &= (uint8_t)~FLOW_ATTN_BRANCH;
    }
    if ((attn & FLOW_ATTN_THUNK) &&
        thunk_step(sv, prev, tb, attn, start, trap)) {
        return false;
    }
    if (!(attn & FLOW_ATTN_BRANCH)) {
        return false;
    }
    switch (sv->pend_class) {
    case CALLS_CALL:
        if (trap) {
            call_before_trap(sv);
        } else if (tb->pc != sv->pend_next) {
            do_call(sv, tb, tb->pc, start);
        }
        return false;
    case CALLS_RET:
        return do_return(sv, sv->pend_slot, tb->pc, start);
    case CALLS_TAIL:
        if (!trap) {
            do_tail(sv, tb->pc, start);
        }
        return false;
    default:
        return false;
    }
}

/* ---- traps ---- */

void calls_sys_trap_entry(unsigned int vcpu, uint64_t handler,
                          bool from_user, uint64_t time)
{
    struct sys_vcpu *sv = sv_of(vcpu);
    struct sstack *st;
    struct sframe *f;

    if (!sv) {
        return;
    }
    if (from_user && sv->level == LEVEL_USER) {
        /* A task in user code has nothing open in the kernel. */
        sv->level = LEVEL_KERNEL;
        st = cur_stack(sv);
        unwind_to(sv, st, 0, handler, EXIT_UNWOUND, time);
        emit_stack(sv, time);
    }
    push(sv, handler, 0, 0, 0, ENTRY_SYNTH, true, time);
    st = cur_stack(sv);
    f = top_of(st);
    if (f && f->trap && f->entry == handler) {
        f->held = sv->held;
        f->held_ret = sv->held_ret;
        f->held_slot = sv->held_slot;
        f->held_from = sv->held_from;
    }
    sv->held = HELD_NONE;
}

/* The innermost trap frame of st, 0 if none. */
static uint32_t find_trap(const struct sstack *st)
{
    uint32_t k = st->depth < st->cap ? st->depth : st->cap;

    for (; k > 0; k--) {
        if (st->frames[k - 1].trap) {
            return k;
        }
    }
    return 0;
}

void calls_sys_trap_return(unsigned int vcpu, const struct tb_info *tb,
                           uint64_t to, bool to_user, uint64_t time)
{
    struct sys_vcpu *sv = sv_of(vcpu);
    struct sstack *st;
    struct sframe held;
    uint32_t k;

    if (!sv || sv->level != LEVEL_KERNEL) {
        return;
    }
    st = cur_stack(sv);
    if (to_user) {
        /* Back to user code: nothing stays open in the kernel. */
        while (st->depth > 0) {
            const struct sframe *f = top_of(st);

            pop(sv, st, to, f && f->trap ? EXIT_RETURN : EXIT_UNWOUND, time);
        }
        sv->level = LEVEL_USER;
        emit_stack(sv, time);
        return;
    }
    k = find_trap(st);
    if (!k) {
        return;
    }
    held = st->frames[k - 1];
    unwind_to(sv, st, k, to, EXIT_UNWOUND, time);
    pop(sv, st, to, EXIT_RETURN, time);
    if (held.held != HELD_NONE && !tb) {
        /* Straight into another handler: that trap holds the call. */
        sv->held = held.held;
        sv->held_ret = held.held_ret;
        sv->held_slot = held.held_slot;
        sv->held_from = held.held_from;
    } else if (held.held == HELD_CALL) {
        sv->pend_next = held.held_ret;
        sv->pend_slot = held.held_slot;
        sv->pend_pc = held.held_from;
        if (!((tb->sys_flags & SYS_F_LANDING) &&
              to - held.held_ret - 1 < 8)) {
            do_call(sv, tb, to, time);
        }
    } else if (held.held == HELD_THUNK) {
        sv->thunk_ret = held.held_ret;
        sv->thunk_slot = held.held_slot;
        sv->thunk_from = held.held_from;
        sv->thunk_blocks = 0;
        sv->hot->attn |= FLOW_ATTN_THUNK;
    }
}

/* ---- execution callbacks of branch instructions ---- */

/*
 * Whether a memory callback of in comes from in itself. QEMU 7.2 leaves
 * the memory callbacks of a block's last instruction armed after the
 * block (the code that disarms them follows its jump), and calls them
 * again for the accesses its helpers make later (atomic operations under
 * MTTCG, iret, xsave...) in other blocks: those are not in's.
 */
static inline bool is_own_access(const struct sys_vcpu *sv,
                                 const struct insn_info *in)
{
    return sv->hot->prev == in->tb;
}

/*
 * x86: the first access of a call or a return of its block is its own.
 * QEMU delivers an interrupt between two blocks with the callbacks of
 * the last instruction still armed (7.2): the descriptor loads and the
 * frame's stores of the delivery reach them too, and must not replace
 * the slot the instruction noted.
 */
static inline bool is_first_access(const struct sys_vcpu *sv,
                                   const struct insn_info *in)
{
    return is_own_access(sv, in) && !(sv->hot->attn & FLOW_ATTN_BRANCH);
}

static inline void note(struct sys_vcpu *sv, const struct insn_info *in,
                        uint8_t cls, uint64_t slot)
{
    sv->hot->attn |= FLOW_ATTN_BRANCH;
    sv->pend_class = cls;
    sv->pend_pc = in->pc;
    sv->pend_next = in->pc + in->size;
    sv->pend_slot = slot;
}

/* x86: the call's store of its return address gives its slot. */
static void vcpu_call_mem(unsigned int vcpu, qemu_plugin_meminfo_t info,
                          uint64_t vaddr, void *udata)
{
    struct sys_vcpu *sv = sv_of(vcpu);

    if (sv && is_first_access(sv, udata) &&
        qemu_plugin_mem_is_store(info)) {
        note(sv, udata, CALLS_CALL, vaddr);
    }
}

/* x86: the return's load of its address gives its slot. */
static void vcpu_return_mem(unsigned int vcpu, qemu_plugin_meminfo_t info,
                            uint64_t vaddr, void *udata)
{
    struct sys_vcpu *sv = sv_of(vcpu);

    if (sv && is_first_access(sv, udata) &&
        !qemu_plugin_mem_is_store(info)) {
        note(sv, udata, CALLS_RET, vaddr);
    }
}

static void vcpu_call(unsigned int vcpu, void *udata)
{
    struct sys_vcpu *sv = sv_of(vcpu);

    if (sv) {
        note(sv, udata, CALLS_CALL, 0);
    }
}

static void vcpu_tail(unsigned int vcpu, void *udata)
{
    struct sys_vcpu *sv = sv_of(vcpu);

    if (sv) {
        note(sv, udata, CALLS_TAIL, 0);
    }
}

/* aarch64: the slot of the frame restored in the same block, if any. */
static void vcpu_return(unsigned int vcpu, void *udata)
{
    const struct insn_info *in = udata;
    struct sys_vcpu *sv = sv_of(vcpu);
    uint64_t slot = 0;

    if (!sv) {
        return;
    }
    if (sv->restore_tb == in->tb) {
        slot = sv->restore_slot;
    }
    sv->restore_tb = NULL;
    note(sv, in, CALLS_RET, slot);
}

/*
 * aarch64: a prologue saved x30 (both words of an stp call this, at
 * the same 16 bytes): the slot of the frame just entered.
 */
static void vcpu_frame_save(unsigned int vcpu, qemu_plugin_meminfo_t info,
                            uint64_t vaddr, void *udata)
{
    struct sys_vcpu *sv = sv_of(vcpu);
    struct sstack *st;
    struct sframe *f;
    uint64_t slot = vaddr & ~15ull;

    (void)info;
    if (!sv || !is_own_access(sv, udata)) {
        return;
    }
    st = cur_stack(sv);
    f = top_of(st);
    if (f && !f->slot) {
        f->slot = slot;
    }
    st->last_slot = slot;
}

/* aarch64: an epilogue restored x30, for the return that follows. */
static void vcpu_frame_restore(unsigned int vcpu, qemu_plugin_meminfo_t info,
                               uint64_t vaddr, void *udata)
{
    const struct insn_info *in = udata;
    struct sys_vcpu *sv = sv_of(vcpu);

    (void)info;
    if (sv && is_own_access(sv, in)) {
        sv->restore_slot = vaddr & ~15ull;
        sv->restore_tb = in->tb;
    }
}

/* ---- translation ---- */

/* aarch64: callbacks on the block's frame saves and restores. */
static void watch_frames(struct qemu_plugin_tb *tb, struct tb_info *ti)
{
    struct calls_insn in;
    uint32_t i;

    for (i = 0; i < ti->n_insns; i++) {
        enum sysdec_frame fr;

        /* Rn is sp (bits 5-9 all ones): a cheap test first. */
        if (((ti->insns[i].opcode >> 5) & 31) != 31) {
            continue;
        }
        flow_insn_of(tb, ti, i, &in);
        fr = sysdec_frame_access(ss.isa, &in);
        if (fr == SYSDEC_FRAME_SAVE) {
            qemu_plugin_register_vcpu_mem_cb(qemu_plugin_tb_get_insn(tb, i),
                                             vcpu_frame_save,
                                             QEMU_PLUGIN_CB_NO_REGS,
                                             QEMU_PLUGIN_MEM_W, &ti->insns[i]);
        } else if (fr == SYSDEC_FRAME_RESTORE) {
            qemu_plugin_register_vcpu_mem_cb(qemu_plugin_tb_get_insn(tb, i),
                                             vcpu_frame_restore,
                                             QEMU_PLUGIN_CB_NO_REGS,
                                             QEMU_PLUGIN_MEM_RW,
                                             &ti->insns[i]);
        }
    }
}

void calls_sys_tb_trans(struct qemu_plugin_tb *tb, struct tb_info *ti)
{
    struct qemu_plugin_insn *insn;
    struct insn_info *last;
    struct calls_insn in;
    enum calls_class cls;

    if (!ss.active || ti->n_insns == 0) {
        return;
    }
    if (ss.isa == CALLS_ISA_AARCH64) {
        watch_frames(tb, ti);
    }
    last = &ti->insns[ti->n_insns - 1];
    insn = qemu_plugin_tb_get_insn(tb, ti->n_insns - 1);
    flow_insn_of(tb, ti, ti->n_insns - 1, &in);
    cls = calls_classify(ss.isa, in.bytes, in.size, false);
    if (ss.isa == CALLS_ISA_X86_64 && (cls == CALLS_CALL ||
                                       cls == CALLS_RET)) {
        /*
         * Its stack access tells the slot; it runs only when it does.
         * QEMU 7.2 calls no callback registered for loads alone
         * (QEMU_PLUGIN_MEM_R): a return's is registered for both.
         */
        qemu_plugin_register_vcpu_mem_cb(insn, cls == CALLS_CALL ?
                                         vcpu_call_mem : vcpu_return_mem,
                                         QEMU_PLUGIN_CB_NO_REGS,
                                         cls == CALLS_CALL ?
                                         QEMU_PLUGIN_MEM_W : QEMU_PLUGIN_MEM_RW,
                                         last);
        return;
    }
    if (cls == CALLS_CALL || cls == CALLS_RET || cls == CALLS_TAIL) {
        qemu_plugin_register_vcpu_insn_exec_cb(insn, cls == CALLS_CALL ?
                                               vcpu_call : cls == CALLS_RET ?
                                               vcpu_return : vcpu_tail,
                                               QEMU_PLUGIN_CB_NO_REGS, last);
    }
}

/* ---- vCPU life ---- */

void calls_sys_vcpu_start(unsigned int vcpu, struct vbuf *vb,
                          struct flow_hot *hot)
{
    struct sys_vcpu *sv;
    size_t i;

    if (!ss.active || vcpu >= SYS_MAX_VCPUS) {
        return;
    }
    sv = sys_vcpus[vcpu];
    if (!sv) {
        /* Once per vCPU index; kept for a later vCPU of the same index. */
        sv = calloc(1, sizeof(*sv));
        if (!sv) {
            return;
        }
    }
    for (i = 0; i < SYS_TASKS; i++) {
        sv->tasks[i].live = false;
        sv->tasks[i].key = 0;
        sv->tasks[i].st[0].depth = sv->tasks[i].st[1].depth = 0;
    }
    memset(sv->keys, 0, sizeof(sv->keys));
    sv->hot = hot;
    sv->vcpu = vcpu;
    sv->vb = vb;
    sv->next_id = 0;
    sv->level = LEVEL_KERNEL;
    sv->restore_tb = NULL;
    sv->cur = &sv->tasks[0];
    sv->cur->live = true;
    sv->cur->id = sv->next_id++;
    sv->cur->st[0].last_slot = sv->cur->st[1].last_slot = 0;
    __atomic_store_n(&sys_vcpus[vcpu], sv, __ATOMIC_RELEASE);
}

void calls_sys_vcpu_stop(unsigned int vcpu, uint64_t time)
{
    struct sys_vcpu *sv = sv_of(vcpu);
    size_t i;

    if (!sv) {
        return;
    }
    for (i = 0; i < SYS_TASKS; i++) {
        if (sv->tasks[i].live) {
            close_task(sv, &sv->tasks[i], EXIT_END, time);
        }
    }
    sv->hot->attn = 0;
}

void calls_sys_fmt_counts(char *buf, size_t len)
{
    uint64_t c[6] = { 0 };
    size_t i;

    for (i = 0; i < SYS_MAX_VCPUS; i++) {
        const struct sys_vcpu *sv = __atomic_load_n(&sys_vcpus[i],
                                                    __ATOMIC_ACQUIRE);

        if (sv) {
            c[0] += sv->overflows;
            c[1] += sv->unmatched;
            c[2] += sv->switches;
            c[3] += sv->new_tasks;
            c[4] += sv->evicted;
            c[5] += sv->thunks;
        }
    }
    snprintf(buf, len, "calls_overflow=%" PRIu64 "\ncalls_unmatched=%"
             PRIu64 "\ncalls_stack_switches=%" PRIu64 "\ncalls_tasks=%"
             PRIu64 "\ncalls_tasks_forgotten=%" PRIu64 "\ncalls_thunks=%"
             PRIu64 "\n", c[0], c[1], c[2], c[3], c[4], c[5]);
}

bool calls_sys_available(const char *target)
{
    const struct calls_abi *abi = calls_abi_of(target);

    return abi && (abi->isa == CALLS_ISA_X86_64 ||
                   abi->isa == CALLS_ISA_AARCH64);
}

bool calls_sys_setup(const char *target, bool want_entry, bool want_exit,
                     bool want_stack, bool instr_entry, bool instr_exit)
{
    const struct calls_abi *abi = calls_abi_of(target);

    if (!calls_sys_available(target) ||
        (!want_entry && !want_exit && !instr_entry && !instr_exit)) {
        return false;
    }
    ss.isa = abi->isa;
    ss.want_entry = want_entry;
    ss.want_exit = want_exit;
    ss.want_stack = want_stack;
    ss.instr_entry = instr_entry;
    ss.instr_exit = instr_exit;
    ss.active = true;
    return true;
}
