/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Packed vCPU streams (src/format/packed.h, docs/format.md) in two steps.
 * A vCPU thread writes a staged stream: each block as its id, memory
 * accesses as short packets and every other record wrapped in a record
 * packet, with no lock, no malloc and no branch on the data. The writer
 * thread then runs the block predictor over it (pack.c), on its own core,
 * and hands the sinks the packed chunk the format defines.
 */
#ifndef QTRACE_PLUGIN_PACK_H
#define QTRACE_PLUGIN_PACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "../../format/packed.h"
#include "vbuf.h"

/*
 * The staged stream, which exists only between a vCPU and the writer
 * thread, never in a file, is made of 4-byte words: a block is its id
 * (below STAGED_PACKET); STAGED_PACKET | n is followed by a packet of n
 * bytes (memory or function) that the writer copies as it is, and
 * STAGED_ESCAPE by a record packet, both of the packed format, then zeros
 * up to the next word. The length saves the writer parsing the packet.
 * A function event is staged unencoded (STAGED_FUNC, see pack_func).
 */
#define STAGED_PACKET 0xffffff00u
#define STAGED_ESCAPE 0xffffffffu
#define STAGED_WORD 4u

/*
 * A user-mode load or store in a stream whose accesses the writer
 * predicts (QTRACE_CHUNK_ACCESSES): 16 bytes, stored as they are, no
 * varint computed on the vCPU. The first 8 are the access's descriptor
 * as the predictor keeps it (packed_acc_desc: pc offset << 32 | idx << 8
 * | info, made at translation but for the info) with STAGED_MEM in bits
 * 28-31, so that word 0 lies above every block id and below the
 * escapes; then the address. The writer needs no lookup per access.
 */
#define STAGED_MEM 0x10000000u
#define STAGED_MEM_BYTES 16u
#define STAGED_MEM_MAX_IDX 0xfffu

static inline bool staged_is_mem(uint32_t w)
{
    return (w >> 28) == 1;
}

/* The first 8 bytes of an access of instruction idx at pc_off, info 0. */
static inline uint64_t staged_mem_head(uint32_t idx, uint32_t pc_off)
{
    return (uint64_t)pc_off << 32 | STAGED_MEM | (idx & STAGED_MEM_MAX_IDX)
                                                 << 8;
}

/*
 * The same access in 8 bytes, user mode's usual form: half the bytes
 * the vCPU stores and the writer reads, on the two cores. Word 0 is
 * STAGED_SMEM | idx << 21 | info << 15 | address bits 32-46, word 1 the
 * address's low 32 bits; it takes instructions 0-511 of a block (all of
 * them: TCG's blocks hold at most 512), the info bits of user mode
 * (0x3f) and addresses below 2^47. Anything else is staged in 16. Word 0
 * lies above every block id, STAGED_MEM and STAGED_QFUNC, below the
 * escapes.
 *
 * The pc offset is not staged: the writer finds it from the block's
 * translation when it needs it, for a packet that names the access. In
 * its table an access's key is its word 0 without the address bits
 * (staged_smem_key), and a 16-byte access in a stream that has the
 * short form takes the same key (staged_mem_key) when it has one: the
 * writer's keys then compare equal exactly when the reader's
 * descriptors do, whichever form either access was staged in.
 */
#define STAGED_SMEM 0x80000000u
#define STAGED_SMEM_BYTES 8u
#define STAGED_SMEM_MAX_IDX 511u
#define STAGED_SMEM_MAX_INFO 0x3fu
#define STAGED_SMEM_VADDR_BITS 47
#define STAGED_SMEM_KEY 0xffff8000u     /* word 0 but the address */

static inline bool staged_is_smem(uint32_t w)
{
    return (w >> 30) == 2;
}

/* Word 0 of an access of instruction idx (at most 511), info 0. */
static inline uint32_t staged_smem_head(uint32_t idx)
{
    return STAGED_SMEM | idx << 21;
}

/* Word 0 of an access of head (staged_smem_head) and info. */
static inline uint32_t staged_smem_word0(uint32_t head, uint8_t info)
{
    return head | (uint32_t)info << 15;
}

/* The staged 8 bytes of an access: w0 (staged_smem_word0), the address. */
static inline uint64_t staged_smem(uint32_t w0, uint64_t vaddr)
{
    return vaddr << 32 | vaddr >> 32 | w0;
}

static inline uint64_t staged_smem_vaddr(uint32_t w0, uint32_t w1)
{
    return (uint64_t)(w0 & ~STAGED_SMEM_KEY) << 32 | w1;
}

static inline uint32_t staged_smem_key(uint32_t w0)
{
    return w0 & STAGED_SMEM_KEY;
}

static inline uint32_t staged_smem_idx(uint32_t w0)
{
    return w0 >> 21 & STAGED_SMEM_MAX_IDX;
}

static inline uint8_t staged_smem_info(uint32_t w0)
{
    return (uint8_t)(w0 >> 15 & STAGED_SMEM_MAX_INFO);
}

/*
 * The key of a 16-byte access's head (staged_mem_head | info) in a
 * stream with the short form: the short form's when the access has one.
 */
static inline uint64_t staged_mem_key(uint64_t head)
{
    uint32_t idx = (uint32_t)(head >> 8) & STAGED_MEM_MAX_IDX;
    uint8_t info = (uint8_t)head;

    if (idx <= STAGED_SMEM_MAX_IDX && info <= STAGED_SMEM_MAX_INFO) {
        return staged_smem_key(staged_smem_word0(staged_smem_head(idx),
                                                 info));
    }
    return head;
}

/*
 * After a restart (a lost record) in the middle of a block, the block's
 * id, so that the writer knows the pc its accesses' offsets count from:
 * STAGED_CONTEXT, then the id. No record.
 */
#define STAGED_CONTEXT 0xfffffff8u
#define STAGED_CONTEXT_BYTES 8u

/*
 * System mode (QTRACE_CHUNK_PHYS): the next access's page has another
 * translation than the vCPU's cache holds (pack_state.xlate):
 * STAGED_XLATE, then paddr - vaddr (8 bytes). The writer turns it into a
 * translation packet at its place among the accesses.
 */
#define STAGED_XLATE 0xfffffff9u
#define STAGED_XLATE_BYTES 12u

/* The length of the packet after the escape word w. */
static inline size_t staged_packet_len(uint32_t w)
{
    return w & 0xffu;
}

/* Chunk flag of the plugin's own (not a file flag): a staged stream. */
#define CHUNK_STAGED 0x8000u

/* Known translations a vCPU keeps (pack_state.known): a power of two. */
#define PACK_KNOWN_SLOTS 512u
#define PACK_KNOWN_GEN_SHIFT 52

/* What a vCPU keeps of its stream, for memory and function packets. */
struct pack_state {
    uint64_t last_vaddr;        /* base of the next access's delta */
    uint64_t last_phys_off;     /* paddr - vaddr of the last full access */
    uint64_t block_pc;          /* pc of the last block */
    /* QTRACE_CHUNK_PHYS: the translation cache, as the reader keeps it */
    uint64_t xlate[PACKED_XLATE_SLOTS];
    /*
     * The translations the vCPU knows without asking QEMU (mem.c): per
     * virtual page, paddr - vaddr, valid until the vCPU's next
     * translation change (xlate-flush.h). A tag is the page number
     * (bits 0-51) and the generation it was learnt in (bits 52-63).
     */
    uint64_t known_gen;
    uint64_t map_seen;          /* the memory map generation it knew */
    struct {
        uint64_t tag;
        uint64_t off;
    } known[PACK_KNOWN_SLOTS];
};

/*
 * A fresh state for a new stream (zeroed: the reader starts the same);
 * known translations start again at generation 1.
 */
static inline void pack_reset(struct pack_state *ps)
{
    memset(ps, 0, sizeof(*ps));
    ps->known_gen = 1;
}

/* The vCPU may translate differently from now on: forget what it knew. */
static inline void pack_known_flush(struct pack_state *ps)
{
    if (++ps->known_gen >> (64 - PACK_KNOWN_GEN_SHIFT)) {
        /* The generations wrap: no old tag may match again. */
        memset(ps->known, 0, sizeof(ps->known));
        ps->known_gen = 1;
    }
}

/* The known translation's slot and tag of vaddr's page. */
static inline uint64_t pack_known_tag(const struct pack_state *ps,
                                      uint64_t vaddr)
{
    return vaddr >> PACKED_XLATE_PAGE_BITS |
           ps->known_gen << PACK_KNOWN_GEN_SHIFT;
}

/* Shrink the last reservation to end at q (nothing if tracing stopped). */
static inline void pack_commit(struct vbuf *vb, uint8_t *q)
{
    if (vb->chunk) {
        vb->pos = q;
    }
}

/* A STAGED_CONTEXT item: block tb's accesses go on after a restart. */
static inline void pack_context(struct vbuf *vb, uint32_t tb)
{
    uint8_t *p = vbuf_reserve(vb, STAGED_CONTEXT_BYTES);
    uint32_t w = STAGED_CONTEXT;

    memcpy(p, &w, 4);
    memcpy(p + 4, &tb, 4);
    pack_commit(vb, p + STAGED_CONTEXT_BYTES);
}

/*
 * One executed block: one aligned 4-byte store. The writer thread's
 * predictor makes it cost bytes in the file only when it misses. The
 * writer counts blocks; a vCPU counts only other records. Returns false,
 * having written nothing, when the chunk is full: pack_block_slow() then.
 * A stream with memory packets also sets block_pc afterwards.
 */
static inline bool pack_block(struct vbuf *vb, uint32_t id)
{
    uint8_t *p = vb->pos;

    if (__builtin_expect(p + STAGED_WORD > vb->end, 0)) {
        return false;
    }
    memcpy(p, &id, STAGED_WORD);
    vb->pos = p + STAGED_WORD;
    return true;
}

/* pack_block() when the chunk is full: out of line. */
void pack_block_slow(struct vbuf *vb, uint32_t id);

/*
 * Zeros from q up to the next word: the end of an escaped packet. One
 * word store whatever the count (a loop of 0-3 byte stores mispredicts);
 * the reservation holds a word of room after the packet for it.
 */
static inline uint8_t *staged_pad(uint8_t *q)
{
    static const uint8_t zeros[STAGED_WORD];

    memcpy(q, zeros, STAGED_WORD);
    return q + (-(uintptr_t)q & (STAGED_WORD - 1));
}

/*
 * Space for a record of size bytes, wrapped in a record packet: the tag,
 * zeros up to the next multiple of 8 (chunk data is 8-aligned, so the
 * record is too), then the record.
 */
static inline void *pack_record(struct vbuf *vb, uint32_t size)
{
    uint32_t escape = STAGED_ESCAPE;
    uint8_t *p, *rec;

    p = vbuf_reserve(vb, STAGED_WORD + size + 8);
    memcpy(p, &escape, STAGED_WORD);
    p += STAGED_WORD;
    rec = (uint8_t *)(((uintptr_t)p + 8) & ~(uintptr_t)7);
    *p = PK_RECORD;
    memset(p + 1, 0, (size_t)(rec - p - 1));
    pack_commit(vb, rec + size);
    vbuf_count(vb, 1);
    return rec;
}

/*
 * Space for one record in vb, whatever the stream's encoding: what every
 * producer of records (plugin.c, calls.c, maps.c) goes through.
 */
static inline void *vbuf_record(struct vbuf *vb, uint32_t size)
{
    void *r;

    if (vb->pack) {
        return pack_record(vb, size);
    }
    r = vbuf_reserve(vb, size);
    vbuf_count(vb, 1);
    return r;
}

/* A record of event id in vb, its header filled; the rest is the caller's. */
static inline void *vbuf_event(struct vbuf *vb, uint16_t id, uint32_t size,
                               uint64_t time)
{
    struct qtrace_rec *r = vbuf_record(vb, size);

    r->id = id;
    r->size = (uint16_t)size;
    r->reserved = 0;
    r->time = time;
    return r;
}

/* Room for a packet of at most max bytes: escape word, packet, padding. */
static inline uint32_t staged_packet_room(uint32_t max)
{
    return STAGED_WORD + max + STAGED_WORD;
}

/*
 * Reserve room for a packet of at most max bytes after its escape word;
 * returns where the packet goes.
 */
static inline uint8_t *staged_packet_begin(struct vbuf *vb, uint32_t max)
{
    return vbuf_reserve(vb, staged_packet_room(max)) + STAGED_WORD;
}

/*
 * staged_packet_begin() when the chunk has room, else NULL: no call to
 * the slow path, for a callback whose fast path makes no call at all
 * (and so saves no registers). With no chunk pos equals end: NULL.
 */
static inline uint8_t *staged_packet_try(struct vbuf *vb, uint32_t max)
{
    uint8_t *p = vb->pos;

    if (__builtin_expect(p + staged_packet_room(max) > vb->end, 0)) {
        return NULL;
    }
    return p + STAGED_WORD;
}

/* The packet from start to p is complete: its escape word, and commit. */
static inline void staged_packet_end(struct vbuf *vb, uint8_t *start,
                                     uint8_t *p)
{
    uint32_t escape = STAGED_PACKET | (uint32_t)(p - start);

    memcpy(start - STAGED_WORD, &escape, STAGED_WORD);
    pack_commit(vb, staged_pad(p));
    vbuf_count(vb, 1);
}

/* The fields PK_MEM and PK_MEM_FULL share, from p on; returns the end. */
static inline uint8_t *pack_mem_head(struct pack_state *ps, uint8_t *p,
                                     uint8_t tag, uint32_t idx, uint64_t pc,
                                     uint8_t info, uint64_t vaddr)
{
    *p++ = tag;
    p = packed_put_varint(p, idx);
    p = packed_put_varint(p, pc - ps->block_pc);
    *p++ = info;
    p = packed_put_varint(p, packed_zigzag((int64_t)(vaddr -
                                                     ps->last_vaddr)));
    ps->last_vaddr = vaddr;
    return p;
}

/*
 * A user-mode access by instruction idx (at pc) of the current block,
 * into the packet space at start (staged_packet_begin or _try). The
 * state is read after the reservation, which may have dropped the chunk
 * and reset it.
 */
static inline void pack_mem_at(struct pack_state *ps, struct vbuf *vb,
                               uint8_t *start, uint32_t idx, uint64_t pc,
                               uint8_t info, uint64_t vaddr)
{
    uint8_t *p = pack_mem_head(ps, start, PK_MEM, idx, pc, info, vaddr);

    staged_packet_end(vb, start, p);
}

/* The same with its own reservation, which may take the slow path. */
static inline void pack_mem(struct pack_state *ps, struct vbuf *vb,
                            uint32_t idx, uint64_t pc, uint8_t info,
                            uint64_t vaddr)
{
    pack_mem_at(ps, vb, staged_packet_begin(vb, PACKED_MEM_MAX), idx, pc,
                info, vaddr);
}

/*
 * An access with what PK_MEM leaves out (system mode, QEMU 9.2+): info's
 * PACKED_MEM_HAS_PADDR and PACKED_MEM_HAS_VALUE say whether paddr and
 * value follow. paddr goes as the change of paddr - vaddr, the same for
 * every access of a page and mostly of a whole mapping: one byte.
 */
static inline void pack_mem_full(struct pack_state *ps, struct vbuf *vb,
                                 uint32_t idx, uint64_t pc, uint8_t info,
                                 uint64_t vaddr, uint64_t paddr,
                                 uint64_t value)
{
    uint8_t *start = staged_packet_begin(vb, PACKED_MEM_FULL_MAX);
    uint8_t *p = pack_mem_head(ps, start, PK_MEM_FULL, idx, pc, info,
                               vaddr);

    if (info & PACKED_MEM_HAS_PADDR) {
        uint64_t off = paddr - vaddr;

        p = packed_put_varint(p, packed_zigzag((int64_t)(off -
                                                         ps->last_phys_off)));
        ps->last_phys_off = off;
    }
    if (info & PACKED_MEM_HAS_VALUE) {
        p = packed_put_varint(p, value);
    }
    staged_packet_end(vb, start, p);
}

/*
 * A system-mode access's translation, paddr - vaddr, against the cache
 * the reader keeps in step: nothing when it holds it for vaddr's page,
 * else a STAGED_XLATE item before the access (and the cache learns it).
 * Returns false, having staged nothing, when the chunk lacks room for
 * the item and the access after it: the caller takes its slow way.
 */
static inline bool pack_xlate(struct pack_state *ps, struct vbuf *vb,
                              uint64_t vaddr, uint64_t off)
{
    uint64_t *slot = &ps->xlate[packed_xlate_slot(vaddr)];
    uint32_t w = STAGED_XLATE;
    uint8_t *p = vb->pos;

    if (__builtin_expect(*slot == off, 1)) {
        return true;
    }
    if (p + STAGED_XLATE_BYTES + STAGED_MEM_BYTES > vb->end) {
        return false;
    }
    memcpy(p, &w, 4);
    memcpy(p + 4, &off, 8);
    vb->pos = p + STAGED_XLATE_BYTES;
    *slot = off;
    return true;
}

/*
 * A func_entry (from = other) or func_exit (to = other) of kind below
 * PK_FUNC_KINDS, staged as its fields: STAGED_FUNC plus the packet's tag
 * offset, then time, pc and other (8 bytes each) and depth (4). The
 * writer thread writes the packet (each field as its difference from the
 * last function packet's), so that the vCPU only stores: in call-heavy
 * code the varints cost the vCPU more than the shadow stack.
 */
#define STAGED_FUNC 0xfffffff0u     /* to 0xfffffff7 */
#define STAGED_FUNC_BYTES 32u

static inline bool staged_is_func(uint32_t w)
{
    return w >= STAGED_FUNC && w < STAGED_FUNC + 2 * PK_FUNC_KINDS;
}

/*
 * The call tracker's common events (a call's func_entry and a return's
 * func_exit, both of kind 0), staged in 16 and 20 bytes instead of 32:
 * in call-heavy code the staged bytes cost the vCPU and the writer more
 * than the shadow stack. Word 0 is STAGED_QFUNC, STAGED_QFUNC_EXIT for
 * an exit, or'ed with the depth (bits 28-31 are 2: above every block id
 * and every access, below the escapes); word 1 the time as a signed
 * difference from the chunk's t0. An entry then has the translation ids
 * of the function's first block and of the block ending in the call
 * (the call is its last instruction); an exit the function's first
 * address (8 bytes) and the id of the block returned to. The writer
 * looks the blocks up (tbtab_get).
 */
#define STAGED_QFUNC 0x20000000u
#define STAGED_QFUNC_EXIT 0x08000000u
#define STAGED_QFUNC_DEPTH 0x07ffffffu
#define STAGED_QENTRY_BYTES 16u
#define STAGED_QEXIT_BYTES 20u

static inline bool staged_is_qfunc(uint32_t w)
{
    return (w >> 28) == 2;
}

static inline void pack_qentry_at(uint8_t *p, int32_t dt, uint32_t depth,
                                  uint32_t id, uint32_t caller_id)
{
    uint32_t w[4] = { STAGED_QFUNC | depth, (uint32_t)dt, id, caller_id };

    memcpy(p, w, sizeof(w));
}

static inline void pack_qexit_at(uint8_t *p, int32_t dt, uint32_t depth,
                                 uint64_t entry, uint32_t to_id)
{
    uint32_t w[2] = { STAGED_QFUNC | STAGED_QFUNC_EXIT | depth,
                      (uint32_t)dt };

    memcpy(p, w, sizeof(w));
    memcpy(p + 8, &entry, 8);
    memcpy(p + 16, &to_id, 4);
}

static inline void pack_func(struct vbuf *vb, bool exit, uint8_t kind,
                             uint64_t time, uint64_t pc, uint64_t other,
                             uint32_t depth)
{
    uint8_t *p = vbuf_reserve(vb, STAGED_FUNC_BYTES);
    uint32_t w = STAGED_FUNC + (exit ? PK_FUNC_KINDS : 0) + kind;

    memcpy(p, &w, 4);
    memcpy(p + 4, &time, 8);
    memcpy(p + 12, &pc, 8);
    memcpy(p + 20, &other, 8);
    memcpy(p + 28, &depth, 4);
    pack_commit(vb, p + STAGED_FUNC_BYTES);
    vbuf_count(vb, 1);
}

/*
 * Writer thread: the packed chunk (QTRACE_CHUNK_PACKED) of a staged one,
 * in a buffer of pack.c's that stays valid until the next call. NULL with
 * a reason in why when memory runs out or the stream is malformed.
 */
const struct chunk *pack_transcode(const struct chunk *in, char *why,
                                   size_t why_len);

/* Records in a staged stream of len bytes: what a dropped chunk loses. */
uint64_t pack_staged_records(const uint8_t *p, size_t len);

#endif /* QTRACE_PLUGIN_PACK_H */
