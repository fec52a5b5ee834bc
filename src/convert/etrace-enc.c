/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The etrace encoder (see etrace-enc.h; layout in src/format/etrace.h and
 * docs/etrace.md). Block executions wait, one per unit, until the block is
 * over, then join the EXEC cache, one entry per block, as the Xilinx QEMU
 * writes them. The cache becomes an EXEC record and a BARRIER when it is
 * full, when another unit's block arrives and before any MEM, NOTE or
 * EVENT_U64 record, as in the Xilinx QEMU.
 *
 * Order across units: records come unit by unit (a stream's chunk at a
 * time), not in the order they happened. A unit that has passed an order
 * point (etrace_enc_order) has its records held in a segment that starts
 * at that point, and segments go out by their point, so that what a unit
 * did after a point the run reached later comes later in the output.
 */
#include <elf.h>
#include <endian.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etrace-enc.h"
#include "../format/etrace.h"
#include "qtrace/arch.h"
#include "qtrace/format.h"
#include "qtrace/syscall.h"

#define OUT_CAP (64u << 10)         /* bytes gathered before a write */
#define NOTE_MAX 512                /* bytes of one note's text */
/*
 * Bytes of held segments past which the encoder stops waiting for the
 * missing point (a unit blocked for long, a lost record) and writes what
 * it holds, in point order.
 */
#define HOLD_MAX (64u << 20)

/* The host, for the ARCH record (QEMU's own machine). */
#if defined(__x86_64__)
#define HOST_MACHINE EM_X86_64
#define HOST_BITS 64
#elif defined(__aarch64__)
#define HOST_MACHINE EM_AARCH64
#define HOST_BITS 64
#elif defined(__riscv) && __riscv_xlen == 64
#define HOST_MACHINE 243            /* EM_RISCV */
#define HOST_BITS 64
#elif defined(__powerpc64__)
#define HOST_MACHINE EM_PPC64
#define HOST_BITS 64
#elif defined(__s390x__)
#define HOST_MACHINE EM_S390
#define HOST_BITS 64
#elif defined(__i386__)
#define HOST_MACHINE EM_386
#define HOST_BITS 32
#elif defined(__arm__)
#define HOST_MACHINE EM_ARM
#define HOST_BITS 32
#else
#define HOST_MACHINE 0              /* unknown: zeros, as the original */
#define HOST_BITS 0
#endif
#define HOST_BIG_ENDIAN (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__)

struct range {
    uint64_t start, end;            /* [start, end) */
    uint64_t time;                  /* when it started */
    uint32_t duration;              /* instructions */
    bool valid;                     /* pending slots only */
};

/* Records of one unit from one order point to its next. */
struct segment {
    uint64_t point;                 /* the order point it starts at */
    uint8_t *data;
    size_t len, cap;
};

/* What the encoder keeps per unit. */
struct unit_state {
    struct range pending;           /* the block still running */
    bool ordered;                   /* passed a point: output is held */
    struct segment open;            /* since its last point */
};

struct etrace_enc {
    struct etrace_enc_cfg cfg;
    const struct qtrace_arch *arch;
    const struct qtrace_syscall_table *syscalls;
    int error;                      /* first write error, then sticky */

    uint8_t *out;                   /* OUT_CAP bytes not yet written */
    size_t out_len;

    struct range *cache;            /* ETRACE_EXEC_MAX_ENTRIES entries */
    uint32_t n_cache;
    uint16_t cache_unit;

    struct unit_state *units;       /* by unit */
    size_t n_units;                 /* slots allocated */
    struct segment *dst;            /* where put() writes; NULL: out */

    struct segment *held;           /* closed segments, min-heap by point */
    size_t n_held, cap_held;
    size_t held_bytes;              /* their data */
    uint64_t next_point;            /* the point to write next */
};

/* ---- output ---- */

int etrace_enc_sync(struct etrace_enc *enc)
{
    if (enc->error == 0 && enc->out_len > 0) {
        enc->error = enc->cfg.write(enc->cfg.ctx, enc->out, enc->out_len);
    }
    enc->out_len = 0;
    return enc->error;
}

/*
 * n more bytes at the end of a held segment, or NULL: out of memory is
 * an error of the output.
 */
static uint8_t *held_room(struct etrace_enc *enc, struct segment *sg,
                          size_t n)
{
    uint8_t *at;

    if (n > sg->cap - sg->len) {
        size_t cap = sg->cap ? sg->cap : 4096;
        uint8_t *d;

        while (cap - sg->len < n) {
            cap *= 2;
        }
        d = realloc(sg->data, cap);
        if (!d) {
            enc->error = -ENOMEM;
            return NULL;
        }
        sg->data = d;
        sg->cap = cap;
    }
    at = sg->data + sg->len;
    sg->len += n;
    return at;
}

static void put_held(struct etrace_enc *enc, struct segment *sg,
                     const void *p, size_t n)
{
    uint8_t *at = held_room(enc, sg, n);

    if (at) {
        memcpy(at, p, n);
    }
}

/*
 * Room for a record of n bytes (n well below OUT_CAP) where put() would
 * write next, for the caller to fill field by field: one check for the
 * record rather than a put() for each field, which cost a quarter of a
 * conversion. NULL after an error, when nothing is written any more.
 */
static inline uint8_t *room(struct etrace_enc *enc, size_t n)
{
    uint8_t *at;

    if (enc->error) {
        return NULL;
    }
    if (enc->dst) {
        return held_room(enc, enc->dst, n);
    }
    if (n > OUT_CAP - enc->out_len && etrace_enc_sync(enc) < 0) {
        return NULL;
    }
    at = enc->out + enc->out_len;
    enc->out_len += n;
    return at;
}

static void put(struct etrace_enc *enc, const void *p, size_t n)
{
    /* An empty held segment has no buffer: p is NULL then. */
    if (enc->error || n == 0) {
        return;
    }
    if (enc->dst) {
        put_held(enc, enc->dst, p, n);
        return;
    }
    if (n > OUT_CAP - enc->out_len) {
        etrace_enc_sync(enc);
        if (n >= OUT_CAP) {
            if (enc->error == 0) {
                enc->error = enc->cfg.write(enc->cfg.ctx, p, n);
            }
            return;
        }
    }
    memcpy(enc->out + enc->out_len, p, n);
    enc->out_len += n;
}

static void put16(struct etrace_enc *enc, uint16_t v)
{
    v = htole16(v);
    put(enc, &v, sizeof(v));
}

static void put32(struct etrace_enc *enc, uint32_t v)
{
    v = htole32(v);
    put(enc, &v, sizeof(v));
}

static void put64(struct etrace_enc *enc, uint64_t v)
{
    v = htole64(v);
    put(enc, &v, sizeof(v));
}

/* Store v little-endian at p; returns the byte after it. */
static uint8_t *store16(uint8_t *p, uint16_t v)
{
    v = htole16(v);
    memcpy(p, &v, sizeof(v));
    return p + sizeof(v);
}

static uint8_t *store32(uint8_t *p, uint32_t v)
{
    v = htole32(v);
    memcpy(p, &v, sizeof(v));
    return p + sizeof(v);
}

static uint8_t *store64(uint8_t *p, uint64_t v)
{
    v = htole64(v);
    memcpy(p, &v, sizeof(v));
    return p + sizeof(v);
}

/* A record header at p; returns the byte after it. */
static uint8_t *store_hdr(uint8_t *p, uint16_t type, uint16_t unit,
                          uint32_t len)
{
    p = store16(p, type);
    p = store16(p, unit);
    return store32(p, len);
}

static void put_hdr(struct etrace_enc *enc, uint16_t type, uint16_t unit,
                    uint32_t len)
{
    put16(enc, type);
    put16(enc, unit);
    put32(enc, len);
}

/* ---- where a unit's records go ---- */

/* The state of unit, grown on demand; NULL when out of memory. */
static struct unit_state *unit_of(struct etrace_enc *enc, uint16_t unit)
{
    if (unit >= enc->n_units) {
        size_t n = (size_t)unit + 16;
        struct unit_state *u = realloc(enc->units, n * sizeof(*u));

        if (!u) {
            enc->error = -ENOMEM;
            return NULL;
        }
        memset(u + enc->n_units, 0, (n - enc->n_units) * sizeof(*u));
        enc->units = u;
        enc->n_units = n;
    }
    return &enc->units[unit];
}

/*
 * Whether unit u's records wait in its open segment: it started at a
 * point that is not the next to write. The segment at the next point
 * goes straight out, so that a run whose vCPUs meet no point (one vCPU,
 * system mode) reaches a socket peer live.
 */
static bool is_held(const struct etrace_enc *enc, const struct unit_state *u)
{
    return u->ordered && u->open.point > enc->next_point;
}

/* Make put() write where unit's records go: its open segment, or out. */
static void route(struct etrace_enc *enc, uint16_t unit)
{
    struct unit_state *u = unit < enc->n_units ? &enc->units[unit] : NULL;

    enc->dst = u && is_held(enc, u) ? &u->open : NULL;
}

/* ---- EXEC ---- */

/* n entries of an EXEC record from r at p; returns the byte after. */
static uint8_t *store_entries(uint8_t *p, const struct range *r, uint32_t n,
                              bool narrow)
{
    uint32_t i;

    for (i = 0; i < n; i++) {
        p = store32(p, r[i].duration);
        if (narrow) {
            p = store32(p, (uint32_t)r[i].start);
            p = store32(p, (uint32_t)r[i].end);
        } else {
            p = store64(p, r[i].start);
            p = store64(p, r[i].end);
        }
    }
    return p;
}

/*
 * The entries of the cache, stored in place a batch at a time (room()
 * takes records well below OUT_CAP): one reservation per batch, not a
 * put() per field.
 */
static void put_entries(struct etrace_enc *enc, bool narrow, uint32_t entry)
{
    enum { BATCH = 256 };
    uint32_t i, n;
    uint8_t *p;

    for (i = 0; i < enc->n_cache; i += n) {
        n = enc->n_cache - i < BATCH ? enc->n_cache - i : BATCH;
        p = room(enc, (size_t)n * entry);
        if (!p) {
            return;
        }
        store_entries(p, enc->cache + i, n, narrow);
    }
}

/* The EXEC record of the cache and its BARRIER, where its unit's go. */
static void flush_cache(struct etrace_enc *enc)
{
    bool narrow = enc->arch->word_bits == 32;
    uint32_t entry = narrow ? ETRACE_EXEC32_ENTRY : ETRACE_EXEC64_ENTRY;
    struct segment *caller = enc->dst;
    uint32_t len = ETRACE_EXEC_HEAD + enc->n_cache * entry;
    uint8_t *p;

    if (enc->n_cache == 0) {
        return;
    }
    route(enc, enc->cache_unit);
    p = room(enc, ETRACE_HDR_SIZE + ETRACE_EXEC_HEAD);
    if (p) {
        store64(store_hdr(p, ETRACE_EXEC, enc->cache_unit, len),
                enc->cache[0].time);
    }
    put_entries(enc, narrow, entry);
    p = room(enc, ETRACE_HDR_SIZE);
    if (p) {
        store_hdr(p, ETRACE_BARRIER, enc->cache_unit, 0);
    }
    enc->n_cache = 0;
    enc->dst = caller;
}

/*
 * One entry per block, never merged: the original's merge test compares
 * the new range with the empty slot after its last entry, so it never
 * merges, and a reader that splits entries by symbol (qemu-etrace) would
 * credit one function with another's block if it did.
 */
static void add_to_cache(struct etrace_enc *enc, uint16_t unit,
                         const struct range *r)
{
    if (enc->n_cache > 0 && enc->cache_unit != unit) {
        flush_cache(enc);
    }
    enc->cache_unit = unit;
    enc->cache[enc->n_cache++] = *r;
    if (enc->n_cache == ETRACE_EXEC_MAX_ENTRIES) {
        flush_cache(enc);
    }
}

/* The block unit was running is over: into the cache with it. */
static void commit_pending(struct etrace_enc *enc, uint16_t unit)
{
    struct range *p = unit < enc->n_units ? &enc->units[unit].pending
                                          : NULL;

    if (p && p->valid) {
        p->valid = false;
        add_to_cache(enc, unit, p);
    }
}

int etrace_enc_block(struct etrace_enc *enc, uint16_t unit, uint64_t time,
                     uint64_t start, uint64_t end, uint32_t n_insns)
{
    struct unit_state *u;

    if (!(enc->cfg.flags & ETRACE_F_EXEC) || enc->error) {
        return enc->error;
    }
    commit_pending(enc, unit);
    u = unit_of(enc, unit);
    if (!u) {
        return enc->error;
    }
    u->pending = (struct range){ .start = start, .end = end, .time = time,
                                 .duration = n_insns, .valid = true };
    return 0;
}

/* ---- order across units ---- */

static bool held_before(const struct segment *a, const struct segment *b)
{
    return a->point < b->point;
}

static void heap_swap(struct segment *a, struct segment *b)
{
    struct segment t = *a;

    *a = *b;
    *b = t;
}

static int heap_push(struct etrace_enc *enc, const struct segment *sg)
{
    size_t i;

    if (enc->n_held == enc->cap_held) {
        size_t cap = enc->cap_held ? 2 * enc->cap_held : 64;
        struct segment *h = realloc(enc->held, cap * sizeof(*h));

        if (!h) {
            return -ENOMEM;
        }
        enc->held = h;
        enc->cap_held = cap;
    }
    i = enc->n_held++;
    enc->held[i] = *sg;
    while (i > 0 && held_before(&enc->held[i], &enc->held[(i - 1) / 2])) {
        heap_swap(&enc->held[i], &enc->held[(i - 1) / 2]);
        i = (i - 1) / 2;
    }
    return 0;
}

static struct segment heap_pop(struct etrace_enc *enc)
{
    struct segment top = enc->held[0];
    size_t i = 0;

    enc->held[0] = enc->held[--enc->n_held];
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;

        if (l < enc->n_held && held_before(&enc->held[l], &enc->held[m])) {
            m = l;
        }
        if (r < enc->n_held && held_before(&enc->held[r], &enc->held[m])) {
            m = r;
        }
        if (m == i) {
            return top;
        }
        heap_swap(&enc->held[i], &enc->held[m]);
        i = m;
    }
}

/* Open segments whose turn came: what they hold goes out, the rest too. */
static void release_open(struct etrace_enc *enc)
{
    size_t i;

    for (i = 0; i < enc->n_units; i++) {
        struct segment *sg = &enc->units[i].open;

        if (enc->units[i].ordered && !is_held(enc, &enc->units[i]) &&
            sg->len > 0) {
            put(enc, sg->data, sg->len);
            sg->len = 0;
        }
    }
}

/*
 * Write the held segments whose turn it is: the next point's, and any
 * from before it (a point given up on earlier). With force, stop waiting
 * for missing points and write them all in point order.
 */
static void write_held(struct etrace_enc *enc, bool force)
{
    struct segment *caller = enc->dst;

    enc->dst = NULL;
    while (enc->n_held > 0 &&
           (enc->held[0].point <= enc->next_point || force ||
            enc->held_bytes > HOLD_MAX)) {
        struct segment sg = heap_pop(enc);

        put(enc, sg.data, sg.len);
        enc->held_bytes -= sg.len;
        free(sg.data);
        if (sg.point >= enc->next_point) {
            enc->next_point = sg.point + 1;
        }
    }
    release_open(enc);
    enc->dst = caller;
}

/* End unit's open segment: it waits for its turn among the held ones. */
static void close_segment(struct etrace_enc *enc, struct unit_state *u)
{
    if (!u->ordered) {
        return;
    }
    u->ordered = false;
    if (heap_push(enc, &u->open) < 0) {
        free(u->open.data);
        enc->error = -ENOMEM;
    } else {
        enc->held_bytes += u->open.len;
    }
    memset(&u->open, 0, sizeof(u->open));
}

int etrace_enc_order(struct etrace_enc *enc, uint16_t unit, uint64_t point)
{
    struct unit_state *u;

    if (enc->error) {
        return enc->error;
    }
    /* What the unit did up to here, its last block too, ends there. */
    commit_pending(enc, unit);
    if (enc->n_cache > 0 && enc->cache_unit == unit) {
        flush_cache(enc);
    }
    u = unit_of(enc, unit);
    if (!u) {
        return enc->error;
    }
    close_segment(enc, u);
    u->ordered = true;
    u->open.point = point;
    write_held(enc, false);
    return enc->error;
}

/* ---- the other records ---- */

int etrace_enc_begin(struct etrace_enc *enc)
{
    const struct qtrace_arch *a = enc->arch;

    put_hdr(enc, ETRACE_INFO, 0, ETRACE_INFO_SIZE);
    /* attr 0: every block execution is recorded, chained or not. */
    put64(enc, 0);
    put16(enc, ETRACE_VERSION_MAJOR);
    put16(enc, ETRACE_VERSION_MINOR);
    put_hdr(enc, ETRACE_ARCH, 0, ETRACE_ARCH_SIZE);
    put32(enc, a->elf_machine);
    put(enc, (const uint8_t[4]){ a->word_bits, a->big_endian, 0, 0 }, 4);
    put32(enc, HOST_MACHINE);
    put(enc, (const uint8_t[4]){ HOST_BITS, HOST_BIG_ENDIAN, 0, 0 }, 4);
    return etrace_enc_sync(enc);
}

int etrace_enc_tb(struct etrace_enc *enc, uint64_t pc, const uint8_t *code,
                  size_t len)
{
    if (!(enc->cfg.flags & ETRACE_F_DISAS) || enc->error) {
        return enc->error;
    }
    /* A translation belongs to no unit and precedes its executions. */
    enc->dst = NULL;
    put_hdr(enc, ETRACE_TB, 0, ETRACE_TB_HEAD + (uint32_t)len);
    put64(enc, pc);
    /* No physical address of code reaches a plugin: see docs/etrace.md. */
    put64(enc, pc);
    put64(enc, 0);                  /* no host code: a plugin has none */
    put32(enc, (uint32_t)len);
    put32(enc, 0);
    put(enc, code, len);
    return enc->error;
}

int etrace_enc_access(struct etrace_enc *enc, uint16_t unit, uint64_t time,
                      uint64_t vaddr, uint64_t paddr, uint64_t value,
                      uint8_t size, uint8_t qflags, const char *dev,
                      size_t dev_len)
{
    bool store = qflags & QTRACE_MEM_STORE;

    if (!(qflags & QTRACE_MEM_HAS_PADDR)) {
        paddr = vaddr;              /* user mode: one address space */
    }
    route(enc, unit);
    if ((enc->cfg.flags & ETRACE_F_MEM) && !enc->error) {
        uint8_t *p;

        flush_cache(enc);
        p = room(enc, ETRACE_HDR_SIZE + ETRACE_MEM_SIZE);
        if (p) {
            p = store_hdr(p, ETRACE_MEM, unit, ETRACE_MEM_SIZE);
            p = store64(p, time);
            p = store64(p, vaddr);
            p = store64(p, paddr);
            p = store64(p, value);
            p = store32(p, store ? ETRACE_MEM_WRITE : 0);
            memcpy(p, (const uint8_t[4]){ size, 0, 0, 0 }, 4);
        }
    }
    if ((enc->cfg.flags & ETRACE_F_GPIO) && (qflags & QTRACE_MEM_IO) &&
        dev_len > 0 && !enc->error) {
        const char *name = store ? "write" : "read";

        dev_len = dev_len > 255 ? 255 : dev_len;
        flush_cache(enc);
        put_hdr(enc, ETRACE_EVENT_U64, unit,
                ETRACE_EVENT_HEAD + (uint32_t)dev_len + 1 +
                (uint32_t)strlen(name) + 1);
        put32(enc, 0);              /* no previous value */
        put16(enc, unit);
        put16(enc, 0);
        put64(enc, time);
        put64(enc, paddr);
        put64(enc, 0);
        put16(enc, (uint16_t)(dev_len + 1));
        put16(enc, (uint16_t)(strlen(name) + 1));
        put(enc, dev, dev_len);
        put(enc, "", 1);
        put(enc, name, strlen(name) + 1);
    }
    return enc->error;
}

static int put_note(struct etrace_enc *enc, uint16_t unit, uint64_t time,
                    const char *text)
{
    size_t n = strlen(text);

    /* Text ends in a newline, as the original's qemu_log lines do. */
    route(enc, unit);
    flush_cache(enc);
    put_hdr(enc, ETRACE_NOTE, unit, ETRACE_NOTE_HEAD + (uint32_t)n + 1);
    put64(enc, time);
    put(enc, text, n);
    put(enc, "\n", 1);
    return enc->error;
}

int etrace_enc_vcpu(struct etrace_enc *enc, uint16_t unit, uint64_t time,
                    bool start)
{
    char text[64];

    if (!start) {
        /* Its last block is over. */
        commit_pending(enc, unit);
    }
    if (!(enc->cfg.flags & ETRACE_F_CPU) || enc->error) {
        return enc->error;
    }
    snprintf(text, sizeof(text), "vcpu %u %s", unit,
             start ? "start" : "exit");
    return put_note(enc, unit, time, text);
}

static const char *syscall_name(const struct etrace_enc *enc, int64_t num,
                                char *buf, size_t len)
{
    const char *name = qtrace_syscall_name(enc->syscalls, num);

    if (!name) {
        snprintf(buf, len, "syscall_%" PRId64, num);
        name = buf;
    }
    return name;
}

int etrace_enc_syscall(struct etrace_enc *enc, uint16_t unit, uint64_t time,
                       int64_t num, const uint64_t args[6])
{
    char text[NOTE_MAX];
    char buf[32];

    if (!(enc->cfg.flags & ETRACE_F_CPU) || enc->error) {
        return enc->error;
    }
    snprintf(text, sizeof(text), "syscall %s(0x%" PRIx64 ", 0x%" PRIx64
             ", 0x%" PRIx64 ", 0x%" PRIx64 ", 0x%" PRIx64 ", 0x%" PRIx64 ")",
             syscall_name(enc, num, buf, sizeof(buf)), args[0], args[1],
             args[2], args[3], args[4], args[5]);
    return put_note(enc, unit, time, text);
}

int etrace_enc_syscall_ret(struct etrace_enc *enc, uint16_t unit,
                           uint64_t time, int64_t num, int64_t ret)
{
    char text[NOTE_MAX];
    char buf[32];

    if (!(enc->cfg.flags & ETRACE_F_CPU) || enc->error) {
        return enc->error;
    }
    snprintf(text, sizeof(text), "syscall %s = %" PRId64,
             syscall_name(enc, num, buf, sizeof(buf)), ret);
    return put_note(enc, unit, time, text);
}

int etrace_enc_note(struct etrace_enc *enc, uint16_t unit, uint64_t time,
                    const char *text)
{
    char line[NOTE_MAX];

    if (!(enc->cfg.flags & ETRACE_F_CPU) || enc->error) {
        return enc->error;
    }
    /* One line, as every NOTE; cut to the longest note. */
    snprintf(line, sizeof(line), "%s", text);
    line[strcspn(line, "\n")] = '\0';
    return put_note(enc, unit, time, line);
}

int etrace_enc_end(struct etrace_enc *enc)
{
    size_t unit;

    /* In unit order, so the output does not depend on anything else. */
    for (unit = 0; unit < enc->n_units; unit++) {
        commit_pending(enc, (uint16_t)unit);
    }
    flush_cache(enc);
    for (unit = 0; unit < enc->n_units; unit++) {
        close_segment(enc, &enc->units[unit]);
    }
    write_held(enc, true);
    return etrace_enc_sync(enc);
}

/* ---- life cycle ---- */

int etrace_enc_new(struct etrace_enc **out, const struct etrace_enc_cfg *cfg,
                   struct qtrace_err *err)
{
    const struct qtrace_arch *arch = qtrace_arch_by_name(cfg->arch);
    struct etrace_enc *enc;

    *out = NULL;
    if (!arch) {
        qtrace_err_set(err, "arch %s: no ELF machine known for it",
                       cfg->arch);
        return -EINVAL;
    }
    enc = calloc(1, sizeof(*enc));
    if (enc) {
        enc->out = malloc(OUT_CAP);
        enc->cache = malloc(ETRACE_EXEC_MAX_ENTRIES * sizeof(*enc->cache));
    }
    if (!enc || !enc->out || !enc->cache) {
        etrace_enc_free(enc);
        qtrace_err_set(err, "%s", strerror(ENOMEM));
        return -ENOMEM;
    }
    enc->cfg = *cfg;
    enc->arch = arch;
    enc->syscalls = qtrace_syscall_table_find(cfg->arch);
    *out = enc;
    return 0;
}

void etrace_enc_free(struct etrace_enc *enc)
{
    size_t i;

    if (!enc) {
        return;
    }
    free(enc->out);
    free(enc->cache);
    for (i = 0; i < enc->n_units; i++) {
        free(enc->units[i].open.data);
    }
    free(enc->units);
    for (i = 0; i < enc->n_held; i++) {
        free(enc->held[i].data);
    }
    free(enc->held);
    free(enc);
}
