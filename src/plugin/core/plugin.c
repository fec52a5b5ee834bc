/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libqtrace.so, the QEMU TCG plugin: decides at translation time what to
 * instrument and, at execution time, appends fixed-size records to the
 * running vCPU's buffer. Callbacks run on vCPU threads; the writer thread
 * (writer.c) and the sinks do everything else.
 */
#include <errno.h>
#include <stddef.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qtrace-events.h"
#include "qtrace/catalog.h"
#include "qtrace/syscall.h"
#include "../../format/chunk.h"
#include "../../format/etrace.h"
#include "../../qemu/qemu-compat.h"
#include "../calls/calls.h"
#include "../calls/calls-sys.h"
#include "../ctl/ctl.h"
#include "../ctl/ctl-events.h"
#include "../ctl/ctl-switch.h"
#include "../mem/devname.h"
#include "../calls/entries.h"
#include "fatal.h"
#include "../calls/flow.h"
#include "insn-extent.h"
#include "../instrument/instr.h"
#include "../calls/maps.h"
#include "../mem/mem.h"
#include "../mem/memguard.h"
#include "../mem/xlate-flush.h"
#include "meta.h"
#include "../mem/mmio-cache.h"
#include "options.h"
#include "../buffer/pack.h"
#include "../buffer/ring-restart.h"
#include "../sink/sink.h"
#include "tbcount.h"
#include "tbtab.h"
#include "../buffer/vbuf.h"
#include "vcpu.h"
#include "../window/window.h"
#include "../buffer/writer.h"

#define MAX_SINKS 8

struct vcpu vcpus[MAX_VCPUS];

/* Set at install, read-only afterwards (but for the exit flags). */
static struct {
    struct qtrace_catalog cat;
    struct options opts;
    bool system_mode;
    char target[32];            /* QEMU's target name: "aarch64" */
    char qemu_version[160];
    bool trace_tb_trans;
    bool trace_exec_tb;
    bool trace_exec_insn;
    bool trace_mem;
    bool trace_vcpu;            /* vcpu_init / vcpu_exit */
    bool trace_syscall;
    bool trace_syscall_ret;
    bool trace_calls;           /* func_entry / func_exit (calls.c, or
                                   calls-sys.c in system mode) */
    bool trace_flow;            /* system mode: blocks followed (flow.h) */
    bool trace_maps;            /* image_map (maps.c) */
    bool trace_order;           /* order points (mark_order) */
    bool trace_user_event;      /* instrumentation libraries' records */
    bool trace_clock;           /* host clock stamps (timeline=on) */
    bool keep_disas;            /* the log sink prints QEMU's disassembly */
    bool trace_tb_count;        /* inline execution counters */
    bool per_vcpu_counts;       /* tb_count by tbcount.h's callback
                                   (atomic: set later in user mode) */
    bool counts_may_switch;     /* ... when a second vCPU starts */
    atomic_uint vcpus_started;
    bool need_icount;           /* some record carries a time */
    bool packed;                /* vCPU chunks use the packed encoding */
    bool pack_mem;              /* accesses as mem packets (user, exec_tb) */
    bool pack_accesses;         /* the writer predicts them */
    bool known_xlate;           /* system mode: translations kept between
                                   changes (mem.h) */
    enum xlate_isa xlate_isa;   /* their decoder */
    bool mem_values;            /* QEMU gives accessed values (API 4+) */
    bool device_names;          /* QEMU may be asked for device names */
    bool mmio_cache;            /* device accesses remembered (mmio-cache.h) */
    int max_vcpus;              /* system mode: QEMU's maxcpus */
    int64_t exit_nr[2];         /* exit, exit_group (-1: unknown) */
    atomic_int exit_status;     /* the guest's last exit() argument */
    atomic_bool exit_seen;      /* exit_status is set */
    atomic_uint next_stream;
    atomic_uint_fast64_t next_order;    /* the next order point's seq */
    atomic_bool exited;
    atomic_bool warned_vcpus;
} qt;

/* ---- execution callbacks: no lock, no malloc, no syscall ---- */

/* An instrumentation library's record (instr.h), on vcpu's thread. */
static void emit_user_event(unsigned int vcpu_index, uint32_t lib,
                            uint32_t id, const uint64_t values[4])
{
    struct vcpu *vc = vcpu_of(vcpu_index);
    struct qtrace_ev_user_event *r;

    if (!vc || !vc->live) {
        return;
    }
    r = emit(vc, QTRACE_EV_USER_EVENT, sizeof(*r), vc->icount);
    r->lib = lib;
    r->id = id;
    r->v0 = values[0];
    r->v1 = values[1];
    r->v2 = values[2];
    r->v3 = values[3];
}

/*
 * An instrumentation library's translation-time record: among the
 * translations, as no vCPU runs it (instr.h).
 */
static void emit_user_event_trans(uint32_t lib, uint32_t id,
                                  const uint64_t values[4])
{
    struct qtrace_ev_user_event *r = writer_trans_reserve(sizeof(*r));

    if (!r) {
        writer_count_lost(1);
        return;
    }
    r->hdr.id = QTRACE_EV_USER_EVENT;
    r->hdr.size = (uint16_t)sizeof(*r);
    r->hdr.reserved = 0;
    r->hdr.time = 0;
    r->lib = lib;
    r->id = id;
    r->v0 = values[0];
    r->v1 = values[1];
    r->v2 = values[2];
    r->v3 = values[3];
    writer_trans_commit();
}

/*
 * A library's own event (instr-events.c): its arguments as the layout
 * rule places them, then zeros up to the record's size.
 */
static void emit_lib_record(unsigned int vcpu_index, uint16_t id,
                            uint16_t size, const void *payload, size_t len)
{
    struct vcpu *vc = vcpu_of(vcpu_index);
    uint8_t *r;

    if (!vc || !vc->live) {
        return;
    }
    r = emit(vc, id, size, vc->icount);
    memcpy(r + sizeof(struct qtrace_rec), payload, len);
    memset(r + sizeof(struct qtrace_rec) + len, 0,
           size - sizeof(struct qtrace_rec) - len);
}

static void vcpu_tb_count(unsigned int vcpu_index, void *udata)
{
    const struct tb_info *tb = udata;
    struct vcpu *vc = vcpu_of(vcpu_index);

    if (vc) {
        vc->tb_time = vc->icount;
        vc->icount += tb->n_insns;
    }
}

/*
 * A block whose record does not fit in the fast path: the chunk is full,
 * or the stream is raw. Knows the block's start time from its length.
 */
static void __attribute__((noinline))
exec_tb_slow(struct vcpu *vc, const struct tb_info *tb)
{
    struct qtrace_ev_exec_tb *r;

    vc->tb_time = vc->icount - tb->n_insns;
    /* Runtime control's switches take effect at a block start. */
    if (vbuf_must_cross(&vc->buf)) {
        vbuf_cross(&vc->buf, vc->tb_time);
    }
    if (__builtin_expect(vc->events_seen !=
                         __atomic_load_n(&ctl_events_applied,
                                         __ATOMIC_RELAXED), 0)) {
        ctl_events_cross(vc, &vc->events_seen, vc->tb_time);
    }
    if (vc->buf.pack) {
        pack_block_slow(&vc->buf, tb->id);
        return;
    }
    r = emit(vc, QTRACE_EV_EXEC_TB, sizeof(*r), vc->tb_time);
    r->pc = tb->pc;
    r->tb = tb->id;
}

/*
 * The common way of a block: count it and store its id in a packed
 * stream with room. False when the slow way must store it.
 */
static inline bool exec_block_fast(struct vcpu *vc, const struct tb_info *tb)
{
    vc->icount += tb->n_insns;
    return __builtin_expect(vc->buf.pack != NULL, 1) &&
           pack_block(&vc->buf, tb->id);
}

/* One executed block into vc's stream; the caller sets tb_time if needed. */
static inline void exec_block(struct vcpu *vc, const struct tb_info *tb)
{
    if (!exec_block_fast(vc, tb)) {
        exec_tb_slow(vc, tb);
    }
}

/* exec_block_mem() when the chunk is full or the stream raw. */
static void __attribute__((noinline))
exec_tb_mem_slow(struct vcpu *vc, const struct tb_info *tb)
{
    exec_tb_slow(vc, tb);
    if (vc->buf.pack) {
        vc->buf.pack->block_pc = tb->pc;
    }
}

/*
 * The same, starting the block that memory packets are relative to. The
 * slow way is a tail call, so that the fast one saves no registers.
 */
static inline void exec_block_mem(struct vcpu *vc, const struct tb_info *tb)
{
    vc->tb_time = vc->icount;
    vc->cur_tb = tb->id;
    if (exec_block_fast(vc, tb)) {
        vc->buf.pack->block_pc = tb->pc;
        return;
    }
    exec_tb_mem_slow(vc, tb);
}

/*
 * The block trace alone. The start of the block (tb_time) is kept only
 * where a record needs it: not here, where every record's time is the
 * instruction count after the block.
 */
static void vcpu_tb_exec(unsigned int vcpu_index, void *udata)
{
    struct vcpu *vc = vcpu_of(vcpu_index);

    if (vc) {
        exec_block(vc, udata);
    }
}

/* The same where instruction and access records need the block start. */
static void vcpu_tb_exec_timed(unsigned int vcpu_index, void *udata)
{
    struct vcpu *vc = vcpu_of(vcpu_index);

    if (vc) {
        vc->tb_time = vc->icount;
        exec_block(vc, udata);
    }
}

/* The same when memory packets follow: they are relative to the block. */
static void vcpu_tb_exec_mem(unsigned int vcpu_index, void *udata)
{
    struct vcpu *vc = vcpu_of(vcpu_index);

    if (vc) {
        exec_block_mem(vc, udata);
    }
}

/*
 * With the call tracker, whose records come first. The block's flags pick
 * the way at translation (calls_start_of), so each way has a callback.
 */
static inline void count_calls(unsigned int vcpu_index,
                               const struct tb_info *tb,
                               enum calls_start way)
{
    struct vcpu *vc = vcpu_of(vcpu_index);
    uint64_t start;

    if (!vc) {
        return;
    }
    start = vc->icount;
    vc->icount = start + tb->n_insns;
    vc->tb_time = start;
    calls_tb_start(&vc->calls, tb, start, vc->icount, way);
}

static inline void exec_calls(unsigned int vcpu_index,
                              const struct tb_info *tb, enum calls_start way)
{
    struct vcpu *vc = vcpu_of(vcpu_index);

    if (vc) {
        calls_tb_start(&vc->calls, tb, vc->icount, vc->icount + tb->n_insns,
                       way);
        exec_block_mem(vc, tb);
    }
}

/*
 * The callbacks of one way, counting and with the block trace: each way
 * is a constant in its own pair, so that the test it needs is the only
 * one at the block start.
 */
#define CALLS_WAY_CALLBACKS(name, way)                                     \
    static void vcpu_tb_count_calls##name(unsigned int vcpu_index,         \
                                          void *udata)                     \
    {                                                                      \
        count_calls(vcpu_index, udata, way);                               \
    }                                                                      \
    static void vcpu_tb_exec_calls##name(unsigned int vcpu_index,          \
                                         void *udata)                      \
    {                                                                      \
        exec_calls(vcpu_index, udata, way);                                \
    }

CALLS_WAY_CALLBACKS(_plain, CALLS_START_PLAIN)
CALLS_WAY_CALLBACKS(_note, CALLS_START_PLAIN_NOTE)
CALLS_WAY_CALLBACKS(_indirect, CALLS_START_INDIRECT)
CALLS_WAY_CALLBACKS(_entry, CALLS_START_ENTRY)
CALLS_WAY_CALLBACKS(_entry_note, CALLS_START_ENTRY_NOTE)
CALLS_WAY_CALLBACKS(_any, CALLS_START_ANY)

/* A block outside range=: not counted, but calls still followed. */
static void vcpu_tb_calls_only(unsigned int vcpu_index, void *udata)
{
    struct vcpu *vc = vcpu_of(vcpu_index);

    if (vc) {
        calls_tb_start(&vc->calls, udata, vc->icount, vc->icount,
                       CALLS_START_ANY);
    }
}

/*
 * System mode with the block follower (flow.h), which the call tracker
 * of system mode rides on: the same three ways.
 */
static void vcpu_tb_count_sys(unsigned int vcpu_index, void *udata)
{
    struct vcpu *vc = vcpu_of(vcpu_index);
    const struct tb_info *tb = udata;
    uint64_t start;

    if (!vc) {
        return;
    }
    start = vc->icount;
    vc->icount = start + tb->n_insns;
    vc->tb_time = start;
    flow_tb_start(&vc->flow, vcpu_index, tb, start);
}

static void vcpu_tb_exec_sys(unsigned int vcpu_index, void *udata)
{
    struct vcpu *vc = vcpu_of(vcpu_index);

    if (vc) {
        flow_tb_start(&vc->flow, vcpu_index, udata, vc->icount);
        exec_block_mem(vc, udata);
    }
}

/* A block outside range=: not counted, but followed. */
static void vcpu_tb_sys_only(unsigned int vcpu_index, void *udata)
{
    struct vcpu *vc = vcpu_of(vcpu_index);

    if (vc) {
        flow_tb_start(&vc->flow, vcpu_index, udata, vc->icount);
    }
}

static void vcpu_insn_exec(unsigned int vcpu_index, void *udata)
{
    const struct insn_info *in = udata;
    struct vcpu *vc = vcpu_of(vcpu_index);
    struct qtrace_ev_exec_insn *r;

    if (!vc) {
        return;
    }
    r = emit(vc, QTRACE_EV_EXEC_INSN, sizeof(*r), vc->tb_time + in->idx);
    r->pc = in->pc;
    r->tb = in->tb->id;
    r->idx = in->idx;
}

/*
 * An order point: a number from one counter shared by all vCPUs, taken
 * where the vCPU meets the rest of the system (start, exit, system
 * calls), so that a reader can put vCPU streams in one order (the etrace
 * sink does). Not per block: the atomic add would bounce its cache line
 * between vCPU threads.
 */
static void mark_order(struct vcpu *vc)
{
    struct qtrace_ev_order *r;

    if (qt.trace_order) {
        r = emit(vc, QTRACE_EV_ORDER, sizeof(*r), vc->icount);
        r->seq = atomic_fetch_add(&qt.next_order, 1);
    }
}

static void vcpu_syscall(qemu_plugin_id_t id, unsigned int vcpu_index,
                         int64_t num, uint64_t a1, uint64_t a2, uint64_t a3,
                         uint64_t a4, uint64_t a5, uint64_t a6, uint64_t a7,
                         uint64_t a8)
{
    struct vcpu *vc = vcpu_of(vcpu_index);
    struct qtrace_ev_syscall *r;

    (void)id;
    instr_syscall(vcpu_index, num,
                  (const uint64_t[8]){ a1, a2, a3, a4, a5, a6, a7, a8 });
    if (!vc) {
        return;
    }
    mark_order(vc);
    if (num == qt.exit_nr[0] || num == qt.exit_nr[1]) {
        atomic_store(&qt.exit_status, (int)(a1 & 0xff));
        atomic_store(&qt.exit_seen, true);
    }
    if (qt.trace_calls) {
        calls_syscall(vcpu_index, num, vc->icount);
    }
    if (qt.trace_maps) {
        maps_syscall(vcpu_index, num, a2, a4, a5, a6);
    }
    if (qt.trace_syscall) {
        r = emit(vc, QTRACE_EV_SYSCALL, sizeof(*r), vc->icount);
        r->num = num;
        r->a1 = a1;
        r->a2 = a2;
        r->a3 = a3;
        r->a4 = a4;
        r->a5 = a5;
        r->a6 = a6;
    }
    /* It may block for long: the writer may flush its chunk meanwhile. */
    vbuf_park(&vc->buf);
}

static void vcpu_syscall_ret(qemu_plugin_id_t id, unsigned int vcpu_index,
                             int64_t num, int64_t ret)
{
    struct vcpu *vc = vcpu_of(vcpu_index);
    struct qtrace_ev_syscall_ret *r;

    (void)id;
    instr_syscall_ret(vcpu_index, num, ret);
    if (!vc) {
        return;
    }
    vbuf_unpark(&vc->buf);
    mark_order(vc);
    if (qt.trace_calls) {
        calls_syscall_ret(vcpu_index, num, vc->icount);
    }
    if (qt.trace_maps) {
        maps_syscall_ret(vcpu_index, &vc->buf, vc->icount, num, ret);
    }
    if (!qt.trace_syscall_ret) {
        return;
    }
    r = emit(vc, QTRACE_EV_SYSCALL_RET, sizeof(*r), vc->icount);
    r->num = num;
    r->ret = ret;
}

/* ---- vCPU life cycle ---- */

/*
 * lossy=on dropped this vCPU's chunk: the packed stream starts over (the
 * writer's predictor and the reader's reset at the lost record) and the
 * record marks the gap.
 */
static void vcpu_dropped(struct vbuf *vb, uint64_t lost, uint32_t size)
{
    struct vcpu *vc = (struct vcpu *)((char *)vb - offsetof(struct vcpu,
                                                            buf));
    struct qtrace_ev_lost *r;
    /*
     * A staged block (the only 4-byte reservation) is the block starting
     * at tb_time: it comes next. Anything else comes within that block,
     * and the next one starts at icount.
     */
    uint32_t block_insns = vb->pack && size == STAGED_WORD ? 0 :
                           (uint32_t)(vc->icount - vc->tb_time);

    if (vc->buf.pack) {
        pack_reset(vc->buf.pack);
    }
    r = emit(vc, QTRACE_EV_LOST, sizeof(*r), vc->tb_time);
    r->records = lost;
    r->block_insns = block_insns;
    if (block_insns && (vb->flags & QTRACE_CHUNK_ACCESSES)) {
        /* The block goes on: its accesses' pc counts from its own. */
        pack_context(vb, vc->cur_tb);
    }
}

/*
 * Whether a block callback keeps each vCPU's instruction count (else only
 * inline counters, or nothing, count the guest's instructions).
 */
static bool keeps_icount(void)
{
    return qt.need_icount || qt.trace_calls;
}

/* End a stream: its last chunk goes to the writer, its count to END. */
static void stop_stream(struct vcpu *vc)
{
    if (keeps_icount()) {
        writer_insns_add(ctl_switch_file_insns(&vc->buf, vc->icount));
    }
    vbuf_unpark(&vc->buf);
    vbuf_stop(&vc->buf);
}

/*
 * System mode: a vCPU waiting for an interrupt records nothing, and the
 * writer may flush its chunk meanwhile.
 */
static void vcpu_idle(qemu_plugin_id_t id, unsigned int vcpu_index)
{
    struct vcpu *vc = vcpu_of(vcpu_index);

    (void)id;
    instr_poll();
    if (vc && vc->live) {
        vbuf_park(&vc->buf);
    }
}

static void vcpu_resume(qemu_plugin_id_t id, unsigned int vcpu_index)
{
    struct vcpu *vc = vcpu_of(vcpu_index);

    (void)id;
    instr_poll();
    if (vc) {
        vbuf_unpark(&vc->buf);
    }
}

/*
 * User mode on QEMU 7.2-8.2 counts blocks with QEMU's shared inline
 * counters while the guest has one thread, where they are exact and
 * cheapest; the second vCPU to start switches tb_count to per-vCPU
 * counters (choose_counters). The translations made so far are dropped
 * (their counts go out from plugin_flush) before two vCPUs can run them
 * at once: QEMU runs the flush asked from here with every vCPU stopped,
 * and this thread, which the new one is cloned from, stops for it
 * before it runs guest code again.
 */
static void flush_translations(void);

static void counters_vcpu_start(void)
{
    if (!qt.counts_may_switch ||
        atomic_fetch_add(&qt.vcpus_started, 1) == 0 ||
        __atomic_load_n(&qt.per_vcpu_counts, __ATOMIC_ACQUIRE)) {
        return;
    }
    __atomic_store_n(&qt.per_vcpu_counts, true, __ATOMIC_RELEASE);
    flush_translations();
}

static void vcpu_init(qemu_plugin_id_t id, unsigned int vcpu_index)
{
    struct vcpu *vc = vcpu_of(vcpu_index);
    struct qtrace_ev_vcpu_init *r;

    (void)id;
    counters_vcpu_start();
    if (!vc) {
        if (!atomic_exchange(&qt.warned_vcpus, true)) {
            fprintf(stderr, "qtrace: vCPU %u: more than %d vCPUs; the "
                    "extra ones are not traced\n", vcpu_index, MAX_VCPUS);
        }
        instr_vcpu_init(vcpu_index);
        return;
    }
    if (vc->live) {
        stop_stream(vc);
    }
    vc->icount = 0;
    vc->tb_time = 0;
    if (qt.packed) {
        /* Once per vCPU slot; a new stream starts from a clean state. */
        if (!vc->buf.pack) {
            vc->buf.pack = malloc(sizeof(*vc->buf.pack));
        }
        if (vc->buf.pack) {
            pack_reset(vc->buf.pack);
        }
    }
    vc->buf.icount = &vc->icount;
    vc->buf.lossy = qt.opts.lossy;
    vc->buf.on_drop = vcpu_dropped;
    vc->buf.on_cross = ctl_switch_cross;
    vc->buf.on_chunk = qt.opts.ring_bytes ? ring_restart : NULL;
    vc->buf.stamps = qt.trace_clock;
    vc->buf.pause_pending = false;
    vc->buf.blocks = qt.trace_exec_tb;
    vbuf_start(&vc->buf, vcpu_index, atomic_fetch_add(&qt.next_stream, 1),
               vc->buf.pack ? CHUNK_STAGED |
               (qt.pack_accesses ? QTRACE_CHUNK_ACCESSES |
                QTRACE_CHUNK_ACCESS_REL |
                (qt.system_mode ? QTRACE_CHUNK_PHYS : 0) : 0) : 0);
    /* A new stream starts under the events chosen by now. */
    vc->events_seen = __atomic_load_n(&ctl_events_applied, __ATOMIC_ACQUIRE);
    vc->live = true;
    if (qt.trace_flow) {
        flow_vcpu_start(vcpu_index, &vc->buf, &vc->flow);
    }
    if (qt.trace_calls && qt.system_mode) {
        calls_sys_vcpu_start(vcpu_index, &vc->buf, &vc->flow);
    } else if (qt.trace_calls) {
        calls_vcpu_start(vcpu_index, &vc->buf, &vc->calls);
    }
    mark_order(vc);
    if (qt.trace_vcpu && evsel_is_enabled(&qt.opts.sel, QTRACE_EV_VCPU_INIT)) {
        r = emit(vc, QTRACE_EV_VCPU_INIT, sizeof(*r), 0);
        r->vcpu = vcpu_index;
    }
    /* Before its window opens, a vCPU records nothing more. */
    window_vcpu_start(vc, vcpu_index);
    /* Last: a library's records from its callback go into the stream. */
    instr_vcpu_init(vcpu_index);
}

static void vcpu_exit(qemu_plugin_id_t id, unsigned int vcpu_index)
{
    struct vcpu *vc = vcpu_of(vcpu_index);
    struct qtrace_ev_vcpu_exit *r;

    (void)id;
    instr_vcpu_exit(vcpu_index);
    if (!vc || !vc->live) {
        return;
    }
    vbuf_unpark(&vc->buf);
    if (qt.trace_calls && qt.system_mode) {
        calls_sys_vcpu_stop(vcpu_index, vc->icount);
    } else if (qt.trace_calls) {
        calls_vcpu_stop(vcpu_index, vc->icount);
    }
    mark_order(vc);
    if (qt.trace_vcpu && evsel_is_enabled(&qt.opts.sel, QTRACE_EV_VCPU_EXIT)) {
        r = emit(vc, QTRACE_EV_VCPU_EXIT, sizeof(*r), vc->icount);
        r->vcpu = vcpu_index;
    }
    stop_stream(vc);
    vc->live = false;
}

/* ---- translation ---- */

/* Fill tb's instruction table; returns the block's code size. */
static uint32_t describe_insns(struct qemu_plugin_tb *tb, struct tb_info *ti,
                               bool want_disas)
{
    uint32_t i, size = 0;

    for (i = 0; i < ti->n_insns; i++) {
        struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
        struct insn_info *in = &ti->insns[i];
        uint8_t op[4] = { 0 };

        in->pc = qemu_plugin_insn_vaddr(insn);
        in->size = (uint8_t)insn_extent_size(tb, i, ti->n_insns);
        in->idx = (uint16_t)i;
        in->tb = ti;
        in->staged_head = staged_mem_head(i & STAGED_MEM_MAX_IDX,
                                          (uint32_t)(in->pc - ti->pc));
        qc_insn_bytes(insn, op, in->size < sizeof(op) ? in->size :
                                                        sizeof(op));
        in->opcode = (uint32_t)op[0] | (uint32_t)op[1] << 8 |
                     (uint32_t)op[2] << 16 | (uint32_t)op[3] << 24;
        if (want_disas) {
            in->disas = qemu_plugin_insn_disas(insn);
        }
        size += in->size;
    }
    return size;
}

static void emit_tb_trans(struct qemu_plugin_tb *tb, const struct tb_info *ti)
{
    uint32_t code_len = ti->size;
    struct qtrace_ev_tb_trans *r;
    uint8_t *code;
    uint32_t i, off = 0;

    if (code_len > QTRACE_REC_MAX - QTRACE_EV_TB_TRANS_FIXED) {
        code_len = QTRACE_REC_MAX - QTRACE_EV_TB_TRANS_FIXED;
    }
    r = writer_trans_reserve(qtrace_rec_size(QTRACE_EV_TB_TRANS_FIXED,
                                             code_len));
    if (!r) {
        writer_count_lost(1);
        return;
    }
    r->hdr.id = QTRACE_EV_TB_TRANS;
    r->hdr.size = (uint16_t)qtrace_rec_size(QTRACE_EV_TB_TRANS_FIXED,
                                            code_len);
    r->hdr.reserved = 0;
    r->hdr.time = 0;        /* translations belong to no vCPU */
    r->pc = ti->pc;
    r->tb = ti->id;
    r->size = ti->size;
    r->n_insns = ti->n_insns;
    r->code_len = (uint16_t)code_len;
    code = (uint8_t *)r + QTRACE_EV_TB_TRANS_FIXED;
    for (i = 0; i < ti->n_insns && off < code_len; i++) {
        /* An instruction's executed bytes only (insn-extent.c). */
        uint32_t room = code_len - off;

        off += (uint32_t)qc_insn_bytes(qemu_plugin_tb_get_insn(tb, i),
                                       code + off, ti->insns[i].size < room ?
                                       ti->insns[i].size : room);
    }
    memset(code + off, 0, r->hdr.size - QTRACE_EV_TB_TRANS_FIXED - off);
    writer_trans_commit();
}

static bool tb_in_range(const struct tb_info *ti)
{
    uint32_t i;

    for (i = 0; i < ti->n_insns; i++) {
        if (filter_pc_in_range(&qt.opts.filter, ti->insns[i].pc)) {
            return true;
        }
    }
    return false;
}

/*
 * Accesses as records in a raw stream; as packets in a packed one, full
 * ones when there is a physical address or a value to carry.
 */
static qemu_plugin_vcpu_mem_cb_t pick_mem_cb(void)
{
    if (!qt.pack_mem) {
        return mem_access_cb;
    }
    if (qt.mem_values) {
        return mem_access_full_cb;
    }
    return qt.system_mode ? mem_access_sys_cb : mem_access_packed_cb;
}

static void instrument_insns(struct qemu_plugin_tb *tb, struct tb_info *ti)
{
    const struct filter *f = &qt.opts.filter;
    uint32_t i;

    if (qt.trace_mem) {
        memguard_arm();
    }
    for (i = 0; i < ti->n_insns; i++) {
        struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
        struct insn_info *in = &ti->insns[i];

        if (!filter_pc_in_range(f, in->pc) ||
            !filter_insn_selected(f, in->pc, in->disas)) {
            memguard_insn(insn);
            continue;
        }
        if (qt.trace_exec_insn) {
            qemu_plugin_register_vcpu_insn_exec_cb(insn, vcpu_insn_exec,
                                                   QEMU_PLUGIN_CB_NO_REGS,
                                                   in);
        }
        if (qt.trace_mem) {
            qemu_plugin_register_vcpu_mem_cb(insn, pick_mem_cb(),
                                             QEMU_PLUGIN_CB_NO_REGS,
                                             QEMU_PLUGIN_MEM_RW, in);
        } else {
            memguard_insn(insn);
        }
    }
}

static qemu_plugin_vcpu_udata_cb_t pick_tb_cb(const struct tb_info *ti)
{
    if (qt.trace_flow) {
        return qt.trace_exec_tb ? vcpu_tb_exec_sys : vcpu_tb_count_sys;
    }
    if (qt.trace_calls) {
        static const qemu_plugin_vcpu_udata_cb_t
            count[CALLS_START__COUNT] = {
            [CALLS_START_PLAIN] = vcpu_tb_count_calls_plain,
            [CALLS_START_PLAIN_NOTE] = vcpu_tb_count_calls_note,
            [CALLS_START_INDIRECT] = vcpu_tb_count_calls_indirect,
            [CALLS_START_ENTRY] = vcpu_tb_count_calls_entry,
            [CALLS_START_ENTRY_NOTE] = vcpu_tb_count_calls_entry_note,
            [CALLS_START_ANY] = vcpu_tb_count_calls_any,
        };
        static const qemu_plugin_vcpu_udata_cb_t
            exec[CALLS_START__COUNT] = {
            [CALLS_START_PLAIN] = vcpu_tb_exec_calls_plain,
            [CALLS_START_PLAIN_NOTE] = vcpu_tb_exec_calls_note,
            [CALLS_START_INDIRECT] = vcpu_tb_exec_calls_indirect,
            [CALLS_START_ENTRY] = vcpu_tb_exec_calls_entry,
            [CALLS_START_ENTRY_NOTE] = vcpu_tb_exec_calls_entry_note,
            [CALLS_START_ANY] = vcpu_tb_exec_calls_any,
        };

        return (qt.trace_exec_tb ? exec : count)[calls_start_of(ti)];
    }
    if (!qt.trace_exec_tb) {
        return vcpu_tb_count;
    }
    if (qt.pack_mem) {
        return vcpu_tb_exec_mem;
    }
    /* A lost record after a drop is stamped with the block start too. */
    if (qt.trace_exec_insn || qt.trace_mem || qt.opts.lossy) {
        return vcpu_tb_exec_timed;
    }
    return vcpu_tb_exec;
}

/* Only the filters needed the text; the log sink keeps it. */
static void drop_disas(struct tb_info *ti)
{
    uint32_t i;

    for (i = 0; i < ti->n_insns; i++) {
        free(ti->insns[i].disas);
        ti->insns[i].disas = NULL;
    }
}

/*
 * A block translated while every window is pending (window.h): counted
 * and checked, nothing recorded, no tb_trans (the flush that opens a
 * window drops it). The call tracker keeps its stack all along, so that
 * the window's calls nest right; its records are discarded.
 */
static void instrument_pending(struct qemu_plugin_tb *tb, struct tb_info *ti)
{
    if (qt.trace_calls || qt.trace_flow) {
        qemu_plugin_register_vcpu_tb_exec_cb(tb, window_tb_check,
                                             QEMU_PLUGIN_CB_NO_REGS, ti);
        qemu_plugin_register_vcpu_tb_exec_cb(tb, pick_tb_cb(ti),
                                             QEMU_PLUGIN_CB_NO_REGS, ti);
        return;
    }
    qemu_plugin_register_vcpu_tb_exec_cb(tb, window_tb_count,
                                         QEMU_PLUGIN_CB_NO_REGS, ti);
}

/* The block callback window_tb_exec calls (setup_window). */
static qemu_plugin_vcpu_udata_cb_t window_block_cb;

/*
 * The block's callbacks; in a window, its check first (the window moves
 * at the block start, before records), in the same callback when the
 * block callback is the one window_tb_exec calls (trace-event may have
 * changed it since); a block holding a trigger gets the check that
 * always looks.
 */
static void register_block_cbs(struct qemu_plugin_tb *tb, struct tb_info *ti,
                               enum window_mode mode, bool trigger)
{
    if (mode != WINDOW_MODE_NONE && !trigger && !qt.trace_calls &&
        !qt.trace_flow &&
        pick_tb_cb(ti) == window_block_cb) {
        qemu_plugin_register_vcpu_tb_exec_cb(tb, window_tb_exec,
                                             QEMU_PLUGIN_CB_NO_REGS, ti);
        return;
    }
    if (mode != WINDOW_MODE_NONE) {
        qemu_plugin_register_vcpu_tb_exec_cb(tb, trigger ? window_tb_trigger :
                                                           window_tb_check,
                                             QEMU_PLUGIN_CB_NO_REGS, ti);
    }
    if (qt.need_icount || qt.trace_calls || qt.trace_flow) {
        qemu_plugin_register_vcpu_tb_exec_cb(tb, pick_tb_cb(ti),
                                             QEMU_PLUGIN_CB_NO_REGS, ti);
    }
}

/*
 * tb_count's counter of a block: QEMU's inline add where it is exact
 * (per-vCPU scoreboards, or one vCPU), else a callback adding to the
 * vCPU's own counter (tbcount.h).
 */
static int count_block(struct qemu_plugin_tb *tb, struct tb_info *ti)
{
    if (!__atomic_load_n(&qt.per_vcpu_counts, __ATOMIC_ACQUIRE)) {
        return qc_count_tb(tb, &ti->count, &ti->counts);
    }
    if (tbcount_add(ti) < 0) {
        return -1;
    }
    qemu_plugin_register_vcpu_tb_exec_cb(tb, tbcount_exec,
                                         QEMU_PLUGIN_CB_NO_REGS, ti);
    return 0;
}

/*
 * Every instruction that may change translations, in range or not,
 * makes the access callback forget what it knows (mem.c): before it
 * runs, so that the accesses after it ask QEMU again. So does a reset
 * vCPU's first block.
 */
static void register_flush_cbs(struct qemu_plugin_tb *tb,
                               const struct tb_info *ti)
{
    uint32_t i;

    for (i = 0; i < ti->n_insns; i++) {
        struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
        enum xlate_flush what;
        uint8_t b[16];
        size_t n;

        n = qc_insn_bytes(insn, b, ti->insns[i].size < sizeof(b) ?
                                   ti->insns[i].size : sizeof(b));
        what = xlate_flush_insn(qt.xlate_isa, b, n);
        if (i == 0 && ti->pc == xlate_reset_pc(qt.xlate_isa)) {
            what = XLATE_FLUSH_MAP;
        }
        if (what != XLATE_KEEP) {
            qemu_plugin_register_vcpu_insn_exec_cb(insn, mem_xlate_flush_cb,
                                                   QEMU_PLUGIN_CB_NO_REGS,
                                                   (void *)(uintptr_t)what);
        }
    }
}

static void vcpu_tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
    size_t n = insn_extent_count(tb, qemu_plugin_tb_n_insns(tb));
    bool want_disas = qt.keep_disas ||
                      filter_has_insn_filters(&qt.opts.filter);
    enum window_mode mode;
    struct tb_info *ti;
    bool trigger;

    (void)id;
    instr_tb_trans(tb);
    meta_capture_binary(qemu_plugin_tb_vaddr(tb));
    window_resolve();
    mode = window_translation_mode();
    if (mode == WINDOW_MODE_DONE) {
        /* Every window has closed: QEMU runs this block plain. */
        memguard_tb(tb);
        return;
    }
    ti = tbtab_new((uint32_t)n);
    if (!ti) {
        writer_count_lost(1);
        memguard_tb(tb);
        return;
    }
    ti->pc = qemu_plugin_tb_vaddr(tb);
    ti->size = describe_insns(tb, ti, want_disas);
    if (qt.known_xlate) {
        register_flush_cbs(tb, ti);
    }
    if (qt.trace_flow) {
        flow_tb_trans(tb, ti);
    }
    if (qt.trace_calls && qt.system_mode) {
        calls_sys_tb_trans(tb, ti);
    } else if (qt.trace_calls) {
        calls_tb_trans(tb, ti);
    }
    trigger = window_tb_mark(tb, ti);
    if (!trigger && mode == WINDOW_MODE_PENDING && tb_in_range(ti)) {
        instrument_pending(tb, ti);
        memguard_tb(tb);
        drop_disas(ti);
        return;
    }
    if (!tb_in_range(ti)) {
        memguard_tb(tb);
        if (qt.trace_flow) {
            qemu_plugin_register_vcpu_tb_exec_cb(tb, vcpu_tb_sys_only,
                                                 QEMU_PLUGIN_CB_NO_REGS, ti);
        } else if (qt.trace_calls) {
            qemu_plugin_register_vcpu_tb_exec_cb(tb, vcpu_tb_calls_only,
                                                 QEMU_PLUGIN_CB_NO_REGS, ti);
        }
        return;
    }
    if (qt.trace_tb_trans) {
        emit_tb_trans(tb, ti);
    }
    if (qt.trace_tb_count && count_block(tb, ti) < 0) {
        writer_count_lost(1);
    }
    register_block_cbs(tb, ti, mode, trigger);
    instrument_insns(tb, ti);
    if (!qt.keep_disas) {
        drop_disas(ti);
    }
}

/* ---- counters ---- */

/* Inline counts give END's instruction total when no callback counts. */
static void count_block_insns(const struct tb_info *ti, uint64_t execs)
{
    if (!keeps_icount()) {
        writer_insns_add(execs * ti->n_insns);
    }
}

/*
 * One tb_count record per block executed since the last call, in the
 * translation stream; the counters restart from zero. Runs at exit and
 * from QEMU's flush callback, when no vCPU runs translated code.
 */
static void emit_counts(void)
{
    uint32_t id, max = tbtab_max_id();

    for (id = 1; id <= max; id++) {
        struct tb_info *ti = (struct tb_info *)tbtab_get(id);
        struct qtrace_ev_tb_count *r;
        uint64_t n;

        if (!ti) {
            continue;
        }
        n = qc_count_take(&ti->count, ti->counts);
        if (__atomic_load_n(&qt.per_vcpu_counts, __ATOMIC_ACQUIRE)) {
            n += tbcount_take(ti);
        }
        if (n == 0) {
            continue;
        }
        count_block_insns(ti, n);
        r = writer_trans_reserve(sizeof(*r));
        if (!r) {
            writer_count_lost(1);
            continue;
        }
        r->hdr.id = QTRACE_EV_TB_COUNT;
        r->hdr.size = sizeof(*r);
        r->hdr.reserved = 0;
        r->hdr.time = 0;
        r->tb = id;
        r->count = n;
        writer_trans_commit();
    }
}

static void plugin_flush(qemu_plugin_id_t id)
{
    (void)id;
    if (qt.trace_tb_count) {
        emit_counts();
    }
}

/* ---- exit ---- */

/*
 * The END lines after exit=: how the guest ended (sig > 0: the signal it
 * died of, else its exit status when known) and the call tracker's
 * counters. Static: the writer reads it until it stops.
 */
static void set_end_extra(int sig)
{
    static char extra[512];
    char counts[384] = "";
    int n;

    if (qt.trace_calls && qt.system_mode) {
        calls_sys_fmt_counts(counts, sizeof(counts));
    } else if (qt.trace_calls) {
        calls_fmt_counts(counts, sizeof(counts));
    }
    if (qt.trace_flow) {
        size_t used = strlen(counts);

        flow_fmt_counts(counts + used, sizeof(counts) - used);
    }
    if (sig > 0) {
        n = snprintf(extra, sizeof(extra), "signal=%d\n", sig);
    } else if (atomic_load(&qt.exit_seen)) {
        n = snprintf(extra, sizeof(extra), "status=%d\n",
                     atomic_load(&qt.exit_status));
    } else {
        n = 0;
    }
    snprintf(extra + n, sizeof(extra) - (size_t)n, "%s", counts);
    writer_set_end_extra(extra);
}

/*
 * END's streams= and translations=: the highest stream and translation
 * ids given out, so a reader can refuse ids no writer made (format.md).
 */
static void fmt_end_counts(char *buf, size_t len)
{
    snprintf(buf, len, "streams=%u\ntranslations=%u\n",
             atomic_load(&qt.next_stream) - 1, (unsigned int)tbtab_max_id());
}

/*
 * Write everything recorded and the END chunk, once, at QEMU's exit or
 * just before it dies of signal sig (0: an exit).
 */
static void finish_trace(int sig)
{
    unsigned int i;

    if (atomic_exchange(&qt.exited, true)) {
        return;
    }
    ctl_stop();
    instr_fini_all();
    if (qt.trace_tb_count) {
        emit_counts();
    }
    /*
     * Other vCPU threads may still run (a guest exit_group does not wait
     * for them); what they record from now on is counted as lost.
     */
    for (i = 0; i < MAX_VCPUS; i++) {
        if (vcpus[i].live) {
            stop_stream(&vcpus[i]);
        }
    }
    if (qt.known_xlate && qt.opts.phys_check) {
        mem_phys_check_report();
    }
    set_end_extra(sig);
    writer_stop(sig > 0 ? "signal" : "exit");
}

static void plugin_exit(qemu_plugin_id_t id, void *udata)
{
    (void)id;
    (void)udata;
    finish_trace(0);
}

/* User mode: the guest dies of sig (fatal.h); QEMU exits right after. */
static void guest_killed(int sig)
{
    finish_trace(sig);
}

/* The numbers of exit and exit_group for the target, -1 if unknown. */
static void find_exit_syscalls(void)
{
    const struct qtrace_syscall_table *t =
        qtrace_syscall_table_find(qt.target);
    int64_t nr;

    qt.exit_nr[0] = qt.exit_nr[1] = -1;
    for (nr = 0; t && nr < 1024; nr++) {
        const char *name = qtrace_syscall_name(t, nr);

        if (name && strcmp(name, "exit") == 0) {
            qt.exit_nr[0] = nr;
        } else if (name && strcmp(name, "exit_group") == 0) {
            qt.exit_nr[1] = nr;
        }
    }
}

/* ---- runtime control (ctl/ctl.h) ---- */

static bool ctl_event_is_on(unsigned int id)
{
    return id == QTRACE_EV_TRACE_SWITCH ||
           evsel_is_enabled(&qt.opts.sel, id);
}

/* Make every live vCPU take its slow path at its next record. */
static void nudge_vcpus(void)
{
    unsigned int i;

    for (i = 0; i < MAX_VCPUS; i++) {
        if (__atomic_load_n(&vcpus[i].live, __ATOMIC_ACQUIRE)) {
            vbuf_ask_flush(&vcpus[i].buf);
        }
    }
}

/* The flags translation reads, set at the quiescent point (ctl-events.h). */
static void set_translated_flag(unsigned int id, bool on)
{
    __atomic_store_n(id == QTRACE_EV_MEM_ACCESS ? &qt.trace_mem :
                     &qt.trace_exec_insn, on, __ATOMIC_RELAXED);
}

/*
 * Accesses and instructions are recorded by callbacks placed at
 * translation: switched by a flush of the translations, marked at a
 * block start, so only in a trace of blocks (whose instruction count
 * gives the records their times).
 */
static int ctl_event_set_translated(unsigned int id, bool on)
{
    if (!qt.trace_exec_tb) {
        return -ENOTSUP;
    }
    if (ctl_events_ask(id, on) < 0) {
        return -ENOSPC;
    }
    qt.opts.sel.on[id] = on;
    instr_runtime_request_flush();
    nudge_vcpus();
    return 0;
}

/*
 * The events whose records the callbacks decide on when they run: the
 * others depend on what was instrumented at translation.
 */
static int ctl_event_set(unsigned int id, bool on)
{
    bool *flag;

    switch (id) {
    case QTRACE_EV_SYSCALL:
        flag = &qt.trace_syscall;
        break;
    case QTRACE_EV_SYSCALL_RET:
        flag = &qt.trace_syscall_ret;
        break;
    case QTRACE_EV_ORDER:
        flag = &qt.trace_order;
        break;
    case QTRACE_EV_VCPU_INIT:
    case QTRACE_EV_VCPU_EXIT:
        flag = &qt.trace_vcpu;
        break;
    case QTRACE_EV_MEM_ACCESS:
    case QTRACE_EV_EXEC_INSN:
        return ctl_event_set_translated(id, on);
    default:
        return -EAGAIN;
    }
    qt.opts.sel.on[id] = on;
    if (id == QTRACE_EV_VCPU_INIT || id == QTRACE_EV_VCPU_EXIT) {
        on = qt.opts.sel.on[QTRACE_EV_VCPU_INIT] ||
             qt.opts.sel.on[QTRACE_EV_VCPU_EXIT];
    }
    __atomic_store_n(flag, on, __ATOMIC_RELAXED);
    return 0;
}

static const struct ctl_ops plugin_ctl_ops = {
    .cat = &qt.cat,
    .event_is_on = ctl_event_is_on,
    .event_set = ctl_event_set,
    .instr_load = instr_runtime_load,
    .instr_unload = instr_runtime_unload,
    .instr_info = instr_runtime_info,
};

static void prefix_err(struct qtrace_err *err, const char *prefix);

/* ctl=: the socket, before the outputs (a refusal leaves no file). */
static int start_ctl(struct qtrace_err *err)
{
    static struct ctl_ops ops;

    if (!qt.opts.ctl) {
        return 0;
    }
    /* The default output, as open_sinks will choose it. */
    if (!qt.opts.out && !qt.opts.log && !qt.opts.etrace &&
        !qt.opts.uftrace) {
        qt.opts.out = strdup("qtrace.qtr");
    }
    ops = plugin_ctl_ops;
    ops.out = qt.opts.out;
    /* A recording vCPU asked to flush issues instr-load's flush too. */
    vbuf_slow_hook = instr_poll;
    writer_keep_translations();
    if (ctl_start(qt.opts.ctl, &ops, err) < 0) {
        prefix_err(err, "ctl=");
        return -1;
    }
    return 0;
}

/* ---- install ---- */

/*
 * The events the etrace sink turns into its records (docs/etrace.md);
 * like log=, they land in out= too.
 */
static void choose_etrace_events(struct evsel *sel, uint32_t flags)
{
    if (flags & ETRACE_F_EXEC) {
        evsel_enable(sel, QTRACE_EV_EXEC_TB);
    }
    if (flags & ETRACE_F_DISAS) {
        evsel_enable(sel, QTRACE_EV_TB_TRANS);
    }
    /* Device accesses exist in system mode only. */
    if ((flags & ETRACE_F_MEM) ||
        ((flags & ETRACE_F_GPIO) && qt.system_mode)) {
        evsel_enable(sel, QTRACE_EV_MEM_ACCESS);
    }
    /* Records of vCPUs go out in the run's order (etrace-enc.h). */
    evsel_enable(sel, QTRACE_EV_ORDER);
    if (flags & ETRACE_F_CPU) {
        evsel_enable(sel, QTRACE_EV_VCPU_INIT);
        evsel_enable(sel, QTRACE_EV_VCPU_EXIT);
        evsel_enable(sel, QTRACE_EV_SYSCALL);
        evsel_enable(sel, QTRACE_EV_SYSCALL_RET);
    }
}

/*
 * Whether a block callback must keep the vCPU's instruction count: every
 * event but these few carries a meaningful time. Without it, counting
 * mode costs only QEMU's inline additions.
 */
static bool needs_icount(const struct evsel *sel)
{
    /* A stamp's time matters only to records that have one. */
    static const unsigned int timeless[] = {
        QTRACE_EV_TB_COUNT, QTRACE_EV_TB_TRANS, QTRACE_EV_VCPU_INIT,
        QTRACE_EV_VCPU_EXIT, QTRACE_EV_CLOCK,
    };
    unsigned int id, i;

    for (id = 1; id < QTRACE_EV__COUNT; id++) {
        bool skip = false;

        for (i = 0; i < sizeof(timeless) / sizeof(timeless[0]); i++) {
            skip |= timeless[i] == id;
        }
        if (!skip && evsel_is_enabled(sel, id)) {
            return true;
        }
    }
    return false;
}

/*
 * Whether a memory callback may ask QEMU for a device's name: QEMU 8.2
 * and later, or one vCPU. Before 8.2, QEMU answers from a memory region
 * section it finds through the vCPU's TLB and a dispatch table that
 * another vCPU thread replaces when the guest changes the memory map
 * (PCI BARs), before this vCPU's TLB is flushed: the section can be
 * outside the new table, and QEMU dies of SIGSEGV reading its region's
 * name (docs/kernel.md). With one vCPU nothing replaces it under a
 * running one.
 */
static bool device_names_safe(void)
{
    if (devname_qemu_safe(qt.qemu_version)) {
        return true;
    }
    return qt.system_mode && qt.max_vcpus == 1;
}

/*
 * Whether tb_count needs tbcount.h's per-vCPU counters from the start,
 * set up if it may need them. QEMU 7.2-8.2 (API 1) have one inline
 * counter per block for all vCPUs and add to it without atomics: exact
 * only while one vCPU runs at a time. In system mode the vCPUs are known
 * at start: one (-smp 1, no hot-plug) keeps the inline add. A user-mode
 * guest starts with one thread and may start more at any time: it
 * switches when it does (counters_vcpu_start).
 */
static bool choose_counters(void)
{
    int n = qt.system_mode ? qt.max_vcpus : -1;

    if (qc_api() >= 2) {
        return false;
    }
    if (n == 1 || tbcount_setup(n > 1 ? (unsigned int)n : 8) < 0) {
        return false;
    }
    qt.counts_may_switch = !qt.system_mode;
    return qt.system_mode;
}

/*
 * Whether user_event is recorded: the libraries learn it when they load,
 * before the rest is chosen (choose_instrumentation needs to know what
 * they registered).
 */
static void choose_user_event(void)
{
    if (qt.opts.n_instr && !qt.opts.events_given) {
        /* What a loaded library writes is recorded unless events= says. */
        evsel_enable(&qt.opts.sel, QTRACE_EV_USER_EVENT);
    }
    qt.trace_user_event = evsel_is_enabled(&qt.opts.sel,
                                           QTRACE_EV_USER_EVENT);
}

/*
 * System mode: the call tracker of system mode (calls-sys.h), whose
 * records need func_stack to be read (docs/calls.md), and the block
 * follower (flow.h) that tells it and trap_entry / trap_return of
 * interrupts, exceptions and system calls.
 */
static void choose_system_calls(struct evsel *sel)
{
    bool entry = evsel_is_enabled(sel, QTRACE_EV_FUNC_ENTRY);
    bool exit = evsel_is_enabled(sel, QTRACE_EV_FUNC_EXIT);

    if (entry || exit) {
        evsel_enable(sel, QTRACE_EV_FUNC_STACK);
    }
    qt.trace_calls = calls_sys_setup(qt.target, entry, exit,
                                     evsel_is_enabled(sel,
                                                      QTRACE_EV_FUNC_STACK),
                                     instr_wants_func_entry(),
                                     instr_wants_func_exit());
    qt.trace_flow = flow_setup(qt.target,
                               evsel_is_enabled(sel, QTRACE_EV_TRAP_ENTRY),
                               evsel_is_enabled(sel, QTRACE_EV_TRAP_RETURN),
                               qt.trace_calls);
    if (!qt.trace_flow &&
        (evsel_is_enabled(sel, QTRACE_EV_TRAP_ENTRY) ||
         evsel_is_enabled(sel, QTRACE_EV_TRAP_RETURN))) {
        fprintf(stderr, "qtrace: trap_*: no block follower for %s, no "
                "trap events\n", qt.target);
    }
}

/* Turn the selection into the flags the callbacks test. */
static void choose_instrumentation(void)
{
    struct evsel *sel = &qt.opts.sel;
    bool follow_entries;           /* calls need the images' symbols */

    if (qt.opts.log) {
        /* The text log is made of these two; they land in out= too. */
        evsel_enable(sel, QTRACE_EV_EXEC_INSN);
        evsel_enable(sel, QTRACE_EV_MEM_ACCESS);
        qt.keep_disas = true;
    }
    if (qt.opts.etrace) {
        choose_etrace_events(sel, qt.opts.etrace_flags);
    }
    if (qt.opts.uftrace) {
        /* The uftrace directory is made of calls, named through maps. */
        evsel_enable(sel, QTRACE_EV_FUNC_ENTRY);
        evsel_enable(sel, QTRACE_EV_FUNC_EXIT);
        evsel_enable(sel, QTRACE_EV_IMAGE_MAP);
    }
    qt.trace_tb_trans = evsel_is_enabled(sel, QTRACE_EV_TB_TRANS);
    qt.trace_exec_tb = evsel_is_enabled(sel, QTRACE_EV_EXEC_TB);
    qt.trace_exec_insn = evsel_is_enabled(sel, QTRACE_EV_EXEC_INSN);
    qt.trace_mem = evsel_is_enabled(sel, QTRACE_EV_MEM_ACCESS);
    qt.trace_vcpu = evsel_is_enabled(sel, QTRACE_EV_VCPU_INIT) ||
                    evsel_is_enabled(sel, QTRACE_EV_VCPU_EXIT);
    qt.trace_syscall = evsel_is_enabled(sel, QTRACE_EV_SYSCALL);
    qt.trace_syscall_ret = evsel_is_enabled(sel, QTRACE_EV_SYSCALL_RET);
    qt.trace_order = evsel_is_enabled(sel, QTRACE_EV_ORDER);
    /* timeline=on is the clock event: stamps per chunk and pause. */
    if (qt.opts.timeline) {
        evsel_enable(sel, QTRACE_EV_CLOCK);
    }
    qt.trace_clock = evsel_is_enabled(sel, QTRACE_EV_CLOCK);
    /* Libraries that ask for function entries or exits get the tracker. */
    if (qt.system_mode) {
        choose_system_calls(sel);
    } else {
        qt.trace_calls = calls_setup(qt.target, qt.system_mode,
                                     evsel_is_enabled(sel,
                                                      QTRACE_EV_FUNC_ENTRY),
                                     evsel_is_enabled(sel,
                                                      QTRACE_EV_FUNC_EXIT),
                                     instr_wants_func_entry(),
                                     instr_wants_func_exit());
    }
    if (!qt.trace_calls &&
        (evsel_is_enabled(sel, QTRACE_EV_FUNC_ENTRY) ||
         evsel_is_enabled(sel, QTRACE_EV_FUNC_EXIT))) {
        fprintf(stderr, "qtrace: func_*: no call decoder for %s, no "
                "function events\n", qt.target);
    }
    /*
     * Calls follow the images too: their function entries tell tail calls
     * made by plain jumps (entries.h).
     */
    follow_entries = !qt.system_mode && qt.trace_calls && entries_setup();
    qt.trace_maps = !qt.system_mode &&
                    (evsel_is_enabled(sel, QTRACE_EV_IMAGE_MAP) ||
                     follow_entries) &&
                    maps_setup(qt.target,
                               evsel_is_enabled(sel, QTRACE_EV_IMAGE_MAP));
    qt.trace_tb_count = evsel_is_enabled(sel, QTRACE_EV_TB_COUNT);
    qt.per_vcpu_counts = qt.trace_tb_count && choose_counters();
    /* Asking QEMU about every device access can kill it (mmio-cache.h). */
    qt.mmio_cache = qt.system_mode && qt.trace_mem && qt.max_vcpus != 1 &&
                    mmio_cache_setup() == 0;
    /* A window counts every vCPU's instructions. */
    qt.need_icount = needs_icount(sel) || window_is_set(&qt.opts.window);
    /*
     * A packed block names its translation only by id: a reader (and the
     * sinks that read records, through the same unpacker) needs the
     * tb_trans records to expand it, so they come along.
     */
    qt.packed = qt.opts.packed;
    if (qt.packed && qt.trace_exec_tb) {
        evsel_enable(sel, QTRACE_EV_TB_TRANS);
        qt.trace_tb_trans = true;
    }
    /* Physical addresses and values go in full memory packets. */
    qt.mem_values = qc_api() >= 4 && qemu_plugin_mem_get_value;
    qt.pack_mem = qt.packed && qt.trace_exec_tb && qt.trace_mem;
    /*
     * Accesses go through the writer's access predictor (docs/format.md,
     * "Predicted accesses"), in system mode with the translation cache
     * that gives their physical addresses; accesses with values keep
     * their full packets. Decided for the whole run, so that each
     * stream's chunks all read the same way, also when trace-event
     * switches mem_access.
     */
    qt.pack_accesses = qt.packed && qt.trace_exec_tb && !qt.mem_values;
    /*
     * In system mode a vCPU keeps what QEMU said of a page's physical
     * address until an instruction may change it, where the changes are
     * told from the instructions (xlate-flush.h); elsewhere it asks for
     * every access.
     */
    qt.xlate_isa = xlate_isa_of(qt.target);
    qt.known_xlate = qt.pack_accesses && qt.system_mode && qt.trace_mem &&
                     qt.xlate_isa != XLATE_ISA_NONE;
}

/* The first window option given, for messages. */
static const char *window_option(const struct window_spec *spec)
{
    if (spec->start.how != WHEN_NONE) {
        return "start-at=";
    }
    if (spec->stop.how != WHEN_NONE) {
        return "stop-at=";
    }
    return spec->has_stop_after ? "stop-after=" : "snapshot-at=";
}

/* Why a control command may not arm a window later (window.h). */
static const char *window_arm_refusal(void)
{
    if (qt.trace_tb_count) {
        return "no window with tb_count recorded (its counters are "
               "QEMU's, for the whole run)";
    }
    if (!qt.need_icount) {
        return "this run counts no instructions per vCPU (record exec_tb, "
               "or start it with a window option)";
    }
    return NULL;
}

/*
 * start-at=, stop-at=, stop-after=, snapshot-at= (window.h); armed in
 * any case, for the control commands. Inline block counters count in
 * QEMU's code, for every vCPU at all times: no window can cut them.
 */
static int setup_window(struct qtrace_err *err)
{
    const struct window_spec *spec = &qt.opts.window;
    struct window_hooks hooks = {
        .ask_flush = instr_runtime_request_flush,
        .poll = instr_poll,
        .nudge = nudge_vcpus,
    };

    if (window_is_set(spec) && qt.trace_tb_count) {
        qtrace_err_set(err, "tb_count: cannot be recorded with %s (its "
                       "counters are QEMU's, for the whole run)",
                       window_option(spec));
        return -1;
    }
    if (spec->snap.how != WHEN_NONE && !qt.opts.ring_bytes) {
        char when[160];

        window_when_fmt(&spec->snap, when, sizeof(when));
        qtrace_err_set(err, "snapshot-at=%s: needs the flight recorder "
                       "(ring=SIZE): a snapshot writes its rings", when);
        return -1;
    }
    /* Without the call tracker, the block callback is the same for all. */
    window_block_cb = qt.trace_calls || qt.trace_flow ? NULL
                                                      : pick_tb_cb(NULL);
    hooks.block_cb = window_block_cb;
    hooks.arm_refusal = window_arm_refusal();
    window_setup(spec, qt.target, qt.system_mode, &hooks);
    return 0;
}

/* "PATH: reason" becomes "out=PATH: reason", naming the option. */
static void prefix_err(struct qtrace_err *err, const char *prefix)
{
    char msg[sizeof(err->msg)];

    snprintf(msg, sizeof(msg), "%s", err->msg);
    qtrace_err_set(err, "%s%s", prefix, msg);
}

/*
 * The events the user selected, before other sinks add what they are
 * made of: only these reach backend=.
 */
static bool backend_events[QTRACE_MAX_EVENTS];

static int open_backends(struct sink **sinks, size_t *n_sinks,
                         struct qtrace_err *err)
{
    struct sink_backends_cfg cfg = {
        .mask = qt.opts.backends, .cat = &qt.cat,
        .selected = backend_events,
        .simple_path = qt.opts.backend_file,
        .log_path = qt.opts.backend_log,
    };

    if (!qt.opts.backends) {
        return 0;
    }
    sinks[*n_sinks] = sink_backends_new(&cfg, err);
    if (!sinks[*n_sinks]) {
        return -1;
    }
    (*n_sinks)++;
    return 0;
}

static int open_sinks(struct sink **sinks, size_t *n_sinks,
                      struct qtrace_err *err)
{
    *n_sinks = 0;
    /* First: a backend that cannot start leaves no output file behind. */
    if (open_backends(sinks, n_sinks, err) < 0) {
        return -1;
    }
    if (!qt.opts.out && !qt.opts.log && !qt.opts.etrace &&
        !qt.opts.uftrace) {
        qt.opts.out = strdup("qtrace.qtr");
    }
    if (qt.opts.out) {
        struct sink_file_cfg cfg = {
            .path = qt.opts.out, .meta = meta_text,
            .info = meta_info_text,
            .catalog = qt.cat.text, .compress = qt.opts.compress,
            .zstd_level = qt.opts.zstd_level,
        };

        sinks[*n_sinks] = sink_file_new(&cfg, err);
        if (!sinks[*n_sinks]) {
            prefix_err(err, "out=");
            return -1;
        }
        (*n_sinks)++;
    }
    if (qt.opts.log) {
        sinks[*n_sinks] = sink_log_new(qt.opts.log, &qt.cat, err);
        if (!sinks[*n_sinks]) {
            prefix_err(err, "log=");
            return -1;
        }
        (*n_sinks)++;
    }
    if (qt.opts.etrace) {
        struct sink_etrace_cfg ecfg = {
            .target = qt.opts.etrace, .arch = qt.target, .cat = &qt.cat,
            .flags = qt.opts.etrace_flags, .stop_on_loss = qt.opts.etrace_stop,
            .wait_s = qt.opts.etrace_wait_s,
            .stall_s = qt.opts.etrace_stall_s,
        };

        sinks[*n_sinks] = sink_etrace_new(&ecfg, err);
        if (!sinks[*n_sinks]) {
            prefix_err(err, "etrace=");
            return -1;
        }
        (*n_sinks)++;
    }
    if (qt.opts.uftrace) {
        sinks[*n_sinks] = sink_uftrace_new(qt.opts.uftrace, meta_text,
                                           &qt.cat, err);
        if (!sinks[*n_sinks]) {
            prefix_err(err, "uftrace=");
            return -1;
        }
        (*n_sinks)++;
    }
    return 0;
}

static void register_callbacks(qemu_plugin_id_t id)
{
    qemu_plugin_register_vcpu_init_cb(id, vcpu_init);
    qemu_plugin_register_vcpu_exit_cb(id, vcpu_exit);
    qemu_plugin_register_vcpu_tb_trans_cb(id, vcpu_tb_trans);
    /*
     * Always: a system call parks the vCPU for the flush interval, and
     * exit_group carries the guest's exit status.
     */
    qemu_plugin_register_vcpu_syscall_cb(id, vcpu_syscall);
    qemu_plugin_register_vcpu_syscall_ret_cb(id, vcpu_syscall_ret);
    if (qt.system_mode) {
        qemu_plugin_register_vcpu_idle_cb(id, vcpu_idle);
        qemu_plugin_register_vcpu_resume_cb(id, vcpu_resume);
    }
    qemu_plugin_register_flush_cb(id, plugin_flush);
    qemu_plugin_register_atexit_cb(id, plugin_exit, NULL);
    /* After a reset: no vCPU is in translated code (instr.h). */
    if (ctl_events_apply(set_translated_flag) | window_quiescent()) {
        nudge_vcpus();
    }
    instr_quiescent();
}

static qemu_plugin_id_t plugin_id;

/*
 * QEMU's one way to drop translations: reset the plugin, which removes
 * its callbacks, flushes, then lets it register them again.
 */
static void flush_translations(void)
{
    qemu_plugin_reset(plugin_id, register_callbacks);
}

/*
 * The libraries' own events join the catalog, after the plugin's, before
 * any sink writes it: the trace carries them (docs/format.md). They are
 * recorded, and reach backend=, when user_event is recorded.
 */
static int add_library_events(struct qtrace_err *err)
{
    unsigned int first, n, id;
    const char *lines = instr_events_catalog(&first, &n);
    struct qtrace_catalog merged;
    size_t len;
    char *text;
    int ret;

    if (!lines) {
        return 0;
    }
    len = strlen(qt.cat.text) + strlen(lines) + 2;
    text = malloc(len);
    if (!text) {
        qtrace_err_set(err, "library events: %s", strerror(ENOMEM));
        return -1;
    }
    snprintf(text, len, "%s%s%s", qt.cat.text,
             qt.cat.text[0] && qt.cat.text[strlen(qt.cat.text) - 1] != '\n'
                 ? "\n" : "", lines);
    ret = qtrace_catalog_parse(&merged, text, err);
    free(text);
    if (ret < 0) {
        prefix_err(err, "library events: catalog line ");
        return -1;
    }
    qtrace_catalog_fini(&qt.cat);
    qt.cat = merged;
    for (id = first; id < first + n && qt.trace_user_event; id++) {
        evsel_enable(&qt.opts.sel, id);
        /* Loading the library asked for them, as an events= would. */
        backend_events[id] = true;
    }
    return 0;
}

__attribute__((visibility("default")))
int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info,
                        int argc, char **argv)
{
    static struct sink *sinks[MAX_SINKS];
    struct writer_cfg cfg;
    struct qtrace_err err = { "" };
    char msg[256] = "";
    size_t n_sinks;

    if (qc_init(info, msg, sizeof(msg)) < 0) {
        fprintf(stderr, "qtrace: %s\n", msg);
        return -1;
    }
    if (msg[0]) {
        fprintf(stderr, "qtrace: %s\n", msg);
    }
    plugin_id = id;
    qt.system_mode = info->system_emulation;
    qt.max_vcpus = qt.system_mode ? info->system.max_vcpus : -1;
    snprintf(qt.target, sizeof(qt.target), "%s", info->target_name);
    insn_extent_setup(qt.target, qc_api());
    snprintf(qt.qemu_version, sizeof(qt.qemu_version), "%s",
             qc_qemu_version(info->target_name));
    memguard_setup(qc_api(), qt.qemu_version);
    qt.device_names = device_names_safe();
    atomic_init(&qt.next_stream, 1);
    writer_set_end_counts(fmt_end_counts);
    if (qtrace_catalog_parse(&qt.cat, qtrace_catalog_text, &err) < 0) {
        fprintf(stderr, "qtrace: built-in catalog: %s\n", err.msg);
        return -1;
    }
    options_init(&qt.opts, &qt.cat);
    if (options_parse(&qt.opts, argc, argv, &err) < 0) {
        fprintf(stderr, "qtrace: %s\n", err.msg);
        return -1;
    }
    memcpy(backend_events, qt.opts.sel.on, sizeof(backend_events));
    choose_user_event();
    /* Before any thread starts: a refused library leaves nothing behind. */
    if (instr_load_all(qt.opts.instr, qt.opts.n_instr, &(struct instr_env){
            .target = qt.target, .system_mode = qt.system_mode,
            .qemu_api = qc_api(), .device_names = qt.device_names,
            .emit_user = qt.trace_user_event ? emit_user_event : NULL,
            .emit_user_trans = qt.trace_user_event ? emit_user_event_trans :
                                                     NULL,
            .flush_translations = flush_translations,
            .calls = calls_available(qt.target),
            .builtin_events = qt.cat.n_events,
            .emit_record = qt.trace_user_event ? emit_lib_record : NULL },
            &err) < 0 || add_library_events(&err) < 0) {
        fprintf(stderr, "qtrace: %s\n", err.msg);
        return -1;
    }
    choose_instrumentation();
    if (setup_window(&err) < 0) {
        fprintf(stderr, "qtrace: %s\n", err.msg);
        return -1;
    }
    mem_setup(&(struct mem_cfg){
        .packets = qt.pack_mem, .system_mode = qt.system_mode,
        .values = qt.mem_values,
        .device_names = qt.device_names,
        .mmio_cache = qt.mmio_cache,
        .known_xlate = qt.known_xlate && !qt.opts.phys_check,
        .phys_check = qt.known_xlate && qt.opts.phys_check,
    });
    meta_setup(&(struct meta_cfg){
        .target = qt.target, .qemu_version = qt.qemu_version,
        .system_mode = qt.system_mode, .trace_maps = qt.trace_maps,
        .sel = &qt.opts.sel, .timeline = qt.trace_clock,
    });
    if (start_ctl(&err) < 0) {
        fprintf(stderr, "qtrace: %s\n", err.msg);
        return -1;
    }
    if (open_sinks(sinks, &n_sinks, &err) < 0) {
        fprintf(stderr, "qtrace: %s\n", err.msg);
        ctl_stop();
        return -1;
    }
    cfg.chunk_bytes = qt.opts.chunk_bytes;
    cfg.buffer_bytes = qt.opts.buffer_bytes;
    writer_set_status_file(qt.opts.status_file);
    /* A ring is written at snapshots only: no interval to keep. */
    cfg.flush_ms = qt.opts.ring_bytes ? 0 : qt.opts.flush_ms;
    cfg.ring_bytes = qt.opts.ring_bytes;
    if (writer_start(&cfg, sinks, n_sinks, &err) < 0) {
        fprintf(stderr, "qtrace: %s\n", err.msg);
        return -1;
    }
    if (keeps_icount() || qt.trace_tb_count) {
        writer_insns_enable();
    }
    find_exit_syscalls();
    if (!qt.system_mode) {
        /* Without it, a guest killed by a signal loses flush= ms. */
        fatal_hook_install(guest_killed);
    }
    instr_runtime_start();
    register_callbacks(id);
    return 0;
}
