/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The memory callback (see mem.h). It runs for every load and store, so
 * what QEMU makes costly to ask (four calls to decode a meminfo) is
 * cached per instruction.
 */
#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "qtrace-events.h"
#include "../../format/chunk.h"
#include "devname.h"
#include "mem.h"
#include "mmio-cache.h"
#include "../buffer/pack.h"
#include "../core/tbtab.h"
#include "../core/vcpu.h"
#include "xlate-flush.h"

static struct mem_cfg cfg;

void mem_setup(const struct mem_cfg *c)
{
    cfg = *c;
}

/*
 * The packed info byte of a meminfo value. QEMU decodes meminfo only
 * through four calls; an instruction's accesses nearly always share one
 * value, or two (x86's read-modify-write: a load and a store), so each
 * instruction keeps its last two decoded, in the cache line the
 * callback reads anyway, read and written whole (a race between vCPUs
 * only recomputes the same value): key << 32, then word 0 of the
 * instruction's short staged accesses with these bits (pack.h,
 * STAGED_SMEM), whose top bit says the entry is valid; an instruction
 * with no short form (its index above STAGED_SMEM_MAX_IDX) has
 * MEMINFO_LONG instead of its index, a bit no short word has. The
 * common case then stages its 8 bytes from the entry and the address
 * alone.
 */
#define MEMINFO_VALID STAGED_SMEM
#define MEMINFO_LONG 0x40000000u

_Static_assert((PACKED_MEM_SHIFT_MASK | PACKED_MEM_STORE | PACKED_MEM_SIGNED |
                PACKED_MEM_BIG_ENDIAN) == STAGED_SMEM_MAX_INFO,
               "a user-mode access's bits fit the short staged form");

/* The decoded bits of a valid entry. */
static inline uint8_t meminfo_entry_bits(uint64_t e)
{
    return staged_smem_info((uint32_t)e);
}

static uint8_t __attribute__((noinline))
decode_meminfo(qemu_plugin_meminfo_t info, const struct insn_info *in)
{
    _Atomic uint64_t *slot = (_Atomic uint64_t *)&in->meminfo;
    uint8_t bits = (uint8_t)qemu_plugin_mem_size_shift(info);

    if (qemu_plugin_mem_is_store(info)) {
        bits |= PACKED_MEM_STORE;
    }
    if (qemu_plugin_mem_is_sign_extended(info)) {
        bits |= PACKED_MEM_SIGNED;
    }
    if (qemu_plugin_mem_is_big_endian(info)) {
        bits |= PACKED_MEM_BIG_ENDIAN;
    }
    /* The second slot when the first holds another value already. */
    if (atomic_load_explicit(slot, memory_order_relaxed) & MEMINFO_VALID) {
        slot = (_Atomic uint64_t *)&in->meminfo2;
    }
    atomic_store_explicit(slot, (uint64_t)info << 32 | MEMINFO_VALID |
                          staged_smem_word0(in->idx <= STAGED_SMEM_MAX_IDX ?
                                            staged_smem_head(in->idx) :
                                            MEMINFO_LONG, bits),
                          memory_order_relaxed);
    return bits;
}

/* The cached value e holds the decoded bits of info. */
static inline bool meminfo_cached(uint64_t e, qemu_plugin_meminfo_t info)
{
    return (e >> 32) == info && (e & MEMINFO_VALID);
}

/* The cached entry of info in either slot of in, or 0. */
static inline uint64_t meminfo_find(qemu_plugin_meminfo_t info,
                                    const struct insn_info *in)
{
    uint64_t e = atomic_load_explicit((_Atomic uint64_t *)&in->meminfo,
                                      memory_order_relaxed);

    if (__builtin_expect(meminfo_cached(e, info), 1)) {
        return e;
    }
    e = atomic_load_explicit((_Atomic uint64_t *)&in->meminfo2,
                             memory_order_relaxed);
    return meminfo_cached(e, info) ? e : 0;
}

static inline uint8_t meminfo_bits(qemu_plugin_meminfo_t info,
                                   const struct insn_info *in)
{
    uint64_t e = meminfo_find(info, in);

    if (e) {
        return meminfo_entry_bits(e);
    }
    return decode_meminfo(info, in);
}

static uint64_t mem_value(qemu_plugin_meminfo_t info);

/* Where a system-mode access went, as QEMU (or mmio-cache.h) tells. */
struct phys {
    bool known;                 /* paddr is set */
    bool io;                    /* a device, not RAM */
    uint64_t paddr;
    uint32_t dev_len;
    char dev[MMIO_DEV_MAX];
};

static void __attribute__((noinline))
phys_of(qemu_plugin_meminfo_t info, uint64_t vaddr,
        const struct insn_info *in, struct phys *p)
{
    struct qemu_plugin_hwaddr *hw;
    struct mmio_hit hit;

    p->known = p->io = false;
    p->paddr = 0;
    p->dev_len = 0;
    if (cfg.mmio_cache && mmio_cache_find(in, vaddr, &hit)) {
        p->known = p->io = true;
        p->paddr = hit.paddr;
        p->dev_len = hit.dev_len;
        memcpy(p->dev, hit.dev, hit.dev_len);
        return;
    }
    hw = qemu_plugin_get_hwaddr(info, vaddr);
    if (!hw) {
        return;
    }
    p->known = true;
    p->paddr = qemu_plugin_hwaddr_phys_addr(hw);
    if (!qemu_plugin_hwaddr_is_io(hw)) {
        return;
    }
    p->io = true;
    /* A name only where asking cannot crash QEMU (mem.h). */
    if (cfg.device_names) {
        p->dev_len = (uint32_t)devname_format(
            qemu_plugin_hwaddr_device_name(hw), p->paddr, p->dev,
            sizeof(p->dev));
    }
    if (cfg.mmio_cache) {
        mmio_cache_add(in, vaddr, p->paddr, p->dev, p->dev_len);
        atomic_store_explicit(&((struct insn_info *)in)->device, 1,
                              memory_order_relaxed);
    }
}

/*
 * An access as a mem_access record: raw streams, system mode. p: where
 * it went if known already, else NULL.
 */
static void __attribute__((noinline))
mem_record(struct vcpu *vc, qemu_plugin_meminfo_t info, uint64_t vaddr,
           const struct insn_info *in, const struct phys *p)
{
    struct qtrace_ev_mem_access *r;
    uint8_t bits = meminfo_bits(info, in);
    uint8_t flags = packed_mem_flags(bits);
    struct phys here;
    uint64_t paddr = 0;
    uint32_t dev_len = 0;

    if (cfg.system_mode && !p) {
        phys_of(info, vaddr, in, &here);
        p = &here;
    }
    if (p && p->known) {
        flags |= QTRACE_MEM_HAS_PADDR;
        paddr = p->paddr;
        if (p->io) {
            flags |= QTRACE_MEM_IO;
            dev_len = p->dev_len;
        }
    }
    r = emit(vc, QTRACE_EV_MEM_ACCESS,
             qtrace_rec_size(QTRACE_EV_MEM_ACCESS_FIXED, dev_len),
             vc->tb_time + in->idx);
    r->pc = in->pc;
    r->vaddr = vaddr;
    r->paddr = paddr;
    r->size = packed_mem_size(bits);
    r->value = 0;
    if (cfg.values) {
        r->value = mem_value(info);
        flags |= QTRACE_MEM_HAS_VALUE;
    }
    r->flags = flags;
    r->device_len = (uint16_t)dev_len;
    if (dev_len) {
        memcpy((uint8_t *)r + QTRACE_EV_MEM_ACCESS_FIXED, p->dev, dev_len);
    }
}

void mem_access_cb(unsigned int vcpu_index, qemu_plugin_meminfo_t info,
                   uint64_t vaddr, void *udata)
{
    struct vcpu *vc = vcpu_of(vcpu_index);

    if (vc) {
        mem_record(vc, info, vaddr, udata, NULL);
    }
}

/* The staged access (pack.h, STAGED_MEM) at p: head, then the address. */
static inline void stage_access(uint8_t *p, const struct insn_info *in,
                                uint8_t bits, uint64_t vaddr)
{
    uint64_t head = in->staged_head | bits;

    memcpy(p, &head, sizeof(head));
    memcpy(p + sizeof(head), &vaddr, sizeof(vaddr));
}

/* The 8 bytes of a short access at p: word 0 w0, then the address. */
static inline void stage_short(uint8_t *p, uint32_t w0, uint64_t vaddr)
{
    uint64_t w = staged_smem(w0, vaddr);

    memcpy(p, &w, sizeof(w));
}

/*
 * Whether the access's instruction is of the block the vCPU runs. QEMU
 * also calls back for accesses no instruction of the block makes (7.2
 * delivering an interrupt: the IDT's and the TSS's loads, the frame's
 * stores), naming the last instruction that had callbacks: such an
 * access keeps its record, whose pc is that instruction's as in a raw
 * trace, since a staged access's pc counts from the current block.
 * User mode has none (QEMU's own accesses to guest memory there, a
 * signal frame or a system call's buffers, make no callback), so its
 * fast path does not ask; t071 compares with raw traces.
 */
static inline bool in_current_block(const struct vcpu *vc,
                                    const struct insn_info *in)
{
    return in->tb->id == vc->cur_tb;
}

/* Everything mem_access_packed_cb leaves to a call. */
static void __attribute__((noinline))
mem_packed_slow(struct vcpu *vc, qemu_plugin_meminfo_t info, uint64_t vaddr,
                const struct insn_info *in)
{
    uint8_t *p, bits;

    if (!vc->buf.pack || !in_current_block(vc, in)) {
        /* No packing state (a raw stream), or a stray access. */
        mem_record(vc, info, vaddr, in, NULL);
        return;
    }
    p = vbuf_reserve(&vc->buf, STAGED_MEM_BYTES);
    bits = meminfo_bits(info, in);
    if ((vaddr >> STAGED_SMEM_VADDR_BITS) == 0 &&
        in->idx <= STAGED_SMEM_MAX_IDX) {
        stage_short(p, staged_smem_word0(staged_smem_head(in->idx), bits),
                    vaddr);
        pack_commit(&vc->buf, p + STAGED_SMEM_BYTES);
        return;
    }
    stage_access(p, in, bits, vaddr);
}

/* Everything but mem_access_packed_cb's common case. */
static void __attribute__((noinline))
mem_packed_any(unsigned int vcpu_index, qemu_plugin_meminfo_t info,
               uint64_t vaddr, const struct insn_info *in)
{
    struct vcpu *vc = vcpu_of(vcpu_index);

    if (vc) {
        mem_packed_slow(vc, info, vaddr, in);
    }
}

/*
 * Run for every access: the common case (the first decoded meminfo
 * cached, with a short form, an address below 2^47, room in the chunk)
 * stores 8 bytes made of the cached entry and the address, and makes no
 * call, so it saves no registers. The writer thread predicts and
 * encodes (pack.c).
 */
void mem_access_packed_cb(unsigned int vcpu_index, qemu_plugin_meminfo_t info,
                          uint64_t vaddr, void *udata)
{
    const struct insn_info *in = udata;
    uint64_t e = atomic_load_explicit((_Atomic uint64_t *)&in->meminfo,
                                      memory_order_relaxed);

    /* info's entry, valid with a short form: bits 30-31 are 10. */
    if (__builtin_expect((e >> 30) == ((uint64_t)info << 2 | 2) &&
                         (vaddr >> STAGED_SMEM_VADDR_BITS) == 0 &&
                         vcpu_index < MAX_VCPUS, 1)) {
        struct vbuf *vb = &vcpus[vcpu_index].buf;
        uint8_t *p = vb->pos;

        if (__builtin_expect(p + STAGED_MEM_BYTES <= vb->end &&
                             vb->pack != NULL, 1)) {
            stage_short(p, (uint32_t)e, vaddr);
            vb->pos = p + STAGED_SMEM_BYTES;
            return;
        }
    }
    mem_packed_any(vcpu_index, info, vaddr, in);
}

/* The accessed value (QEMU 9.2+); a 16-byte access keeps its low half. */
static uint64_t mem_value(qemu_plugin_meminfo_t info)
{
    qemu_plugin_mem_value v = qemu_plugin_mem_get_value(info);

    return v.type == QEMU_PLUGIN_MEM_VALUE_U8 ? v.data.u8 :
           v.type == QEMU_PLUGIN_MEM_VALUE_U16 ? v.data.u16 :
           v.type == QEMU_PLUGIN_MEM_VALUE_U32 ? v.data.u32 :
           v.type == QEMU_PLUGIN_MEM_VALUE_U64 ? v.data.u64 :
           v.data.u128.low;
}

/*
 * One packet per access, as mem_record would write it: the same flags,
 * physical address and value, so a dump reads the same either way. A
 * device access keeps its record, which names the device.
 */
void mem_access_full_cb(unsigned int vcpu_index, qemu_plugin_meminfo_t info,
                        uint64_t vaddr, void *udata)
{
    const struct insn_info *in = udata;
    struct vcpu *vc = vcpu_of(vcpu_index);
    uint64_t paddr = 0, value = 0;
    uint8_t bits;

    if (!vc) {
        return;
    }
    if (!vc->buf.pack) {
        mem_record(vc, info, vaddr, in, NULL);
        return;
    }
    bits = meminfo_bits(info, in);
    if (cfg.system_mode) {
        struct phys p;

        phys_of(info, vaddr, in, &p);
        if (p.io) {
            mem_record(vc, info, vaddr, in, &p);
            return;
        }
        if (p.known) {
            bits |= PACKED_MEM_HAS_PADDR;
            paddr = p.paddr;
        }
    }
    if (cfg.values) {
        bits |= PACKED_MEM_HAS_VALUE;
        value = mem_value(info);
    }
    pack_mem_full(vc->buf.pack, &vc->buf, in->idx, in->pc, bits, vaddr,
                  paddr, value);
}

/*
 * System mode with predicted accesses (docs/format.md, "Physical
 * addresses"): an access staged as in user mode, after a translation
 * item when its page's paddr - vaddr is not the one the cache holds.
 * Devices and accesses QEMU cannot place keep their records.
 */
static void __attribute__((noinline))
mem_sys_slow(struct vcpu *vc, qemu_plugin_meminfo_t info, uint64_t vaddr,
             const struct insn_info *in, const struct phys *p)
{
    struct pack_state *ps = vc->buf.pack;
    uint64_t off = p->paddr - vaddr, *slot;
    uint32_t w = STAGED_XLATE;
    uint8_t *q;

    if (!ps || !p->known || p->io) {
        mem_record(vc, info, vaddr, in, p);
        return;
    }
    /* Room for both first: a dropped chunk empties the cache. */
    q = vbuf_reserve(&vc->buf, STAGED_XLATE_BYTES + STAGED_MEM_BYTES);
    slot = &ps->xlate[packed_xlate_slot(vaddr)];
    if (*slot != off) {
        memcpy(q, &w, 4);
        memcpy(q + 4, &off, 8);
        q += STAGED_XLATE_BYTES;
        *slot = off;
    }
    stage_access(q, in, meminfo_bits(info, in), vaddr);
    pack_commit(&vc->buf, q + STAGED_MEM_BYTES);
}

/*
 * Bumped by any vCPU that may have changed the memory map (a device
 * access, port I/O): every vCPU forgets its known translations when it
 * sees a new value. Phys-check counts, likewise shared.
 */
static _Atomic uint64_t map_gen;
static _Atomic uint64_t checked, differed;

void mem_xlate_flush_cb(unsigned int vcpu_index, void *udata)
{
    struct vcpu *vc = vcpu_of(vcpu_index);

    if ((uintptr_t)udata == XLATE_FLUSH_MAP) {
        atomic_fetch_add_explicit(&map_gen, 1, memory_order_relaxed);
    }
    if (vc && vc->buf.pack) {
        pack_known_flush(vc->buf.pack);
    }
}

uint64_t mem_phys_check_report(void)
{
    uint64_t n = atomic_load(&checked), bad = atomic_load(&differed);

    fprintf(stderr, "qtrace: phys-check: %" PRIu64 " accesses by known "
            "translations, %" PRIu64 " differed from QEMU's\n", n, bad);
    return bad;
}

/*
 * paddr - vaddr of a RAM access as the vCPU knows it, else as QEMU says
 * (then kept). False when the access is not to RAM, or QEMU cannot
 * place it: p is then filled for mem_sys_slow.
 */
static inline bool sys_off(struct pack_state *ps, qemu_plugin_meminfo_t info,
                           uint64_t vaddr, const struct insn_info *in,
                           struct phys *p, uint64_t *off)
{
    uint64_t tag, g;
    struct qemu_plugin_hwaddr *hw;
    __typeof__(ps->known[0]) *k;

    g = atomic_load_explicit(&map_gen, memory_order_relaxed);
    if (__builtin_expect(g != ps->map_seen, 0)) {
        ps->map_seen = g;
        pack_known_flush(ps);
    }
    k = &ps->known[packed_xlate_slot(vaddr) & (PACK_KNOWN_SLOTS - 1)];
    tag = pack_known_tag(ps, vaddr);
    if (__builtin_expect(k->tag == tag && !cfg.phys_check, 1)) {
        *off = k->off;
        return true;
    }
    /* An instruction that reached a device asks mmio-cache.h first. */
    if (atomic_load_explicit(&in->device, memory_order_relaxed) ||
        !(hw = qemu_plugin_get_hwaddr(info, vaddr)) ||
        qemu_plugin_hwaddr_is_io(hw)) {
        phys_of(info, vaddr, in, p);
        return false;
    }
    *off = qemu_plugin_hwaddr_phys_addr(hw) - vaddr;
    if (cfg.phys_check && k->tag == tag) {
        atomic_fetch_add_explicit(&checked, 1, memory_order_relaxed);
        if (k->off != *off) {
            atomic_fetch_add_explicit(&differed, 1, memory_order_relaxed);
        }
    }
    if (cfg.known_xlate || cfg.phys_check) {
        k->tag = tag;
        k->off = *off;
    }
    return true;
}

void mem_access_sys_cb(unsigned int vcpu_index, qemu_plugin_meminfo_t info,
                       uint64_t vaddr, void *udata)
{
    const struct insn_info *in = udata;
    struct vcpu *vc = vcpu_of(vcpu_index);
    struct pack_state *ps;
    struct phys p;
    uint64_t e, off;
    uint8_t *q;

    if (!vc) {
        return;
    }
    ps = vc->buf.pack;
    if (!ps || !in_current_block(vc, in)) {
        mem_record(vc, info, vaddr, in, NULL);
        return;
    }
    if (!sys_off(ps, info, vaddr, in, &p, &off)) {
        /* A device access may remap memory: every vCPU forgets. */
        if (p.io && cfg.known_xlate) {
            atomic_fetch_add_explicit(&map_gen, 1, memory_order_relaxed);
        }
        mem_sys_slow(vc, info, vaddr, in, &p);
        return;
    }
    e = meminfo_find(info, in);
    q = vc->buf.pos;
    if (__builtin_expect(e && q + STAGED_MEM_BYTES <= vc->buf.end &&
                         pack_xlate(ps, &vc->buf, vaddr, off), 1)) {
        q = vc->buf.pos;
        stage_access(q, in, meminfo_entry_bits(e), vaddr);
        vc->buf.pos = q + STAGED_MEM_BYTES;
        return;
    }
    p.known = true;
    p.io = false;
    p.paddr = vaddr + off;
    mem_sys_slow(vc, info, vaddr, in, &p);
}
