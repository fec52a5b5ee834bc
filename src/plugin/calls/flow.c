/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Discontinuities of system mode (see flow.h and docs/calls.md,
 * "Traps"). Each block's last instruction is decoded once, at
 * translation, into where it may go (sys-decode.h); at run time a block
 * start compares its address with those successors, and only a block
 * that is none of them, or that follows a trap, a system call or a
 * return from one, takes the slow path here.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "qtrace-events.h"
#include "../../qemu/qemu-compat.h"
#include "calls-sys.h"
#include "flow.h"
#include "../buffer/pack.h"
#include "sys-decode.h"

#define MAX_VCPUS 4096              /* as the plugin's vCPU table */
#define VEC_CACHE 64u               /* handler -> vector, per vCPU */
#define IDT_MAX_BYTES 4096u         /* 256 gates of 16 bytes */
#define HANDLER_SLOTS 512u          /* handlers entered, per vCPU */

enum { TRAP_ASYNC = 0, TRAP_RAISED = 1, TRAP_SYSCALL = 2 };
enum { TRET_TRAP = 0, TRET_SYSCALL = 1 };

struct vec_slot {
    uint64_t handler;
    int32_t vector;                 /* -1: not in the table */
    bool used;
};

struct flow_vcpu {
    struct vbuf *vb;
    struct flow_hot *hot;
    /* x86, QEMU 9.2+: the IDT as the last lidt loaded it. */
    uint64_t idt_base;
    uint32_t idt_limit;
    uint8_t idt_gate;               /* bytes per gate: 8, 16; 0 unknown */
    uint8_t lidt_part;              /* accesses of the lidt seen */
    struct vec_slot vec[VEC_CACHE];
    /* Where traps entered: open addressing, 0 empty; full: not added. */
    uint64_t handlers[HANDLER_SLOTS];
    uint32_t n_handlers;
    uint64_t entries;               /* trap entries told */
    uint64_t restarts;              /* blocks restarted inside the last */
    uint64_t aliases;               /* blocks known at another address */
};

static struct {
    enum calls_isa isa;
    bool active;
    bool want_entry;
    bool want_return;
    bool calls;
    bool idt;                       /* vectors read from the IDT */
} fs;

static struct flow_vcpu *flow_vcpus[MAX_VCPUS];

/* Where every vCPU starts: any first block follows it. */
static const struct tb_info start_tb = {
    .sys_flags = SYS_F_DYNAMIC | SYS_F_SET,
};

static struct flow_vcpu *fv_of(unsigned int vcpu)
{
    return vcpu < MAX_VCPUS ? flow_vcpus[vcpu] : NULL;
}

/* Code in the upper half of the address space: the kernel's. */
static bool is_upper(uint64_t pc)
{
    return pc >> 63;
}

/* ---- vectors ---- */

/*
 * aarch64: a vector table entry is 0x80 bytes into a 2 KiB table
 * (VBAR_ELx): its place tells the entry (0-15), which gives the kind
 * (sync, IRQ, FIQ, SError) and where it came from.
 */
static int32_t a64_vector(uint64_t handler)
{
    return (handler & 0x7f) ? -1 : (int32_t)((handler >> 7) & 15);
}

/* A gate's handler address, as the CPU reads it. */
static uint64_t gate_offset(const uint8_t *g, uint8_t size)
{
    uint64_t off = (uint64_t)g[0] | (uint64_t)g[1] << 8 |
                   (uint64_t)g[6] << 16 | (uint64_t)g[7] << 24;

    if (size == 16) {
        off |= (uint64_t)g[8] << 32 | (uint64_t)g[9] << 40 |
               (uint64_t)g[10] << 48 | (uint64_t)g[11] << 56;
    }
    return off;
}

/*
 * x86, QEMU 9.2+: the vector whose present gate points at handler,
 * read from the IDT the last lidt loaded (-1 when none or several do).
 * Once per handler: a vCPU caches the answer until its next lidt.
 */
static int32_t idt_vector(struct flow_vcpu *fv, uint64_t handler)
{
    struct vec_slot *s = &fv->vec[(handler ^ (handler >> 6)) &
                                  (VEC_CACHE - 1)];
    GByteArray *buf;
    uint32_t len, i;
    int32_t found = -1;

    if (!fs.idt || !fv->idt_gate) {
        return -1;
    }
    if (s->used && s->handler == handler) {
        return s->vector;
    }
    len = fv->idt_limit + 1 < IDT_MAX_BYTES ? fv->idt_limit + 1
                                            : IDT_MAX_BYTES;
    buf = g_byte_array_sized_new(len);
    if (!qemu_plugin_read_memory_vaddr(fv->idt_base, buf, len) ||
        buf->len < len) {
        /* Not readable now (not mapped here): ask again next time. */
        g_byte_array_free(buf, TRUE);
        return -1;
    }
    for (i = 0; i + fv->idt_gate <= len; i += fv->idt_gate) {
        const uint8_t *g = buf->data + i;

        if ((g[5] & 0x80) && gate_offset(g, fv->idt_gate) == handler) {
            found = found < 0 ? (int32_t)(i / fv->idt_gate) : -2;
        }
    }
    g_byte_array_free(buf, TRUE);
    s->used = true;
    s->handler = handler;
    s->vector = found < 0 ? -1 : found;
    return s->vector;
}

/*
 * lidt's two loads (QEMU 9.2+ gives their values): the limit (2 bytes),
 * then the base (4 bytes in 16 and 32-bit code, 8 in 64-bit code, which
 * has 16-byte gates).
 */
static void vcpu_lidt(unsigned int vcpu, qemu_plugin_meminfo_t info,
                      uint64_t vaddr, void *udata)
{
    struct flow_vcpu *fv = fv_of(vcpu);
    qemu_plugin_mem_value v;
    unsigned int shift = qemu_plugin_mem_size_shift(info);

    (void)vaddr;
    /* Helpers' accesses may reach a stale callback (calls-sys.c). */
    if (!fv || fv->hot->prev != ((const struct insn_info *)udata)->tb) {
        return;
    }
    v = qemu_plugin_mem_get_value(info);
    if (shift == 1) {
        fv->idt_limit = v.data.u16;
        fv->lidt_part = 1;
        return;
    }
    if (fv->lidt_part != 1) {
        return;
    }
    fv->lidt_part = 0;
    fv->idt_base = shift == 3 ? v.data.u64 : v.data.u32;
    fv->idt_gate = shift == 3 ? 16 : 8;
    memset(fv->vec, 0, sizeof(fv->vec));
}

static int32_t vector_of(struct flow_vcpu *fv, uint64_t handler)
{
    return fs.isa == CALLS_ISA_AARCH64 ? a64_vector(handler)
                                       : idt_vector(fv, handler);
}

/* ---- handlers ---- */

static uint32_t handler_hash(uint64_t pc)
{
    return (uint32_t)((pc * 0x9e3779b97f4a7c15ull) >> 40) &
           (HANDLER_SLOTS - 1);
}

static bool is_handler(const struct flow_vcpu *fv, uint64_t pc)
{
    uint32_t i;

    for (i = handler_hash(pc); fv->handlers[i];
         i = (i + 1) & (HANDLER_SLOTS - 1)) {
        if (fv->handlers[i] == pc) {
            return true;
        }
    }
    return false;
}

static void add_handler(struct flow_vcpu *fv, uint64_t pc)
{
    uint32_t i;

    if (!pc || fv->n_handlers >= HANDLER_SLOTS / 2) {
        return;
    }
    for (i = handler_hash(pc); fv->handlers[i];
         i = (i + 1) & (HANDLER_SLOTS - 1)) {
        if (fv->handlers[i] == pc) {
            return;
        }
    }
    fv->handlers[i] = pc;
    fv->n_handlers++;
}

/* ---- records ---- */

static void emit_entry(struct flow_vcpu *fv, uint64_t pc, uint64_t from,
                       int32_t vector, uint8_t kind, bool user,
                       uint64_t time)
{
    struct qtrace_ev_trap_entry *r;

    fv->entries++;
    if (!fs.want_entry) {
        return;
    }
    r = vbuf_event(fv->vb, QTRACE_EV_TRAP_ENTRY, sizeof(*r), time);
    r->pc = pc;
    r->from = from;
    r->vector = vector;
    r->kind = kind;
    r->user = user;
}

static void emit_return(uint64_t pc, uint64_t to, uint8_t kind, bool user,
                        struct flow_vcpu *fv, uint64_t time)
{
    struct qtrace_ev_trap_return *r;

    if (!fs.want_return) {
        return;
    }
    r = vbuf_event(fv->vb, QTRACE_EV_TRAP_RETURN, sizeof(*r), time);
    r->pc = pc;
    r->to = to;
    r->kind = kind;
    r->user = user;
}

/* ---- run time ---- */

/* The address of a block's last instruction. */
static uint64_t last_pc(const struct tb_info *tb)
{
    return tb->n_insns ? tb->insns[tb->n_insns - 1].pc : tb->pc;
}

/* What the move from prev to the block at pc is. */
enum step { STEP_FOLLOWS, STEP_ENTRY, STEP_RETURN, STEP_ALIAS };

static enum step classify(const struct flow_vcpu *fv,
                          const struct tb_info *prev, uint64_t pc,
                          uint8_t *kind)
{
    uint64_t next = prev->pc + prev->size;

    (void)fv;
    switch (prev->sys_end) {
    case SYSDEC_TRAP:
        *kind = TRAP_RAISED;
        return pc == next ? STEP_FOLLOWS : STEP_ENTRY;
    case SYSDEC_SYSCALL:
        *kind = TRAP_SYSCALL;
        return pc == next ? STEP_FOLLOWS : STEP_ENTRY;
    case SYSDEC_TRAP_RETURN:
        /* An iret to the next instruction serializes (Linux's
         * sync_core): no exception ends there. */
        *kind = TRET_TRAP;
        return pc == next ? STEP_FOLLOWS : STEP_RETURN;
    case SYSDEC_SYSCALL_RETURN:
        *kind = TRET_SYSCALL;
        return STEP_RETURN;
    default:
        break;
    }
    *kind = TRAP_ASYNC;
    if (pc == next || pc == prev->sys_target ||
        (prev->sys_flags & SYS_F_DYNAMIC) || prev == &start_tb) {
        return STEP_FOLLOWS;
    }
    /*
     * QEMU started a block inside the last one (it stopped that block at
     * an access to a device or to a page of code, or went on after a
     * page-crossing instruction): the same path, not an interrupt.
     */
    if (pc - prev->pc < prev->size) {
        return STEP_FOLLOWS;
    }
    /*
     * Kernel code goes to user code only by a return from a trap. A
     * lower-half block after a kernel block is one QEMU translated at
     * another address and shares (8.2 and later key x86_64 blocks by
     * physical address: code that early boot ran at its physical address
     * keeps that address later); it is not a trap.
     */
    if (is_upper(prev->pc) && !is_upper(pc)) {
        return STEP_ALIAS;
    }
    return STEP_ENTRY;
}

void flow_block(unsigned int vcpu, const struct tb_info *prev,
                const struct tb_info *tb, uint64_t start)
{
    struct flow_vcpu *fv = fv_of(vcpu);
    uint64_t pc = tb->pc;
    uint8_t kind = 0;
    enum step step;
    int32_t vector;
    bool user;

    if (!fv) {
        return;
    }
    step = classify(fv, prev, pc, &kind);
    if (step == STEP_ALIAS) {
        fv->aliases++;
        step = STEP_FOLLOWS;
    }
    if (step == STEP_FOLLOWS && pc - prev->pc < prev->size &&
        pc != prev->pc) {
        fv->restarts++;
    }
    if (step == STEP_FOLLOWS && fs.calls && pc == prev->sys_target &&
        (prev->sys_flags & SYS_F_JUMP) &&
        (tb->sys_flags & (SYS_F_ENTRY | SYS_F_ENTRY_CALL |
                          SYS_F_ENTRY_NOP))) {
        calls_sys_jump(vcpu, tb, last_pc(prev), start);
    }
    if (fv->hot->attn &&
        calls_sys_branch(vcpu, prev, tb, start, step == STEP_ENTRY) &&
        step == STEP_FOLLOWS) {
        /* A return went elsewhere: an interrupt came right after it. */
        step = STEP_ENTRY;
        kind = TRAP_ASYNC;
    }
    if (step == STEP_ENTRY) {
        user = !is_upper(prev->pc) && is_upper(pc) && prev != &start_tb;
        vector = kind == TRAP_RAISED ? prev->sys_vector :
                 kind == TRAP_SYSCALL && fs.isa != CALLS_ISA_AARCH64 ? -1 :
                 vector_of(fv, pc);
        if (kind == TRAP_RAISED && vector < 0) {
            vector = vector_of(fv, pc);
        }
        if (kind != TRAP_SYSCALL) {
            add_handler(fv, pc);
        }
        emit_entry(fv, pc, kind == TRAP_ASYNC ? prev->pc : last_pc(prev),
                   vector, kind, user, start);
        if (fs.calls) {
            calls_sys_trap_entry(vcpu, pc, user, start);
        }
    } else if (step == STEP_RETURN && is_handler(fv, pc)) {
        /*
         * The return went on to a handler: an interrupt pending when it
         * returned came before the first instruction it returned to,
         * whose address is unknown then (0).
         */
        emit_return(last_pc(prev), 0, kind, false, fv, start);
        if (fs.calls) {
            calls_sys_trap_return(vcpu, NULL, pc, false, start);
        }
        emit_entry(fv, pc, prev->pc, vector_of(fv, pc), TRAP_ASYNC, false,
                   start);
        if (fs.calls) {
            calls_sys_trap_entry(vcpu, pc, false, start);
        }
    } else if (step == STEP_RETURN) {
        user = is_upper(prev->pc) && !is_upper(pc);
        emit_return(last_pc(prev), pc, kind, user, fv, start);
        if (fs.calls) {
            calls_sys_trap_return(vcpu, tb, pc, user, start);
        }
    }
}

/* ---- translation ---- */

void flow_insn_of(struct qemu_plugin_tb *tb, const struct tb_info *ti,
                  uint32_t i, struct calls_insn *out)
{
    memset(out, 0, sizeof(*out));
    out->pc = ti->insns[i].pc;
    out->size = ti->insns[i].size;
    qc_insn_bytes(qemu_plugin_tb_get_insn(tb, i), out->bytes,
                  sizeof(out->bytes));
}

/* Register lidt's loads (QEMU 9.2+: their values give the IDT). */
static void watch_lidt(struct qemu_plugin_tb *tb, struct tb_info *ti)
{
    struct calls_insn in;
    uint32_t i;

    for (i = 0; i < ti->n_insns; i++) {
        const uint8_t *op = (const uint8_t *)&ti->insns[i].opcode;

        /* 0f 01 within the first bytes: a cheap test before decoding. */
        if (!memchr(op, 0x0f, 3)) {
            continue;
        }
        flow_insn_of(tb, ti, i, &in);
        if (sysdec_is_lidt(fs.isa, &in)) {
            qemu_plugin_register_vcpu_mem_cb(qemu_plugin_tb_get_insn(tb, i),
                                             vcpu_lidt,
                                             QEMU_PLUGIN_CB_NO_REGS,
                                             QEMU_PLUGIN_MEM_RW,
                                             &ti->insns[i]);
        }
    }
}

/*
 * Tail calls (the tracker's): a block that ends with a direct jump, or
 * that starts the way functions start (first: its first instruction).
 */
static void tail_flags(struct qemu_plugin_tb *tb, struct tb_info *ti,
                       const struct calls_insn *first)
{
    struct calls_insn last;
    uint64_t target = 0;

    switch (sysdec_entry_like(fs.isa, first, &target)) {
    case SYSDEC_ENTRY_YES:
        ti->sys_flags |= SYS_F_ENTRY | SYS_F_TAIL_PAIR;
        break;
    case SYSDEC_ENTRY_NOP:
        ti->sys_flags |= SYS_F_ENTRY_NOP | SYS_F_TAIL_PAIR;
        break;
    case SYSDEC_ENTRY_IF_FENTRY:
        ti->sys_flags |= SYS_F_ENTRY_CALL | SYS_F_TAIL_PAIR;
        ti->sys_entry_call = target;
        break;
    default:
        break;
    }
    flow_insn_of(tb, ti, ti->n_insns - 1, &last);
    if (sysdec_is_direct_jump(fs.isa, &last)) {
        ti->sys_flags |= SYS_F_JUMP | SYS_F_TAIL_PAIR;
    }
}

void flow_tb_trans(struct qemu_plugin_tb *tb, struct tb_info *ti)
{
    struct calls_insn insns[3];
    struct sysdec_flow f;
    uint32_t n = ti->n_insns, i;
    enum sysdec_thunk thunk = SYSDEC_THUNK_NONE;

    if (!fs.active || n == 0) {
        return;
    }
    flow_insn_of(tb, ti, n - 1, &insns[0]);
    sysdec_flow(fs.isa, &insns[0], &f);
    ti->sys_end = (uint8_t)f.end;
    ti->sys_vector = (int16_t)f.vector;
    ti->sys_target = f.end == SYSDEC_BRANCH ? f.target : 0;
    ti->sys_flags = SYS_F_SET;
    if (f.end == SYSDEC_DYNAMIC) {
        ti->sys_flags |= SYS_F_DYNAMIC;
    } else if (f.end != SYSDEC_NEXT && f.end != SYSDEC_BRANCH) {
        ti->sys_flags |= SYS_F_SPECIAL;
    }
    if (f.may_fall) {
        ti->sys_flags |= SYS_F_FALLS;
    }
    /* Thunks are a few instructions at most (sysdec_thunk). */
    if (fs.calls && n <= 3) {
        for (i = 0; i < n; i++) {
            flow_insn_of(tb, ti, i, &insns[i]);
        }
        thunk = sysdec_thunk(fs.isa, insns, n);
    } else if (fs.calls) {
        flow_insn_of(tb, ti, 0, &insns[0]);
    }
    if (fs.calls && sysdec_is_landing(fs.isa, &insns[0])) {
        ti->sys_flags |= SYS_F_LANDING;
    }
    if (fs.calls) {
        tail_flags(tb, ti, &insns[0]);
    }
    if (thunk == SYSDEC_THUNK_JUMP) {
        ti->sys_flags |= SYS_F_THUNK_JUMP;
    } else if (thunk == SYSDEC_THUNK_RETURN) {
        ti->sys_flags |= SYS_F_THUNK_RETURN;
    }
    if (fs.idt) {
        watch_lidt(tb, ti);
    }
}

/* ---- life ---- */

void flow_vcpu_start(unsigned int vcpu, struct vbuf *vb,
                     struct flow_hot *hot)
{
    struct flow_vcpu *fv;

    if (!fs.active || vcpu >= MAX_VCPUS) {
        return;
    }
    fv = flow_vcpus[vcpu];
    if (!fv) {
        fv = calloc(1, sizeof(*fv));
        if (!fv) {
            return;
        }
    }
    fv->vb = vb;
    fv->hot = hot;
    fv->idt_gate = 0;
    fv->lidt_part = 0;
    memset(fv->handlers, 0, sizeof(fv->handlers));
    fv->n_handlers = 0;
    memset(fv->vec, 0, sizeof(fv->vec));
    hot->prev = &start_tb;
    hot->attn = 0;
    __atomic_store_n(&flow_vcpus[vcpu], fv, __ATOMIC_RELEASE);
}

void flow_fmt_counts(char *buf, size_t len)
{
    uint64_t entries = 0, restarts = 0, aliases = 0;
    size_t i;

    for (i = 0; i < MAX_VCPUS; i++) {
        const struct flow_vcpu *fv = __atomic_load_n(&flow_vcpus[i],
                                                     __ATOMIC_ACQUIRE);

        if (fv) {
            entries += fv->entries;
            restarts += fv->restarts;
            aliases += fv->aliases;
        }
    }
    snprintf(buf, len, "traps=%" PRIu64 "\nblock_restarts=%" PRIu64
             "\nblock_aliases=%" PRIu64 "\n", entries, restarts, aliases);
}

bool flow_active(void)
{
    return fs.active;
}

bool flow_setup(const char *target, bool want_entry, bool want_return,
                bool calls)
{
    const struct calls_abi *abi = calls_abi_of(target);

    if (!abi || (abi->isa != CALLS_ISA_X86_64 &&
                 abi->isa != CALLS_ISA_AARCH64)) {
        return false;
    }
    fs.isa = abi->isa;
    fs.want_entry = want_entry;
    fs.want_return = want_return;
    fs.calls = calls;
    fs.active = want_entry || want_return || calls;
    /*
     * QEMU 9.2 and later give the values lidt loads and can read guest
     * memory: the IDT tells the vector of an interrupt's handler.
     */
    fs.idt = fs.active && want_entry && abi->isa == CALLS_ISA_X86_64 &&
             qc_api() >= 4 && qemu_plugin_mem_get_value &&
             qemu_plugin_read_memory_vaddr;
    return fs.active;
}
