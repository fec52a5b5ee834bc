/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The writer thread's half of the packed encoding (see pack.h): runs the
 * block predictor of docs/format.md over a staged vCPU chunk and writes
 * the packed chunk the reader expands, packet for packet in the same
 * order. Also the block half of a vCPU's slow path.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qtrace-events.h"
#include "qtrace/catalog.h"
#include "qtrace/format.h"
#include "../../format/access-pred.h"
#include "../../format/le.h"
#include "pack.h"
#include "../core/tbtab.h"

#define PRED_VCPUS 4096             /* as many as the plugin traces */

/* The predictor of one vCPU stream, as the reader runs it. */
struct predictor {
    uint32_t stream;                /* whose history this is */
    uint32_t prev, prev2;           /* last two blocks */
    uint32_t run;                   /* predicted blocks not written yet */
    uint64_t staged_bytes;          /* of blocks, for the index's bits */
    uint64_t func_time;             /* the last function packet's fields */
    uint64_t func_pc;
    uint64_t func_other;
    uint32_t func_depth;
    /* Streams with QTRACE_CHUNK_ACCESSES (access-pred.h): */
    struct packed_acc *acc;         /* the table, with the first chunk */
    uint64_t last_vaddr;            /* the previous access's address */
    uint32_t cur_tb;                /* the block accesses belong to, 0
                                       before one and after a restart */
    uint32_t cur_k;                 /* its accesses so far */
    uint64_t ctx_pc;                /* after a restart: the pc of the
                                       block whose accesses go on */
    uint32_t acc_tb;                /* the block accesses belong to, kept
                                       through a restart: where a short
                                       access's pc offset is (0: none) */
    bool short_keys;                /* the stream stages short accesses:
                                       its table's keys are theirs */
    bool rel;                       /* QTRACE_CHUNK_ACCESS_REL */
    bool bad_access;                /* a short access of no known
                                       instruction: the chunk is bad */
    uint32_t hits;                  /* predicted accesses not written yet */
    uint64_t xlate_off;             /* the last translation packet's */
    bool any_access;                /* an access since the last restart:
                                       until then, no block predicts any
                                       (see first_access) */
    bool chunk_access;              /* the chunk being made has one, or
                                       follows one: it needs the flag */
    uint32_t slot[PACKED_SLOTS];
};

/* Writer thread only. */
static struct predictor *preds[PRED_VCPUS];
static struct chunk *out;

/* Bytes copied for any copied packet: the longest, rounded up. */
#define PACKET_COPY 40u

_Static_assert(CHUNK_EVENT_WORDS * 64 == QTRACE_MAX_EVENTS,
               "chunk event bits: one per catalog id");
_Static_assert(PACKED_MEM_MAX <= PACKET_COPY &&
               PACKED_MEM_FULL_MAX < (STAGED_FUNC & 0xffu) &&
               PACKET_COPY < (STAGED_FUNC & 0xffu) &&
               TBTAB_MAX_ID < STAGED_MEM && STAGED_QFUNC < STAGED_SMEM &&
               (STAGED_PACKET & STAGED_SMEM_KEY) != STAGED_SMEM,
               "staged words: packet lengths or block ids overlap");

void pack_block_slow(struct vbuf *vb, uint32_t id)
{
    uint8_t *p = vbuf_reserve(vb, STAGED_WORD);

    memcpy(p, &id, STAGED_WORD);
    pack_commit(vb, p + STAGED_WORD);
}

/*
 * The record packet at p (before end), after a STAGED_ESCAPE word of a
 * staged stream based at base: the record in it, or NULL if it is bad.
 */
static const uint8_t *record_packet(const uint8_t *base, const uint8_t *p,
                                    const uint8_t *end)
{
    const uint8_t *rec;
    size_t size;

    if (p >= end || *p != PK_RECORD) {
        return NULL;
    }
    rec = base + ((size_t)(p + 1 - base) + 7) / 8 * 8;
    if (rec + sizeof(struct qtrace_rec) > end) {
        return NULL;
    }
    size = load16(rec + 2);
    if (size < sizeof(struct qtrace_rec) || size % 8 ||
        size > (size_t)(end - rec)) {
        return NULL;
    }
    return rec;
}

/* Where the word after an escaped packet ending at p starts. */
static const uint8_t *next_word(const uint8_t *base, const uint8_t *p)
{
    return base + ((size_t)(p - base) + STAGED_WORD - 1) / STAGED_WORD *
        STAGED_WORD;
}

/* The length of the staged access at p, 0 if there is none whole. */
static inline size_t staged_access_len(const uint8_t *p, const uint8_t *end)
{
    uint32_t w;

    if (end - p < (ptrdiff_t)STAGED_SMEM_BYTES) {
        return 0;
    }
    w = load32(p);
    if (staged_is_smem(w)) {
        return STAGED_SMEM_BYTES;
    }
    return staged_is_mem(w) && end - p >= (ptrdiff_t)STAGED_MEM_BYTES ?
           STAGED_MEM_BYTES : 0;
}

/*
 * The end of the staged item at p (a block, or an escape word and its
 * packet), or NULL if it runs past end; *rec is set for a record packet.
 */
static const uint8_t *staged_item(const uint8_t *base, const uint8_t *p,
                                  const uint8_t *end, const uint8_t **rec)
{
    uint32_t w = load32(p);

    *rec = NULL;
    if (staged_is_smem(w) || staged_is_mem(w)) {
        size_t len = staged_access_len(p, end);

        return len ? p + len : NULL;
    }
    if (staged_is_qfunc(w)) {
        size_t len = w & STAGED_QFUNC_EXIT ? STAGED_QEXIT_BYTES :
                                             STAGED_QENTRY_BYTES;

        return end - p >= (ptrdiff_t)len ? p + len : NULL;
    }
    if (w < STAGED_PACKET) {
        return p + STAGED_WORD;
    }
    if (staged_is_func(w)) {
        return end - p >= (ptrdiff_t)STAGED_FUNC_BYTES ?
               p + STAGED_FUNC_BYTES : NULL;
    }
    if (w == STAGED_CONTEXT) {
        return end - p >= (ptrdiff_t)STAGED_CONTEXT_BYTES ?
               p + STAGED_CONTEXT_BYTES : NULL;
    }
    if (w == STAGED_XLATE) {
        return end - p >= (ptrdiff_t)STAGED_XLATE_BYTES ?
               p + STAGED_XLATE_BYTES : NULL;
    }
    if (w != STAGED_ESCAPE) {
        p += STAGED_WORD + staged_packet_len(w);
        return p <= end ? next_word(base, p) : NULL;
    }
    *rec = record_packet(base, p + STAGED_WORD, end);
    return *rec ? next_word(base, *rec + load16(*rec + 2)) : NULL;
}

uint64_t pack_staged_records(const uint8_t *p, size_t len)
{
    const uint8_t *base = p, *end = p + len, *rec;
    uint64_t n = 0;

    while (end - p >= (ptrdiff_t)STAGED_WORD) {
        /* Neither a context nor a translation is a record. */
        n += load32(p) != STAGED_CONTEXT && load32(p) != STAGED_XLATE;
        if ((p = staged_item(base, p, end, &rec)) == NULL) {
            n--;
            break;
        }
    }
    return n;
}

static void predictor_reset(struct predictor *pr, uint32_t stream)
{
    uint64_t staged = pr->staged_bytes;     /* counts on through a reset */
    struct packed_acc *acc = pr->acc;       /* kept, emptied */
    bool short_keys = pr->short_keys;       /* the stream's, kept */
    bool rel = pr->rel;                     /* likewise */

    memset(pr, 0, sizeof(*pr));
    pr->stream = stream;
    pr->staged_bytes = staged;
    pr->short_keys = short_keys;
    pr->rel = rel;
    pr->acc = acc;
    if (acc) {
        packed_acc_reset(acc);
    }
}

/* The predictor of in's stream; a new stream starts from zero. */
static struct predictor *predictor_of(const struct chunk *in)
{
    struct predictor *pr;

    if (in->vcpu >= PRED_VCPUS) {
        return NULL;
    }
    pr = preds[in->vcpu];
    if (!pr) {
        pr = calloc(1, sizeof(*pr));
        if (!pr) {
            return NULL;
        }
        predictor_reset(pr, in->stream);
        preds[in->vcpu] = pr;
    } else if (pr->stream != in->stream) {
        predictor_reset(pr, in->stream);
    }
    if ((in->flags & QTRACE_CHUNK_ACCESSES) && !pr->acc) {
        pr->acc = calloc(PACKED_ACC_SLOTS, sizeof(*pr->acc));
        if (!pr->acc) {
            return NULL;
        }
    }
    return pr;
}

/* The pending predicted blocks, before a packet that must follow them. */
static uint8_t *put_run(struct predictor *pr, uint8_t *q, uint64_t *n)
{
    if (pr->run) {
        *q++ = PK_RUN;
        q = packed_put_varint(q, pr->run);
        *n += pr->run;
        pr->run = 0;
    }
    return q;
}

/*
 * A block packet after the pending run of run predicted blocks: block
 * id missed, named relative to prev, the block before it.
 */
static inline uint8_t *put_named(uint8_t *q, uint32_t run, uint32_t prev,
                                 uint32_t id)
{
    if (run <= PK_BLOCK_SHORT_MAX) {
        *q++ = (uint8_t)run;
    } else {
        *q++ = PK_BLOCK;
        q = packed_put_varint(q, run);
    }
    return packed_put_varint(q, packed_zigzag((int64_t)id - (int64_t)prev));
}

/*
 * The staged blocks from *pp on, up to the first escape or access, or
 * the first block an access follows: the hot loop of the writer thread,
 * with the predictor's history in registers.
 */
static uint8_t *put_blocks(struct predictor *pr, const uint8_t **pp,
                           const uint8_t *end, uint8_t *q, uint64_t *n)
{
    const uint8_t *p = *pp;
    uint32_t prev = pr->prev, prev2 = pr->prev2, run = pr->run;

    while (end - p >= (ptrdiff_t)STAGED_WORD) {
        uint32_t id = load32(p), *slot;

        if (id >= STAGED_MEM ||
            (end - p >= 2 * (ptrdiff_t)STAGED_WORD &&
             staged_is_mem(load32(p + STAGED_WORD)))) {
            break;
        }
        p += STAGED_WORD;
        slot = &pr->slot[packed_slot(prev, prev2)];
        if (*slot == id) {
            run++;
        } else {
            *slot = id;
            q = put_named(q, run, prev, id);
            *n += run + 1;
            run = 0;
        }
        prev2 = prev;
        prev = id;
    }
    pr->prev = prev;
    pr->prev2 = prev2;
    pr->run = run;
    pr->staged_bytes += (uint64_t)(p - *pp);
    *pp = p;
    return q;
}

/*
 * The function packet of a staged function event at p (staged_is_func),
 * each field as its difference from the stream's last function packet.
 */
static uint8_t *put_func_packet(struct predictor *pr, uint8_t *q,
                                uint8_t tag, uint64_t time, uint64_t pc,
                                uint64_t other, uint32_t depth)
{
    *q++ = tag;
    q = packed_put_varint(q, packed_zigzag((int64_t)(time - pr->func_time)));
    q = packed_put_varint(q, packed_zigzag((int64_t)(pc - pr->func_pc)));
    q = packed_put_varint(q, packed_zigzag((int64_t)(other -
                                                     pr->func_other)));
    q = packed_put_varint(q, packed_zigzag((int64_t)depth -
                                           (int64_t)pr->func_depth));
    pr->func_time = time;
    pr->func_pc = pc;
    pr->func_other = other;
    pr->func_depth = depth;
    return q;
}

static uint8_t *put_func(struct predictor *pr, const uint8_t *p, uint8_t *q)
{
    return put_func_packet(pr, q, (uint8_t)(PK_FUNC_ENTRY +
                                            (load32(p) - STAGED_FUNC)),
                           load64(p + 4), load64(p + 12), load64(p + 20),
                           load32(p + 28));
}

/*
 * The function packets of the short staged events from *pp on
 * (staged_is_qfunc), up to the first other item; NULL, with *pp at the
 * event, if one is cut short or names a block that does not exist.
 */
static uint8_t *put_qfuncs(struct predictor *pr, const struct chunk *in,
                           const uint8_t **pp, const uint8_t *end,
                           uint8_t *q, uint64_t *n, uint32_t *seen)
{
    const uint8_t *p = *pp;
    const struct tb_info *to, *from;

    while (end - p >= (ptrdiff_t)STAGED_WORD && staged_is_qfunc(load32(p))) {
        uint32_t w = load32(p);
        uint64_t time = in->t0 + (uint64_t)(int64_t)(int32_t)load32(p + 4);
        uint32_t depth = w & STAGED_QFUNC_DEPTH;

        *pp = p;
        if (w & STAGED_QFUNC_EXIT) {
            if (end - p < (ptrdiff_t)STAGED_QEXIT_BYTES ||
                !(to = tbtab_get(load32(p + 16)))) {
                return NULL;
            }
            q = put_func_packet(pr, q, PK_FUNC_EXIT, time, load64(p + 8),
                                to->pc, depth);
            *seen |= 8;
            p += STAGED_QEXIT_BYTES;
        } else {
            if (end - p < (ptrdiff_t)STAGED_QENTRY_BYTES ||
                !(to = tbtab_get(load32(p + 8))) ||
                !(from = tbtab_get(load32(p + 12)))) {
                return NULL;
            }
            q = put_func_packet(pr, q, PK_FUNC_ENTRY, time, to->pc,
                                from->pc + from->size - from->branch_size,
                                depth);
            *seen |= 4;
            p += STAGED_QENTRY_BYTES;
        }
        ++*n;
    }
    *pp = p;
    return q;
}

/* put_qfuncs failed on the event at p (or after it) */
static void bad_qfunc(const struct chunk *in, const uint8_t *p, char *why,
                      size_t why_len)
{
    snprintf(why, why_len, "vCPU %u: bad staged function event at byte %zu",
             in->vcpu, (size_t)(p - in->data));
}

/* Note in out->events the event a copied packet or a record stands for. */
static void note_event(unsigned int id)
{
    out->events[id / 64] |= 1ull << (id % 64);
}

/*
 * The events of copied packets, as bits of a word kept in a register by
 * the loop (a store through out per packet cost a tenth of the packing):
 * 1 blocks, 2 accesses, 4 function entries, 8 exits.
 */
static inline uint32_t packet_bit(uint8_t tag)
{
    if (tag == PK_MEM || tag == PK_MEM_FULL) {
        return 2;
    }
    return packed_is_func(tag) ? (tag >= PK_FUNC_EXIT ? 8 : 4) : 0;
}

static void note_packets(uint32_t seen)
{
    static const unsigned int ids[] = {
        QTRACE_EV_EXEC_TB, QTRACE_EV_MEM_ACCESS, QTRACE_EV_FUNC_ENTRY,
        QTRACE_EV_FUNC_EXIT,
    };
    unsigned int i;

    for (i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
        if (seen & (1u << i)) {
            note_event(ids[i]);
        }
    }
}

/* A record packet, re-aligned to the output (whose data is 8-aligned). */
static uint8_t *put_record(uint8_t *q, const uint8_t *rec)
{
    size_t size = load16(rec + 2);

    *q++ = PK_RECORD;
    while ((size_t)(q - out->data) % 8) {
        *q++ = 0;
    }
    memcpy(q, rec, size);
    return q + size;
}

/*
 * Room for the packed form: a staged block (4 bytes) becomes at most 6, a
 * record packet grows by at most 7 bytes of padding, a short function
 * event (16 bytes) at most 36, and a run is written only after blocks
 * that wrote nothing; three times the input is plenty. The slack takes
 * a packet's copy of PACKET_COPY bytes at the very end.
 */
static bool out_fits(size_t in_len)
{
    size_t need = 3 * in_len + 64;

    if (out && out->cap >= need) {
        return true;
    }
    free(out);
    out = malloc(sizeof(*out) + need);
    if (!out) {
        return false;
    }
    memset(out, 0, sizeof(*out));
    out->cap = (uint32_t)need;
    return true;
}

/*
 * A staged item that is neither a block nor an access (a record, a
 * function event, a packet copied as it is), after the pending packets:
 * what the old and the new transcoding share. A lost record restarts
 * the stream, as the reader restarts it.
 */
static uint8_t *put_item(struct predictor *pr, const struct chunk *in,
                         const uint8_t *p, const uint8_t *end,
                         const uint8_t *rec, uint8_t *q, uint32_t *seen)
{
    if (rec) {
        note_event(load16(rec));
        q = put_record(q, rec);
        if (load16(rec) == QTRACE_EV_LOST) {
            predictor_reset(pr, in->stream);
        }
    } else if (staged_is_func(load32(p))) {
        *seen |= packet_bit((uint8_t)(PK_FUNC_ENTRY +
                                      (load32(p) - STAGED_FUNC)));
        q = put_func(pr, p, q);
    } else {
        size_t len = staged_packet_len(load32(p));

        *seen |= packet_bit(p[STAGED_WORD]);
        /* A fixed-size copy is a few moves, a variable one a call. */
        if (len <= PACKET_COPY &&
            end - p >= (ptrdiff_t)(STAGED_WORD + PACKET_COPY)) {
            memcpy(q, p + STAGED_WORD, PACKET_COPY);
        } else {
            memcpy(q, p + STAGED_WORD, len);
        }
        q += len;
    }
    return q;
}

/* ---- predicted accesses (QTRACE_CHUNK_ACCESSES, access-pred.h) ---- */

/*
 * A staged access (pack.h, STAGED_MEM or STAGED_SMEM) and its key in
 * the writer's table. A 16-byte access's key in a stream of 16-byte
 * accesses only (system mode) is its staged head as it is, STAGED_MEM
 * bits and all: those compare equal exactly when the reader's
 * descriptors do (packed_acc_desc's fields in the same bits, the marker
 * the same in all). In a stream with short accesses both forms take the
 * short form's key (pack.h). No item that is not an access equals a
 * key.
 */
struct staged_access {
    uint64_t key;
    uint64_t vaddr;
    uint64_t head;                  /* a 16-byte access's head, else 0 */
};

/*
 * The forms of a run of accesses: short ones, 16-byte ones in a stream
 * that has short ones (their keys are the short form's), 16-byte ones
 * in a stream of those only.
 */
enum access_form { FORM_SHORT, FORM_LONG_SHORT_KEYS, FORM_LONG };

static inline size_t form_size(enum access_form form)
{
    return form == FORM_SHORT ? STAGED_SMEM_BYTES : STAGED_MEM_BYTES;
}

/*
 * The staged access of form form at a: its key as the table keeps it,
 * and its address. An item that is not an access of that form has a
 * key no entry has.
 */
static inline __attribute__((always_inline)) uint64_t
access_of_form(const uint8_t *a, enum access_form form, uint64_t *vaddr)
{
    if (form == FORM_SHORT) {
        uint32_t w0 = load32(a);

        *vaddr = staged_smem_vaddr(w0, load32(a + 4));
        return staged_smem_key(w0);
    }
    *vaddr = load64(a + 8);
    if (form == FORM_LONG_SHORT_KEYS) {
        /* No key has all bits set: it would need a pc offset of 2^32-1. */
        return staged_is_mem(load32(a)) ? staged_mem_key(load64(a)) :
                                          ~(uint64_t)0;
    }
    return load64(a);
}

/* The staged access at p, whole (staged_access_len). */
static inline void read_access(const struct predictor *pr, const uint8_t *p,
                               struct staged_access *a)
{
    enum access_form form = staged_is_smem(load32(p)) ? FORM_SHORT :
                            pr->short_keys ? FORM_LONG_SHORT_KEYS : FORM_LONG;

    a->key = access_of_form(p, form, &a->vaddr);
    a->head = form == FORM_SHORT ? 0 : load64(p);
}

/* The packet of hits predicted accesses (at least one). */
static inline uint8_t *hits_packet(uint8_t *q, uint32_t hits)
{
    if (hits <= PK_HITS_SHORT_MAX) {
        *q++ = (uint8_t)(PK_HITS_SHORT + hits - 1);
    } else {
        *q++ = PK_HITS;
        q = packed_put_varint(q, hits);
    }
    return q;
}

static uint8_t * __attribute__((noinline))
flush_hits(struct predictor *pr, uint8_t *q, uint64_t *n)
{
    q = hits_packet(q, pr->hits);
    *n += pr->hits;
    pr->hits = 0;
    return q;
}

/* The predicted accesses not written yet, before any other packet. */
static inline uint8_t *put_hits(struct predictor *pr, uint8_t *q,
                                uint64_t *n)
{
    return pr->hits ? flush_hits(pr, q, n) : q;
}

/*
 * The head a 16-byte access would have had for the short access of key
 * key: its instruction's, from the translation of the block the
 * accesses belong to.
 */
static uint64_t __attribute__((noinline))
short_access_head(struct predictor *pr, uint64_t key)
{
    const struct tb_info *ti = tbtab_get(pr->acc_tb);
    uint32_t idx = staged_smem_idx((uint32_t)key);

    if (!ti || idx >= ti->n_insns) {
        pr->bad_access = true;
        return 0;
    }
    return ti->insns[idx].staged_head | staged_smem_info((uint32_t)key);
}

/*
 * A PK_MEM packet of the access sa, its pc offset moved by base, with
 * the vaddr as its change from the previous one.
 */
static uint8_t *put_mem(struct predictor *pr, uint8_t *q,
                        const struct staged_access *sa, uint64_t base)
{
    uint64_t desc = sa->head ? sa->head : short_access_head(pr, sa->key);

    *q++ = PK_MEM;
    q = packed_put_varint(q, desc >> 8 & 0xffffu);
    q = packed_put_varint(q, base + (desc >> 32));
    *q++ = (uint8_t)desc;
    return packed_put_varint(q, packed_zigzag((int64_t)(sa->vaddr -
                                                        pr->last_vaddr)));
}

/*
 * The stream's first access since its start or restart: the block
 * predictor starts again from zero, as the reader's does when it meets
 * the access, so that a reader can count what came before without
 * following the blocks (docs/format.md, "Predicted accesses"). The
 * access and the rest of its block's are then written as after a
 * restart, not learnt; their pc offsets count from the block's.
 */
static uint8_t *first_access(struct predictor *pr, uint8_t *q, uint64_t *n)
{
    q = put_run(pr, q, n);
    memset(pr->slot, 0, sizeof(pr->slot));
    pr->prev = pr->prev2 = 0;
    if (pr->cur_tb) {
        pr->ctx_pc = 0;
    }
    pr->cur_tb = 0;
    pr->cur_k = 0;
    pr->any_access = true;
    return q;
}

/*
 * What the writer keeps while it writes a run of blocks and their
 * accesses (blocks_run, put_access), in locals: the predictors' history,
 * the pending run and hits, the records and event bits made. A store
 * through the predictor per access cost a tenth of the packing.
 */
struct block_run {
    uint8_t *q;
    uint32_t prev, prev2, run;
    uint32_t cur_tb, cur_k;
    uint32_t hits;
    uint64_t last_vaddr;
    uint64_t records;
    uint32_t bits;                  /* packet_bit()s */
};

static inline struct block_run run_begin(const struct predictor *pr,
                                         uint8_t *q)
{
    return (struct block_run){
        .q = q, .prev = pr->prev, .prev2 = pr->prev2, .run = pr->run,
        .cur_tb = pr->cur_tb, .cur_k = pr->cur_k, .hits = pr->hits,
        .last_vaddr = pr->last_vaddr,
    };
}

static inline uint8_t *run_end(struct predictor *pr,
                               const struct block_run *s, uint64_t *n,
                               uint32_t *seen)
{
    pr->prev = s->prev;
    pr->prev2 = s->prev2;
    pr->run = s->run;
    pr->cur_tb = s->cur_tb;
    pr->cur_k = s->cur_k;
    pr->hits = s->hits;
    pr->last_vaddr = s->last_vaddr;
    *n += s->records;
    *seen |= s->bits;
    return s->q;
}

/* The pending hits, before any other packet. */
static inline void run_flush_hits(struct block_run *s)
{
    if (s->hits) {
        s->q = hits_packet(s->q, s->hits);
        s->records += s->hits;
        s->hits = 0;
    }
}

/*
 * Access k of the current block, the entry of (block, k) at e: nothing
 * (a hit, counted), a stride miss (its delta from the prediction) or a
 * PK_MEM packet (a static access not known, or known as another). The
 * entry then learns it.
 */
static inline __attribute__((always_inline)) void
run_access(struct predictor *pr, struct block_run *s, struct packed_acc *e,
           uint32_t k, const struct staged_access *sa)
{
    uint64_t vaddr = sa->vaddr, prev = s->last_vaddr;

    if (packed_acc_key_is(e, s->cur_tb, k) && packed_acc_key(e) == sa->key) {
        uint64_t z = packed_zigzag((int64_t)(vaddr -
                                             packed_acc_next(e, prev)));

        if (z == 0) {
            s->hits++;
            e->last = vaddr;
        } else {
            run_flush_hits(s);
            if (z <= PK_DELTA_SHORT_MAX) {
                *s->q++ = (uint8_t)(PK_DELTA_SHORT + z);
            } else {
                *s->q++ = PK_DELTA;
                s->q = packed_put_varint(s->q, z);
            }
            s->records++;
            packed_acc_made(e, vaddr, prev, pr->rel);
        }
    } else {
        run_flush_hits(s);
        pr->last_vaddr = prev;
        s->q = put_mem(pr, s->q, sa, 0);
        s->records++;
        packed_acc_learn(e, s->cur_tb, k, sa->key, vaddr, prev, pr->rel);
    }
    s->last_vaddr = vaddr;
}

/*
 * A translation packet (QTRACE_CHUNK_PHYS): the next access's page has
 * this paddr - vaddr, carried as its change from the last packet's.
 */
static uint8_t *put_xlate(struct predictor *pr, uint8_t *q, uint64_t off)
{
    *q++ = PK_XLATE;
    q = packed_put_varint(q, packed_zigzag((int64_t)(off - pr->xlate_off)));
    pr->xlate_off = off;
    return q;
}

/* One access of the current block, or after a restart, before one. */
static uint8_t *put_access(struct predictor *pr,
                           const struct staged_access *sa, uint8_t *q,
                           uint64_t *n)
{
    struct block_run run;
    uint32_t seen = 0;

    pr->chunk_access = true;
    if (!pr->any_access) {
        q = first_access(pr, q, n);
    }
    if (!pr->cur_tb) {
        /* After a restart: relative to pc 0, as the reader takes it. */
        q = put_hits(pr, q, n);
        q = put_mem(pr, q, sa, pr->ctx_pc);
        (*n)++;
        pr->last_vaddr = sa->vaddr;
        return q;
    }
    run = run_begin(pr, q);
    run_access(pr, &run, packed_acc_at(pr->acc, pr->cur_tb, pr->cur_k),
               pr->cur_k, sa);
    run.cur_k++;
    return run_end(pr, &run, n, &seen);
}

/*
 * How many of the m staged accesses of form form at a, from the first
 * on, are those block id's table entries from base on predict (same
 * key, the address packed_acc_next gives, the first access's previous
 * at *prev): m when all are. Each entry checked and predicted moves its
 * last to the address (a hit keeps the delta), and *prev with it;
 * blocks_run goes on from the first that was not.
 */
static inline __attribute__((always_inline)) uint32_t
take_predicted(struct packed_acc *tab, uint32_t id, uint32_t base,
               const uint8_t *a, uint32_t m, enum access_form form,
               uint64_t *prev)
{
    uint32_t k;

    for (k = 0; k < m; k++, a += form_size(form)) {
        struct packed_acc *e = &tab[(base + k) & (PACKED_ACC_SLOTS - 1)];
        uint64_t vaddr, key = access_of_form(a, form, &vaddr);

        if (!packed_acc_key_is(e, id, k) || packed_acc_key(e) != key ||
            vaddr != packed_acc_next(e, *prev)) {
            break;
        }
        e->last = vaddr;
        *prev = vaddr;
    }
    return k;
}

/*
 * The form of the accesses of the block at p (its word read): short
 * ones in a stream that has them, unless the first is not.
 */
static enum access_form block_form(const struct predictor *pr,
                                   const uint8_t *p, const uint8_t *end)
{
    if (!pr->short_keys) {
        return FORM_LONG;
    }
    return end - p >= 2 * (ptrdiff_t)STAGED_WORD &&
           staged_is_mem(load32(p + STAGED_WORD)) ? FORM_LONG_SHORT_KEYS :
                                                    FORM_SHORT;
}

/*
 * The staged accesses of form form from *p on, of the block being
 * written (its base entry base), from its access k on, as run_access
 * writes them; short ones alone in FORM_SHORT, whose 16-byte ones
 * put_access takes. Returns the block's accesses so far.
 */
static inline __attribute__((always_inline)) uint32_t
run_block_accesses(struct predictor *pr, struct block_run *s,
                   const uint8_t **pp, const uint8_t *end, uint32_t base,
                   uint32_t k, enum access_form form)
{
    const uint8_t *p = *pp;
    struct staged_access sa;
    size_t len;

    for (;;) {
        if (form == FORM_SHORT) {
            if (end - p < (ptrdiff_t)STAGED_SMEM_BYTES ||
                !staged_is_smem(load32(p))) {
                break;
            }
            len = STAGED_SMEM_BYTES;
            sa.key = access_of_form(p, FORM_SHORT, &sa.vaddr);
            sa.head = 0;
        } else {
            if ((len = staged_access_len(p, end)) == 0) {
                break;
            }
            read_access(pr, p, &sa);
        }
        run_access(pr, s, &pr->acc[(base + k) & (PACKED_ACC_SLOTS - 1)], k,
                   &sa);
        k++;
        p += len;
    }
    *pp = p;
    return k;
}

/*
 * Whether the block at p ends blocks_run: none there, or one whose first
 * access is short in the loop of 16-byte ones among short ones (those go
 * back to the short loop, block_form; the short loop leaves a 16-byte
 * access to put_access).
 */
static inline __attribute__((always_inline)) bool
run_stops(const uint8_t *p, const uint8_t *end, enum access_form form)
{
    if (end - p < (ptrdiff_t)STAGED_WORD || load32(p) >= STAGED_MEM) {
        return true;
    }
    return form == FORM_LONG_SHORT_KEYS &&
           !(end - p >= 2 * (ptrdiff_t)STAGED_WORD &&
             staged_is_mem(load32(p + STAGED_WORD)));
}

/*
 * The fully predicted blocks from *pp on (blocks_run's first case;
 * there is a block at *pp, run_stops said), in a loop of their own
 * that keeps what it needs in registers. Stops at
 * the first block that is not, or where blocks_run stops; *taken and
 * *last are then how many of that block's accesses were predicted
 * (take_predicted moved their entries) and the last one's address.
 * Returns how many blocks it took.
 */
static inline __attribute__((always_inline)) uint32_t
run_predicted(struct predictor *pr, struct block_run *s, const uint8_t **pp,
              const uint8_t *end, enum access_form form, uint32_t *taken,
              uint64_t *last)
{
    size_t size = form_size(form);
    struct packed_acc *tab = pr->acc;
    const uint8_t *p = *pp;
    uint32_t prev = s->prev, prev2 = s->prev2, blocks = 0;
    uint32_t id = load32(p), slot = packed_slot(prev, prev2);
    uint64_t vaddr = s->last_vaddr, made = 0;

    /* The next block's id and slot carry over: each is found once. */
    *taken = 0;
    for (;;) {
        uint32_t base = packed_acc_base(id), k, j, next_id;
        const uint8_t *a = p + STAGED_WORD, *next;
        uint64_t at = vaddr;

        k = packed_acc_count_at(&tab[base], id);
        if (pr->slot[slot] != id ||
            (size_t)(end - a) < (size_t)k * size + STAGED_WORD) {
            break;
        }
        next = a + (size_t)k * size;
        if ((next_id = load32(next)) >= STAGED_MEM) {
            break;
        }
        if ((j = take_predicted(tab, id, base, a, k, form, &at)) != k) {
            *taken = j;
            *last = at;
            break;
        }
        vaddr = at;
        made += k;
        blocks++;
        prev2 = prev;
        prev = id;
        p = next;
        id = next_id;
        slot = packed_slot(prev, prev2);
        __builtin_prefetch(&pr->slot[slot]);
        __builtin_prefetch(&tab[packed_acc_base(id)]);
        if (form == FORM_LONG_SHORT_KEYS && run_stops(p, end, form)) {
            break;
        }
    }
    if (blocks) {
        s->prev = s->cur_tb = prev;
        s->prev2 = prev2;
        s->run += blocks;
        s->last_vaddr = vaddr;
        s->records += made;
        s->bits |= made ? 2 : 0;
        /* The last block's n, not kept in a register in the loop. */
        s->cur_k = packed_acc_count(tab, prev);
    }
    *pp = p;
    return blocks;
}

/*
 * The blocks from *pp on whose accesses are of form form, in one loop
 * with the state in locals (struct block_run): the writer's hot loop
 * when the stream has accesses. A block the block predictor foresaw
 * whose staged accesses are the n its entry predicts, each where its
 * entry says, followed by another block, joins the run at no byte; any
 * other is written (PK_BLOCK_EXPLICIT when only its accesses missed),
 * then its accesses from the first that missed (take_predicted moved
 * the entries of those before, which count as hits). Stops at any item
 * that is not a block, or a block of another form, leaving the current
 * block's accesses that follow to put_access; before the stream's
 * first access, after the block that access follows.
 */
static inline __attribute__((always_inline)) uint8_t *
blocks_run(struct predictor *pr, const uint8_t **pp, const uint8_t *end,
           uint8_t *q, uint64_t *n, uint32_t *seen, enum access_form form)
{
    size_t size = form_size(form);
    const uint8_t *p = *pp;
    struct block_run s = run_begin(pr, q);
    const bool any_access = pr->any_access;

    while (!run_stops(p, end, form)) {
        uint32_t id, taken, *slot;
        uint64_t last = 0;          /* the last predicted access's */
        const uint8_t *a;

        /* The block before ends (a block taken below made its n). */
        run_flush_hits(&s);
        if (s.cur_tb) {
            packed_acc_end_block(pr->acc, s.cur_tb, s.cur_k);
        }
        if (run_predicted(pr, &s, &p, end, form, &taken, &last) &&
            run_stops(p, end, form)) {
            break;
        }
        /* Written: the block, then its accesses from the first missed. */
        id = load32(p);
        a = p + STAGED_WORD;
        slot = &pr->slot[packed_slot(s.prev, s.prev2)];
        if (*slot == id) {
            *s.q++ = PK_BLOCK_EXPLICIT;
            s.q = packed_put_varint(s.q, s.run);
        } else {
            *slot = id;
            s.q = put_named(s.q, s.run, s.prev, id);
        }
        s.records += s.run + 1;
        s.run = 0;
        s.prev2 = s.prev;
        s.prev = s.cur_tb = id;
        pr->acc_tb = id;
        p = a + (size_t)taken * size;
        if (taken) {
            s.hits += taken;
            s.last_vaddr = last;
        }
        if (!any_access) {
            s.cur_k = 0;
            break;
        }
        s.cur_k = run_block_accesses(pr, &s, &p, end, packed_acc_base(id),
                                     taken, form);
        s.bits |= s.cur_k ? 2 : 0;
    }
    if (p != *pp) {
        s.bits |= 1;
        pr->acc_tb = s.cur_tb;
    }
    *pp = p;
    return run_end(pr, &s, n, seen);
}

static uint8_t * __attribute__((noinline))
put_short_blocks(struct predictor *pr, const uint8_t **pp,
                 const uint8_t *end, uint8_t *q, uint64_t *n, uint32_t *seen)
{
    return blocks_run(pr, pp, end, q, n, seen, FORM_SHORT);
}

static uint8_t * __attribute__((noinline))
put_long_blocks(struct predictor *pr, const uint8_t **pp,
                const uint8_t *end, uint8_t *q, uint64_t *n, uint32_t *seen,
                enum access_form form)
{
    return blocks_run(pr, pp, end, q, n, seen, form);
}

/*
 * The staged chunk of a stream with predicted accesses: blocks through
 * blocks_run, accesses through put_access, the rest as before.
 * Returns the end of the packed output, or NULL with why filled.
 */
static uint8_t *transcode_accesses(struct predictor *pr,
                                   const struct chunk *in, uint8_t *q,
                                   uint64_t *n, uint32_t *seen, char *why,
                                   size_t why_len)
{
    const uint8_t *p = in->data, *end = in->data + in->len, *next, *rec;

    while (p < end) {
        uint32_t w = end - p >= (ptrdiff_t)STAGED_WORD ? load32(p) : 0;
        struct staged_access sa;
        size_t len;

        if (!pr->any_access && end - p >= (ptrdiff_t)STAGED_WORD &&
            w < STAGED_MEM) {
            const uint8_t *from = p;

            /*
             * No access yet: every block predicts none, the plain block
             * loop is enough until one is followed by an access.
             */
            q = put_blocks(pr, &p, end, q, n);
            if (p != from) {
                if (pr->cur_tb) {
                    packed_acc_end_block(pr->acc, pr->cur_tb, pr->cur_k);
                }
                pr->cur_tb = pr->prev;
                pr->acc_tb = pr->prev;
                pr->cur_k = 0;
                *seen |= 1;
                continue;
            }
        }
        if (end - p >= (ptrdiff_t)STAGED_WORD && w < STAGED_MEM) {
            enum access_form form = block_form(pr, p, end);

            q = form == FORM_SHORT ?
                put_short_blocks(pr, &p, end, q, n, seen) :
                put_long_blocks(pr, &p, end, q, n, seen, form);
            continue;
        }
        if ((len = staged_access_len(p, end)) != 0) {
            read_access(pr, p, &sa);
            q = put_access(pr, &sa, q, n);
            *seen |= 2;
            p += len;
            continue;
        }
        next = end - p >= (ptrdiff_t)STAGED_WORD && !staged_is_mem(w) &&
               !staged_is_smem(w) ? staged_item(in->data, p, end, &rec) :
                                    NULL;
        if (!next) {
            snprintf(why, why_len, "vCPU %u: bad staged item at byte %zu",
                     in->vcpu, (size_t)(p - in->data));
            return NULL;
        }
        if (w == STAGED_XLATE) {
            /*
             * After the hits it follows, right before its access's
             * packet (the stream's first access starts again first).
             */
            q = put_hits(pr, q, n);
            if (!pr->any_access) {
                q = first_access(pr, q, n);
            }
            q = put_xlate(pr, q, load64(p + 4));
            pr->chunk_access = true;
            p = next;
            continue;
        }
        if (w == STAGED_CONTEXT) {
            /* No packet: the pc the next accesses' offsets count from. */
            const struct tb_info *ti = tbtab_get(load32(p + 4));

            pr->ctx_pc = ti ? ti->pc : 0;
            pr->acc_tb = load32(p + 4);
            p = next;
            continue;
        }
        q = put_hits(pr, q, n);
        q = put_run(pr, q, n);
        if (staged_is_qfunc(w)) {
            q = put_qfuncs(pr, in, &p, end, q, n, seen);
            if (!q) {
                bad_qfunc(in, p, why, why_len);
                return NULL;
            }
            continue;
        }
        q = put_item(pr, in, p, end, rec, q, seen);
        (*n)++;
        p = next;
    }
    if (pr->bad_access) {
        snprintf(why, why_len, "vCPU %u: a short staged access of no known "
                 "instruction of block %u", in->vcpu, pr->acc_tb);
        return NULL;
    }
    q = put_hits(pr, q, n);
    return put_run(pr, q, n);
}

const struct chunk *pack_transcode(const struct chunk *in, char *why,
                                   size_t why_len)
{
    const uint8_t *p = in->data, *end = in->data + in->len, *next, *rec;
    struct predictor *pr = predictor_of(in);
    uint32_t seen = 0;          /* packet_bit()s */
    uint64_t blocks_before;     /* pr->staged_bytes before this chunk */
    uint64_t n = 0;
    uint8_t *q;

    if (!pr || !out_fits(in->len)) {
        snprintf(why, why_len, "vCPU %u: out of memory", in->vcpu);
        return NULL;
    }
    q = out->data;
    /* What the chunk holds, for the trace's index, found on the way. */
    memset(out->events, 0, sizeof(out->events));
    blocks_before = pr->staged_bytes;
    pr->chunk_access = pr->any_access;
    pr->short_keys = !(in->flags & QTRACE_CHUNK_PHYS);
    pr->rel = in->flags & QTRACE_CHUNK_ACCESS_REL;
    if (in->flags & QTRACE_CHUNK_ACCESSES) {
        q = transcode_accesses(pr, in, q, &n, &seen, why, why_len);
        if (!q) {
            return NULL;
        }
        p = end;
    }
    while (p < end) {
        q = put_blocks(pr, &p, end, q, &n);
        if (p == end) {
            break;
        }
        next = end - p >= (ptrdiff_t)STAGED_WORD ?
               staged_item(in->data, p, end, &rec) : NULL;
        if (!next || staged_is_mem(load32(p)) || staged_is_smem(load32(p))) {
            snprintf(why, why_len, "vCPU %u: bad staged packet at byte %zu",
                     in->vcpu, (size_t)(p - in->data));
            return NULL;
        }
        q = put_run(pr, q, &n);
        if (staged_is_qfunc(load32(p))) {
            q = put_qfuncs(pr, in, &p, end, q, &n, &seen);
            if (!q) {
                bad_qfunc(in, p, why, why_len);
                return NULL;
            }
            continue;
        }
        q = put_item(pr, in, p, end, rec, q, &seen);
        n++;
        p = next;
    }
    q = put_run(pr, q, &n);
    note_packets(seen | (pr->staged_bytes != blocks_before));
    out->vcpu = in->vcpu;
    out->stream = in->stream;
    /*
     * Until a stream's first access its chunks read as plain packed ones
     * (the predictor's table is empty): fast to count, and readable where
     * predicted accesses are not.
     */
    out->flags = (uint16_t)((in->flags & ~CHUNK_STAGED) |
                            QTRACE_CHUNK_PACKED);
    if (!pr->chunk_access) {
        out->flags &= (uint16_t)~(QTRACE_CHUNK_ACCESSES | QTRACE_CHUNK_PHYS |
                                  QTRACE_CHUNK_ACCESS_REL);
    }
    out->len = (uint32_t)(q - out->data);
    out->n_records = (uint32_t)n;
    out->insns = in->insns;
    out->has_events = true;
    return out;
}
