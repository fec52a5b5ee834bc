/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Expanding packed chunks (see unpack.h). Block ids found in packets are
 * turned into exec_tb records with the pc and instruction count their
 * tb_trans record gave; tb_trans records always come earlier in the file
 * than the first execution of their block, so one pass suffices.
 */
#include <endian.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "access-pred.h"
#include "le.h"
#include "packed.h"
#include "qtrace/format.h"
#include "unpack.h"

struct unpack_stream {
    uint32_t prev, prev2;           /* predictor history */
    uint64_t icount;                /* instructions before the next block */
    uint64_t block_time;            /* time of the current block */
    uint64_t block_pc;
    uint64_t last_vaddr;
    uint64_t last_phys_off;         /* paddr - vaddr of the last full one */
    uint64_t func_time;             /* the last function packet's fields */
    uint64_t func_pc;
    uint64_t func_other;
    uint32_t func_depth;
    bool have_block;                /* block_pc and block_time are set */
    bool any_access;                /* QTRACE_CHUNK_ACCESSES: an access
                                       since the start or last restart */
    uint32_t cur_tb;                /* QTRACE_CHUNK_ACCESSES: the current
                                       block, 0 before one or a restart */
    uint32_t cur_k;                 /* its accesses so far */
    struct packed_acc *acc;         /* the access predictor's table,
                                       allocated with the first chunk
                                       that needs it, kept over restarts */
    uint64_t *xlate;                /* QTRACE_CHUNK_PHYS: the translation
                                       cache, likewise */
    uint64_t xlate_off;             /* the last translation packet's */
    bool xlate_pending;             /* it is for the next access */
    uint32_t slot[PACKED_SLOTS];
};

/* Offsets of the named arguments; false if one is missing or mistyped. */
static bool find_fields(const struct qtrace_event_desc *ev,
                        const char *const *names, unsigned int n,
                        uint16_t *off)
{
    unsigned int i, a;

    for (i = 0; i < n; i++) {
        for (a = 0; a < ev->n_args; a++) {
            if (strcmp(ev->args[a].name, names[i]) == 0) {
                break;
            }
        }
        if (a == ev->n_args) {
            return false;
        }
        off[i] = ev->args[a].offset;
    }
    return true;
}

static void find_layout(const struct qtrace_catalog *cat, const char *name,
                        const char *const *fields, unsigned int n,
                        struct unpack_layout *l)
{
    const struct qtrace_event_desc *ev = qtrace_catalog_find(cat, name);

    memset(l, 0, sizeof(*l));
    if (ev && find_fields(ev, fields, n, l->off) &&
        ev->fixed_size <= sizeof(((struct unpacker *)0)->rec_buf[0])) {
        l->id = ev->id;
        l->size = (uint16_t)((ev->fixed_size + 7u) & ~7u);
    }
}

int unpack_init(struct unpacker *u, const struct qtrace_catalog *cat,
                struct budget *budget)
{
    static const char *const tb_fields[] = { "pc", "tb" };
    static const char *const mem_fields[] = { "pc", "vaddr", "paddr",
                                              "size", "flags", "device" };
    static const char *const trans_fields[] = { "pc", "tb", "n_insns" };
    static const char *const entry_fields[] = { "pc", "from", "depth",
                                                "kind" };
    static const char *const exit_fields[] = { "pc", "to", "depth", "kind" };
    const struct qtrace_event_desc *ev;
    uint16_t off[3];
    int i;

    memset(u, 0, sizeof(*u));
    u->budget = budget;
    idmap_init(&u->tb_sparse, sizeof(struct unpack_tb), budget);
    idmap_init(&u->streams, sizeof(struct unpack_stream *), budget);
    u->records_bound = u->records_left = UINT64_MAX;
    u->tb_bound = UINT64_MAX;
    find_layout(cat, "exec_tb", tb_fields, 2, &u->exec_tb);
    find_layout(cat, "mem_access", mem_fields, 6, &u->mem);
    /* value came later than the other fields: a trace may lack it. */
    ev = qtrace_catalog_find(cat, "mem_access");
    if (u->mem.id && find_fields(ev, (const char *const[]){ "value" }, 1,
                                 &u->mem.off[6])) {
        u->mem_value = true;
    }
    find_layout(cat, "func_entry", entry_fields, 4, &u->func[0]);
    find_layout(cat, "func_exit", exit_fields, 4, &u->func[1]);
    ev = qtrace_catalog_find(cat, "lost");
    if (ev && find_fields(ev, (const char *const[]){ "block_insns" }, 1,
                          off)) {
        u->lost_id = ev->id;
        u->lost_insns = off[0];
    }
    ev = qtrace_catalog_find(cat, "tb_trans");
    if (ev && find_fields(ev, trans_fields, 3, off)) {
        u->tb_trans_id = ev->id;
        u->tb_trans_pc = off[0];
        u->tb_trans_tb = off[1];
        u->tb_trans_n = off[2];
        if (find_fields(ev, (const char *const[]){ "size" }, 1, off)) {
            u->tb_trans_size = off[0];
        }
    }
    for (i = 0; i < 256; i++) {
        u->mem_size[i] = packed_mem_size((uint8_t)i);
        u->mem_flags[i] = packed_mem_flags((uint8_t)i);
    }
    return 0;
}

/* Nothing left of the last chunk's packets. */
static void clear_pending(struct unpacker *u)
{
    u->pending = 0;
    u->explicit_next = false;
    u->miss = false;
    u->acc_pending = 0;
    u->hits = 0;
}

void unpack_reset(struct unpacker *u)
{
    struct unpack_stream **s;
    size_t pos = 0;

    while ((s = idmap_next(&u->streams, &pos)) != NULL) {
        /* A slot whose stream could not be made holds NULL. */
        if (!*s) {
            continue;
        }
        if ((*s)->acc) {
            free((*s)->acc);
            budget_give(u->budget, PACKED_ACC_SLOTS * sizeof(*(*s)->acc));
        }
        if ((*s)->xlate) {
            free((*s)->xlate);
            budget_give(u->budget,
                        PACKED_XLATE_SLOTS * sizeof(*(*s)->xlate));
        }
        free(*s);
        budget_give(u->budget, sizeof(**s));
    }
    idmap_fini(&u->streams);
    u->cur = NULL;
    clear_pending(u);
    u->records_left = u->records_bound;
}

void unpack_set_bounds(struct unpacker *u, uint64_t records,
                       uint64_t translations)
{
    u->records_bound = u->records_left = records;
    u->tb_bound = translations;
}

void unpack_fini(struct unpacker *u)
{
    unpack_reset(u);
    idmap_fini(&u->tb_sparse);
    budget_give(u->budget, u->tb_cap * sizeof(*u->tb_dense));
    free(u->tb_dense);
    memset(u, 0, sizeof(*u));
}

/*
 * Ids the dense array may reach: twice the translations known, plus a
 * slack for the ids of other vCPUs' translations still to come. Beyond,
 * an id is sparse: memory follows the records, not the ids' values.
 */
#define TB_DENSE_SLACK 65536u

/* Grow the dense array to hold id if that stays in proportion. */
static int grow_dense(struct unpacker *u, uint32_t id, char *why,
                      size_t why_len)
{
    size_t cap = u->tb_cap ? u->tb_cap : 4096;
    struct unpack_tb *tb;

    while (cap <= id) {
        cap *= 2;
    }
    if (!budget_take(u->budget, (cap - u->tb_cap) * sizeof(*tb), why,
                     why_len)) {
        return -1;
    }
    tb = realloc(u->tb_dense, cap * sizeof(*tb));
    if (!tb) {
        budget_give(u->budget, (cap - u->tb_cap) * sizeof(*tb));
        snprintf(why, why_len, "%s", strerror(ENOMEM));
        return -1;
    }
    memset(tb + u->tb_cap, 0, (cap - u->tb_cap) * sizeof(*tb));
    u->tb_dense = tb;
    u->tb_cap = cap;
    return 0;
}

/* Where translation id goes: its dense entry, or a sparse one. */
static struct unpack_tb *tb_slot(struct unpacker *u, uint32_t id, char *why,
                                 size_t why_len)
{
    if (id >= u->tb_cap && id < 2 * (uint64_t)u->tb_known + TB_DENSE_SLACK &&
        grow_dense(u, id, why, why_len) < 0) {
        return NULL;
    }
    if (id < u->tb_cap) {
        return &u->tb_dense[id];
    }
    return idmap_put(&u->tb_sparse, id, why, why_len);
}

/*
 * An id not in the dense array: sparse, or noted there before the array
 * reached it, or unknown (NULL).
 */
static const struct unpack_tb * __attribute__((noinline))
tb_find_sparse(const struct unpacker *u, uint32_t id)
{
    const struct unpack_tb *tb = idmap_get(&u->tb_sparse, id);

    return tb && tb->n_insns ? tb : NULL;
}

/* The translation id, or NULL when no tb_trans named it. Hot path. */
static inline const struct unpack_tb *tb_find(const struct unpacker *u,
                                              uint32_t id)
{
    if (__builtin_expect(id < u->tb_cap && u->tb_dense[id].n_insns, 1)) {
        return &u->tb_dense[id];
    }
    return tb_find_sparse(u, id);
}

int unpack_note_tb(struct unpacker *u, const uint8_t *rec, char *why,
                   size_t why_len)
{
    uint32_t id = (uint32_t)load32(rec + u->tb_trans_tb);
    uint32_t n = (uint32_t)load32(rec + u->tb_trans_n);
    struct unpack_tb *tb;

    /* Each instruction is at least one byte of the block. */
    if (u->tb_trans_size && n > load32(rec + u->tb_trans_size)) {
        snprintf(why, why_len, "tb_trans of block %" PRIu32 " has %" PRIu32
                 " instructions in %" PRIu32 " bytes", id, n,
                 (uint32_t)load32(rec + u->tb_trans_size));
        return -1;
    }
    if (id > u->tb_bound) {
        snprintf(why, why_len, "tb_trans of block %" PRIu32 ", over the "
                 "translations=%" PRIu64 " of the END chunk", id,
                 u->tb_bound);
        return -1;
    }
    tb = tb_slot(u, id, why, why_len);
    if (!tb) {
        return -1;
    }
    tb->pc = load64(rec + u->tb_trans_pc);
    tb->n_insns = n;
    u->tb_known++;
    return 0;
}

/*
 * A table of n entries of size bytes, zeroed (a stream's access table,
 * its translation cache), charged to the budget; NULL with why filled.
 */
static void *new_table(struct unpacker *u, size_t n, size_t size,
                       char *why, size_t why_len)
{
    void *table;

    if (!budget_take(u->budget, n * size, why, why_len)) {
        return NULL;
    }
    table = calloc(n, size);
    if (!table) {
        budget_give(u->budget, n * size);
        snprintf(why, why_len, "%s", strerror(ENOMEM));
    }
    return table;
}

int unpack_begin(struct unpacker *u, uint32_t stream, uint16_t flags,
                 char *why, size_t why_len)
{
    struct unpack_stream **s = idmap_put(&u->streams, stream, why, why_len);

    if (!s) {
        return -ENOMEM;
    }
    if (!*s) {
        if (!budget_take(u->budget, sizeof(**s), why, why_len)) {
            return -ENOMEM;
        }
        *s = calloc(1, sizeof(**s));
        if (!*s) {
            budget_give(u->budget, sizeof(**s));
            snprintf(why, why_len, "%s", strerror(ENOMEM));
            return -ENOMEM;
        }
    }
    u->cur = *s;
    clear_pending(u);
    u->accesses = flags & QTRACE_CHUNK_ACCESSES;
    if (u->accesses && !(*s)->acc &&
        !((*s)->acc = new_table(u, PACKED_ACC_SLOTS, sizeof(*(*s)->acc),
                                why, why_len))) {
        return -ENOMEM;
    }
    u->phys = u->accesses && (flags & QTRACE_CHUNK_PHYS);
    u->access_rel = u->accesses && (flags & QTRACE_CHUNK_ACCESS_REL);
    if (u->phys && !(*s)->xlate &&
        !((*s)->xlate = new_table(u, PACKED_XLATE_SLOTS,
                                  sizeof(*(*s)->xlate), why, why_len))) {
        return -ENOMEM;
    }
    return 0;
}

static int fail(char *why, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int fail(char *why, size_t len, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(why, len, fmt, ap);
    va_end(ap);
    return -1;
}

/*
 * Block packets claim run + 1 records: refused past the records the END
 * chunk counts, so that a few bytes cannot stand for billions of blocks
 * in a trace that says it holds a few (docs/format.md, "Reader limits").
 */
static int __attribute__((noinline, cold))
claim_fail(const struct unpacker *u, uint64_t n, char *why, size_t why_len)
{
    uint64_t claimed = u->records_bound - u->records_left;

    return fail(why, why_len, "with this packet the trace holds %" PRIu64
                " records or more, over the records=%" PRIu64 " of the END "
                "chunk",
                n > UINT64_MAX - claimed ? UINT64_MAX : claimed + n,
                u->records_bound);
}

static inline int claim_blocks(struct unpacker *u, uint64_t n, char *why,
                               size_t why_len)
{
    if (__builtin_expect(n > u->records_left, 0)) {
        return claim_fail(u, n, why, why_len);
    }
    u->records_left -= n;
    return 0;
}

/*
 * After a lost record: the plugin dropped records and restarted its
 * predictor; the next block comes at the record's time.
 */
static void restart_stream(struct unpack_stream *s, uint64_t time,
                           uint32_t insns)
{
    struct packed_acc *acc = s->acc;
    uint64_t *xlate = s->xlate;

    memset(s, 0, sizeof(*s));
    s->acc = acc;
    if (acc) {
        packed_acc_reset(acc);
    }
    s->xlate = xlate;
    if (xlate) {
        memset(xlate, 0, PACKED_XLATE_SLOTS * sizeof(*xlate));
    }
    /* The interrupted block goes on: accesses are relative to pc 0. */
    s->have_block = true;
    s->block_time = time;
    s->icount = time + insns;
}

/* The rebuilt records' buffers (rec_buf). */
enum { REC_OTHER, REC_ACCESS };

/*
 * Buffer which of rec_buf, ready for a record of size bytes that its
 * maker tells by holds (an event id, with bits above it for variants
 * that write other fields): zeros but where the maker writes every
 * time. Cleared only when it held another kind of record, as most
 * records follow one of their kind; a maker that writes a field only
 * sometimes sets its rec_holds to 0 after.
 */
static inline uint8_t *rec_for(struct unpacker *u, int which, uint32_t holds,
                               uint16_t size)
{
    uint8_t *r = (uint8_t *)u->rec_buf[which];

    if (u->rec_holds[which] != holds) {
        memset(r, 0, size);
        u->rec_holds[which] = holds;
    }
    u->rec_made = r;
    return r;
}

/* The block with this id starts now: an exec_tb record, made. */
static inline __attribute__((always_inline)) int
make_block(struct unpacker *u, uint32_t id, char *why, size_t why_len)
{
    struct unpack_stream *s = u->cur;
    const struct unpack_tb *tb = tb_find(u, id);
    uint8_t *r;

    if (!tb) {
        return fail(why, why_len, "block %u has no tb_trans record", id);
    }
    if (!u->exec_tb.id) {
        return fail(why, why_len, "packed blocks but no exec_tb event");
    }
    r = rec_for(u, REC_OTHER, u->exec_tb.id, u->exec_tb.size);
    store16(r, u->exec_tb.id);
    store16(r + 2, u->exec_tb.size);
    store64(r + 8, s->icount);
    store64(r + u->exec_tb.off[0], tb->pc);
    store32(r + u->exec_tb.off[1], id);
    s->block_time = s->icount;
    s->block_pc = tb->pc;
    s->have_block = true;
    s->icount += tb->n_insns;
    s->prev2 = s->prev;
    s->prev = id;
    if (u->accesses) {
        if (s->cur_tb) {
            packed_acc_end_block(s->acc, s->cur_tb, s->cur_k);
        }
        s->cur_tb = id;
        s->cur_k = 0;
    }
    return 1;
}

/*
 * One predicted block: what the predictor says follows. In a chunk with
 * predicted accesses, its accesses follow as predicted too, unless
 * explicit (PK_BLOCK_EXPLICIT): then packets give them.
 */
static inline __attribute__((always_inline)) int
predicted_block(struct unpacker *u, bool explicit, char *why, size_t why_len)
{
    struct unpack_stream *s = u->cur;
    uint32_t id = s->slot[packed_slot(s->prev, s->prev2)];
    uint32_t m;
    int ret;

    if (id == 0) {
        return fail(why, why_len, "run of predicted blocks with no "
                    "prediction after block %u", s->prev);
    }
    ret = make_block(u, id, why, why_len);
    if (ret < 0 || !u->accesses || explicit) {
        return ret;
    }
    m = packed_acc_count(s->acc, id);
    if (m && claim_blocks(u, m, why, why_len) < 0) {
        return -1;
    }
    u->acc_pending = m;
    return ret;
}

/*
 * A block the predictor missed, named relative to the block before it
 * (the last of the run): teach the predictor, as the plugin did.
 */
static int missed_block(struct unpacker *u, int64_t delta, char *why,
                        size_t why_len)
{
    struct unpack_stream *s = u->cur;
    int64_t id = (int64_t)s->prev + delta;

    if (id <= 0 || id > UINT32_MAX) {
        return fail(why, why_len, "block id out of range");
    }
    s->slot[packed_slot(s->prev, s->prev2)] = (uint32_t)id;
    return make_block(u, (uint32_t)id, why, why_len);
}

static int read_block_packet(struct unpacker *u, uint8_t tag,
                             const uint8_t **pp, const uint8_t *end,
                             char *why, size_t why_len)
{
    uint64_t run = tag, delta = 0;

    if (tag == PK_BLOCK || tag == PK_RUN) {
        if (packed_get_varint(pp, end, &run) < 0 || run > UINT32_MAX) {
            return fail(why, why_len, "bad run length");
        }
    }
    if (claim_blocks(u, run + (tag != PK_RUN), why, why_len) < 0) {
        return -1;
    }
    u->pending = (uint32_t)run;
    u->miss = false;
    if (tag != PK_RUN) {
        if (packed_get_varint(pp, end, &delta) < 0) {
            return fail(why, why_len, "cut block packet");
        }
        u->miss = true;
        u->miss_delta = packed_unzigzag(delta);
    }
    return 0;
}

/* A memory packet stepped over (blocks are not being expanded). */
static int skip_mem_packet(const uint8_t **pp, const uint8_t *end, bool full,
                           char *why, size_t why_len)
{
    if (packed_skip_mem(pp, end, full) < 0) {
        return fail(why, why_len, "cut memory packet");
    }
    return 0;
}

/*
 * The fields only a full memory packet has: the physical address, as the
 * change of paddr - vaddr since the last one, and the value.
 */
static int read_mem_full(struct unpacker *u, uint8_t info, uint64_t vaddr,
                         const uint8_t **pp, const uint8_t *end, char *why,
                         size_t why_len)
{
    struct unpack_stream *s = u->cur;
    uint8_t *r = (uint8_t *)u->rec_buf[REC_ACCESS];
    uint64_t v;

    if (info & PACKED_MEM_HAS_PADDR) {
        if (packed_get_varint(pp, end, &v) < 0) {
            return fail(why, why_len, "cut memory packet");
        }
        s->last_phys_off += (uint64_t)packed_unzigzag(v);
        store64(r + u->mem.off[2], vaddr + s->last_phys_off);
        u->rec_holds[REC_ACCESS] = 0;
    }
    if (info & PACKED_MEM_HAS_VALUE) {
        if (packed_get_varint(pp, end, &v) < 0) {
            return fail(why, why_len, "cut memory packet");
        }
        if (!u->mem_value) {
            return fail(why, why_len, "memory value but no value argument");
        }
        store64(r + u->mem.off[6], v);
        u->rec_holds[REC_ACCESS] = 0;
    }
    return 1;
}

/* A mem_access record of the current block, made in rec_buf. */
static inline __attribute__((always_inline)) void
access_record(struct unpacker *u, uint64_t idx, uint64_t pc_off,
              uint8_t info, uint64_t vaddr)
{
    struct unpack_stream *s = u->cur;
    /* With phys, the paddr is written every time. */
    uint8_t *r = rec_for(u, REC_ACCESS, u->mem.id | (uint32_t)u->phys << 16,
                         u->mem.size);

    s->last_vaddr = vaddr;
    store16(r, u->mem.id);
    store16(r + 2, u->mem.size);
    store64(r + 8, s->block_time + idx);
    store64(r + u->mem.off[0], s->block_pc + pc_off);
    store64(r + u->mem.off[1], vaddr);
    r[u->mem.off[3]] = u->mem_size[info];
    r[u->mem.off[4]] = u->mem_flags[info];
    if (u->phys) {
        /* Its page's translation, which a packet may just have set. */
        uint64_t *slot = &s->xlate[packed_xlate_slot(vaddr)];

        if (s->xlate_pending) {
            *slot = s->xlate_off;
            s->xlate_pending = false;
        }
        store64(r + u->mem.off[2], vaddr + *slot);
        r[u->mem.off[4]] |= QTRACE_MEM_HAS_PADDR;
    }
}

/*
 * A translation packet (QTRACE_CHUNK_PHYS): the next access's page has
 * the last packet's paddr - vaddr plus the change it carries.
 */
static int read_xlate_packet(struct unpacker *u, const uint8_t **pp,
                             const uint8_t *end, char *why, size_t why_len)
{
    uint64_t v;

    if (packed_get_varint(pp, end, &v) < 0) {
        return fail(why, why_len, "cut translation packet");
    }
    if (!u->skip_blocks) {
        u->cur->xlate_off += (uint64_t)packed_unzigzag(v);
        u->cur->xlate_pending = true;
    }
    return 0;
}

/*
 * The access predictor learns an access of the current block (chunks
 * with QTRACE_CHUNK_ACCESSES, after a block: not between a restart and
 * the next block), made at vaddr, the access before at prev.
 */
static void note_access(struct unpacker *u, uint64_t idx, uint32_t pc_off,
                        uint8_t info, uint64_t vaddr, uint64_t prev)
{
    struct unpack_stream *s = u->cur;

    if (u->accesses && s->cur_tb) {
        /* An entry keeps 16 bits of idx: one beyond is not learnt. */
        if (idx <= UINT16_MAX) {
            packed_acc_note(s->acc, s->cur_tb, s->cur_k,
                            packed_acc_desc(idx, pc_off, info), vaddr, prev,
                            u->access_rel);
        }
        s->cur_k++;
    }
}

/*
 * The stream's first access since its start or restart: the block
 * predictor starts again, as the plugin's did (pack.c, first_access);
 * the accesses up to the next block are not learnt.
 */
static void first_access(struct unpack_stream *s)
{
    memset(s->slot, 0, sizeof(s->slot));
    s->prev = s->prev2 = 0;
    s->cur_tb = 0;
    s->cur_k = 0;
    s->any_access = true;
}

/* A memory packet: a mem_access record of the current block. */
static int read_mem_packet(struct unpacker *u, bool full, const uint8_t **pp,
                           const uint8_t *end, char *why, size_t why_len)
{
    struct unpack_stream *s = u->cur;
    uint64_t idx, pc_off, delta, vaddr, prev;
    uint8_t info;

    if (packed_get_varint(pp, end, &idx) < 0 ||
        packed_get_varint(pp, end, &pc_off) < 0 || *pp >= end) {
        return fail(why, why_len, "cut memory packet");
    }
    info = *(*pp)++;
    if (packed_get_varint(pp, end, &delta) < 0) {
        return fail(why, why_len, "cut memory packet");
    }
    if (!u->mem.id) {
        return fail(why, why_len, "memory packet but no mem_access event");
    }
    if (!s->have_block) {
        return fail(why, why_len, "memory packet before any block");
    }
    if (u->accesses && !s->any_access) {
        first_access(s);
    }
    prev = s->last_vaddr;
    vaddr = prev + (uint64_t)packed_unzigzag(delta);
    access_record(u, idx, pc_off, info, vaddr);
    if (full) {
        return read_mem_full(u, info, vaddr, pp, end, why, why_len);
    }
    /* An offset beyond 32 bits is not learnt either. */
    note_access(u, pc_off > UINT32_MAX ? UINT32_MAX + 1ull : idx,
                (uint32_t)pc_off, info, vaddr, prev);
    return 1;
}

/*
 * The next access of the current block as its static access predicts
 * it, moved by delta: a predicted access (0), a hit, or a stride miss.
 */
static inline __attribute__((always_inline)) int
predicted_access(struct unpacker *u, uint64_t delta, char *why,
                 size_t why_len)
{
    struct unpack_stream *s = u->cur;
    struct packed_acc *a;
    uint64_t prev = s->last_vaddr, vaddr;

    if (!s->cur_tb || !u->mem.id) {
        return fail(why, why_len, "predicted access with no block");
    }
    a = packed_acc_at(s->acc, s->cur_tb, s->cur_k);
    if (!packed_acc_is(a, s->cur_tb, s->cur_k)) {
        return fail(why, why_len, "access %u of block %u has no "
                    "prediction", s->cur_k, s->cur_tb);
    }
    vaddr = packed_acc_next(a, prev) + delta;
    access_record(u, packed_acc_idx(a), packed_acc_pc_off(a),
                  packed_acc_info(a), vaddr);
    /* What note_access would do, its entry found: a; a hit when no delta. */
    if (delta) {
        packed_acc_made(a, vaddr, prev, u->access_rel);
    } else {
        a->last = vaddr;
    }
    s->cur_k++;
    return 1;
}

/*
 * The packets of predicted accesses (QTRACE_CHUNK_ACCESSES): hits, a
 * stride miss and its delta, a block whose accesses are packets.
 * Returns 1 with a record, 0 when the packet only set what comes next,
 * -1 on a malformed packet.
 */
static int read_access_packet(struct unpacker *u, uint8_t tag,
                              const uint8_t **pp, const uint8_t *end,
                              char *why, size_t why_len)
{
    uint64_t v = tag - PK_DELTA_SHORT;

    if (tag == PK_BLOCK_EXPLICIT) {
        if (packed_get_varint(pp, end, &v) < 0 || v > UINT32_MAX) {
            return fail(why, why_len, "bad run length");
        }
        if (claim_blocks(u, v + 1, why, why_len) < 0) {
            return -1;
        }
        u->pending = (uint32_t)v;
        u->explicit_next = true;
        return 0;
    }
    if (tag == PK_HITS || (tag >= PK_HITS_SHORT &&
                           tag < PK_HITS_SHORT + PK_HITS_SHORT_MAX)) {
        v = tag - PK_HITS_SHORT + 1;
        if (tag == PK_HITS &&
            (packed_get_varint(pp, end, &v) < 0 || v == 0)) {
            return fail(why, why_len, "bad hits packet");
        }
        if (claim_blocks(u, v, why, why_len) < 0) {
            return -1;
        }
        u->hits = v;
        return 0;
    }
    if (tag == PK_DELTA && packed_get_varint(pp, end, &v) < 0) {
        return fail(why, why_len, "cut delta packet");
    }
    return predicted_access(u, (uint64_t)packed_unzigzag(v), why, why_len);
}

/* An access packet stepped over (blocks are not being expanded). */
static int skip_access_packet(uint8_t tag, const uint8_t **pp,
                              const uint8_t *end, char *why, size_t why_len)
{
    uint64_t v;

    if ((tag == PK_BLOCK_EXPLICIT || tag == PK_HITS || tag == PK_DELTA) &&
        packed_get_varint(pp, end, &v) < 0) {
        return fail(why, why_len, "cut access packet");
    }
    return 0;
}

/* Whether tag is one of read_access_packet's. */
static inline bool is_access_tag(uint8_t tag)
{
    return tag == PK_BLOCK_EXPLICIT || tag == PK_HITS ||
           tag >= PK_HITS_SHORT;
}

/*
 * A function packet: a func_entry or func_exit, each field the last
 * function packet's plus the delta it carries.
 */
static int read_func_packet(struct unpacker *u, uint8_t tag,
                            const uint8_t **pp, const uint8_t *end,
                            char *why, size_t why_len)
{
    struct unpack_stream *s = u->cur;
    const struct unpack_layout *l = &u->func[tag >= PK_FUNC_EXIT];
    uint8_t *r;
    uint64_t d[4];
    int i;

    for (i = 0; i < 4; i++) {
        if (packed_get_varint(pp, end, &d[i]) < 0) {
            return fail(why, why_len, "cut function packet");
        }
    }
    if (!l->id) {
        return fail(why, why_len, "function packet but no %s event",
                    tag >= PK_FUNC_EXIT ? "func_exit" : "func_entry");
    }
    s->func_time += (uint64_t)packed_unzigzag(d[0]);
    s->func_pc += (uint64_t)packed_unzigzag(d[1]);
    s->func_other += (uint64_t)packed_unzigzag(d[2]);
    s->func_depth += (uint32_t)packed_unzigzag(d[3]);
    r = rec_for(u, REC_OTHER, l->id, l->size);
    store16(r, l->id);
    store16(r + 2, l->size);
    store64(r + 8, s->func_time);
    store64(r + l->off[0], s->func_pc);
    store64(r + l->off[1], s->func_other);
    store32(r + l->off[2], s->func_depth);
    r[l->off[3]] = (uint8_t)((tag - PK_FUNC_ENTRY) % PK_FUNC_KINDS);
    return 1;
}

int unpack_next(struct unpacker *u, struct unpack_cursor *c)
{
    const uint8_t **pp = &c->pos, *end = c->end, *base = c->base;
    const uint8_t **rec = &c->rec;
    size_t *avail = &c->avail;
    char *why = c->why;
    size_t why_len = sizeof(c->why);
    int ret;

    for (;;) {
        uint8_t tag;

        if (u->acc_pending || u->hits) {
            /* Predicted accesses: of a predicted block, or a hits packet. */
            u->acc_pending ? u->acc_pending-- : u->hits--;
            ret = predicted_access(u, 0, why, why_len);
            break;
        }
        if (u->pending) {
            u->pending--;
            ret = predicted_block(u, false, why, why_len);
            break;
        }
        if (u->explicit_next) {
            u->explicit_next = false;
            ret = predicted_block(u, true, why, why_len);
            break;
        }
        if (u->miss) {
            u->miss = false;
            ret = missed_block(u, u->miss_delta, why, why_len);
            break;
        }
        if (*pp >= end) {
            return 0;
        }
        tag = *(*pp)++;
        if (tag <= PK_BLOCK_SHORT_MAX || tag == PK_BLOCK || tag == PK_RUN) {
            if (read_block_packet(u, tag, pp, end, why, why_len) < 0) {
                return -1;
            }
            if (u->skip_blocks) {
                clear_pending(u);
            }
            continue;
        }
        if (u->phys && tag == PK_XLATE) {
            if (read_xlate_packet(u, pp, end, why, why_len) < 0) {
                return -1;
            }
            continue;
        }
        if (u->accesses && is_access_tag(tag) && u->skip_blocks) {
            if (skip_access_packet(tag, pp, end, why, why_len) < 0) {
                return -1;
            }
            continue;
        }
        if (u->accesses && is_access_tag(tag)) {
            ret = read_access_packet(u, tag, pp, end, why, why_len);
            if (ret != 0) {
                break;
            }
            continue;
        }
        if ((tag == PK_MEM || tag == PK_MEM_FULL) && u->skip_blocks) {
            if (skip_mem_packet(pp, end, tag == PK_MEM_FULL, why,
                                why_len) < 0) {
                return -1;
            }
            continue;
        }
        if (tag == PK_MEM || tag == PK_MEM_FULL) {
            ret = read_mem_packet(u, tag == PK_MEM_FULL, pp, end, why,
                                  why_len);
            break;
        }
        if (packed_is_func(tag)) {
            ret = read_func_packet(u, tag, pp, end, why, why_len);
            break;
        }
        if (tag != PK_RECORD) {
            return fail(why, why_len, "unknown packet tag 0x%02x", tag);
        }
        /* The record starts at the next multiple of 8 from base. */
        *rec = base + (((size_t)(*pp - base) + 7) & ~(size_t)7);
        if (*rec > end) {
            return fail(why, why_len, "cut record packet");
        }
        *avail = (size_t)(end - *rec);
        /* Checked whole by the caller, after: read only what is there. */
        if (u->lost_id && *avail >= (size_t)u->lost_insns + 4 &&
            load16(*rec) == u->lost_id) {
            restart_stream(u->cur, load64(*rec + 8),
                           load32(*rec + u->lost_insns));
        }
        return 2;
    }
    if (ret > 0) {
        *rec = u->rec_made;
        *avail = sizeof(u->rec_buf[0]);
    }
    return ret;
}

int unpack_count(struct unpacker *u, struct unpack_cursor *c,
                 uint64_t *counts, uint64_t *n)
{
    const uint8_t **pp = &c->pos, *end = c->end, *base = c->base;
    const uint8_t **rec = &c->rec;
    size_t *avail = &c->avail;
    char *why = c->why;
    size_t why_len = sizeof(c->why);
    const uint8_t *p = *pp;
    uint64_t blocks = 0, mems = 0, funcs[2] = { 0, 0 }, v = 0;
    bool accesses = u->accesses;
    int ret = 0, i;

    if (accesses && u->cur->any_access) {
        return 3;
    }
    while (p < end) {
        uint8_t tag = *p++;

        if (tag <= PK_BLOCK_SHORT_MAX) {
            blocks += tag + 1u;
            ret = packed_get_varint(&p, end, &v);
        } else if (tag == PK_BLOCK || tag == PK_RUN) {
            ret = packed_get_varint(&p, end, &v);
            blocks += v + (tag == PK_BLOCK);
            if (ret == 0 && tag == PK_BLOCK) {
                ret = packed_get_varint(&p, end, &v);
            }
        } else if (accesses && tag == PK_BLOCK_EXPLICIT) {
            /* Before any access: a block whose accesses follow. */
            ret = packed_get_varint(&p, end, &v);
            blocks += v + 1;
        } else if (accesses && (tag == PK_MEM || is_access_tag(tag) ||
                                (u->phys && tag == PK_XLATE))) {
            /* The stream's first access: the caller expands from here. */
            p--;
            ret = 3;
            break;
        } else if (tag == PK_MEM || tag == PK_MEM_FULL) {
            ret = packed_skip_mem(&p, end, tag == PK_MEM_FULL);
            mems++;
        } else if (packed_is_func(tag)) {
            ret = 0;
            for (i = 0; i < 4 && ret == 0; i++) {
                ret = packed_get_varint(&p, end, &v);
            }
            funcs[tag >= PK_FUNC_EXIT]++;
        } else if (tag == PK_RECORD) {
            *rec = base + (((size_t)(p - base) + 7) & ~(size_t)7);
            if (*rec > end) {
                ret = -1;
                break;
            }
            *avail = (size_t)(end - *rec);
            /* A restart, for the accesses unpack_next may read next. */
            if (accesses && u->lost_id &&
                *avail >= (size_t)u->lost_insns + 4 &&
                load16(*rec) == u->lost_id) {
                restart_stream(u->cur, load64(*rec + 8),
                               load32(*rec + u->lost_insns));
            }
            ret = 2;
            break;
        } else {
            *pp = p - 1;
            return fail(why, why_len, "unknown packet tag 0x%02x", tag);
        }
        if (ret < 0) {
            break;
        }
    }
    *pp = p;
    if ((blocks && !u->exec_tb.id) || (mems && !u->mem.id) ||
        (funcs[0] && !u->func[0].id) || (funcs[1] && !u->func[1].id)) {
        return fail(why, why_len, "packets of an event the catalog lacks");
    }
    if (claim_blocks(u, blocks, why, why_len) < 0) {
        return -1;
    }
    if (blocks && u->cur) {
        /* For an access that unpack_next reads next (return 3). */
        u->cur->have_block = true;
    }
    counts[u->exec_tb.id] += blocks;
    counts[u->mem.id] += mems;
    counts[u->func[0].id] += funcs[0];
    counts[u->func[1].id] += funcs[1];
    *n += blocks + mems + funcs[0] + funcs[1];
    if (ret == -1) {
        return fail(why, why_len, "cut packet");
    }
    return ret;
}
