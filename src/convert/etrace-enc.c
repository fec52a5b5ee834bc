/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The etrace encoder (see etrace-enc.h; layout in src/format/etrace.h and
 * docs/etrace.md). Block executions wait, one per unit, until the block is
 * over, then join the EXEC cache, where a range that continues the last
 * one within its page extends it. The cache becomes an EXEC record and a
 * BARRIER when it is full, when another unit's block arrives and before
 * any MEM, NOTE or EVENT_U64 record, as in the Xilinx QEMU.
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

    struct range *pending;          /* by unit: the block still running */
    size_t n_pending;               /* slots allocated */
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

static void put(struct etrace_enc *enc, const void *p, size_t n)
{
    if (enc->error) {
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

static void put_hdr(struct etrace_enc *enc, uint16_t type, uint16_t unit,
                    uint32_t len)
{
    put16(enc, type);
    put16(enc, unit);
    put32(enc, len);
}

/* ---- EXEC ---- */

/* The EXEC record of the cache and its BARRIER. */
static void flush_cache(struct etrace_enc *enc)
{
    bool narrow = enc->arch->word_bits == 32;
    uint32_t entry = narrow ? ETRACE_EXEC32_ENTRY : ETRACE_EXEC64_ENTRY;
    uint32_t i;

    if (enc->n_cache == 0) {
        return;
    }
    put_hdr(enc, ETRACE_EXEC, enc->cache_unit,
            ETRACE_EXEC_HEAD + enc->n_cache * entry);
    put64(enc, enc->cache[0].time);
    for (i = 0; i < enc->n_cache; i++) {
        const struct range *r = &enc->cache[i];

        put32(enc, r->duration);
        if (narrow) {
            put32(enc, (uint32_t)r->start);
            put32(enc, (uint32_t)r->end);
        } else {
            put64(enc, r->start);
            put64(enc, r->end);
        }
    }
    put_hdr(enc, ETRACE_BARRIER, enc->cache_unit, 0);
    enc->n_cache = 0;
}

static bool same_page(uint64_t a, uint64_t b)
{
    return (a & ETRACE_PAGE_MASK) == (b & ETRACE_PAGE_MASK);
}

/*
 * The original's merge rule: b continues a (a.end == b.start), neither is
 * empty, and each starts and ends in one page. (Its end is exclusive, so
 * a range ending exactly at a page boundary does not merge.)
 */
static bool can_merge(const struct range *a, const struct range *b)
{
    return a->end == b->start && a->start != a->end &&
           b->start != b->end && same_page(a->start, a->end) &&
           same_page(b->start, b->end);
}

static void add_to_cache(struct etrace_enc *enc, uint16_t unit,
                         const struct range *r)
{
    struct range *last;

    if (enc->n_cache > 0 && enc->cache_unit != unit) {
        flush_cache(enc);
    }
    enc->cache_unit = unit;
    last = enc->n_cache ? &enc->cache[enc->n_cache - 1] : NULL;
    if (last && can_merge(last, r)) {
        last->end = r->end;
        last->duration += r->duration;
        return;
    }
    enc->cache[enc->n_cache++] = *r;
    if (enc->n_cache == ETRACE_EXEC_MAX_ENTRIES) {
        flush_cache(enc);
    }
}

/* The pending slot of unit, grown on demand; NULL when out of memory. */
static struct range *pending_of(struct etrace_enc *enc, uint16_t unit)
{
    if (unit >= enc->n_pending) {
        size_t n = (size_t)unit + 16;
        struct range *p = realloc(enc->pending, n * sizeof(*p));

        if (!p) {
            return NULL;
        }
        memset(p + enc->n_pending, 0, (n - enc->n_pending) * sizeof(*p));
        enc->pending = p;
        enc->n_pending = n;
    }
    return &enc->pending[unit];
}

/* The block unit was running is over: into the cache with it. */
static void commit_pending(struct etrace_enc *enc, uint16_t unit)
{
    struct range *p = unit < enc->n_pending ? &enc->pending[unit] : NULL;

    if (p && p->valid) {
        p->valid = false;
        add_to_cache(enc, unit, p);
    }
}

int etrace_enc_block(struct etrace_enc *enc, uint16_t unit, uint64_t time,
                     uint64_t start, uint64_t end, uint32_t n_insns)
{
    struct range *p;

    if (!(enc->cfg.flags & ETRACE_F_EXEC) || enc->error) {
        return enc->error;
    }
    commit_pending(enc, unit);
    p = pending_of(enc, unit);
    if (!p) {
        enc->error = -ENOMEM;
        return enc->error;
    }
    *p = (struct range){ .start = start, .end = end, .time = time,
                         .duration = n_insns, .valid = true };
    return 0;
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
    if ((enc->cfg.flags & ETRACE_F_MEM) && !enc->error) {
        flush_cache(enc);
        put_hdr(enc, ETRACE_MEM, unit, ETRACE_MEM_SIZE);
        put64(enc, time);
        put64(enc, vaddr);
        put64(enc, paddr);
        put64(enc, value);
        put32(enc, store ? ETRACE_MEM_WRITE : 0);
        put(enc, (const uint8_t[4]){ size, 0, 0, 0 }, 4);
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

    flush_cache(enc);
    put_hdr(enc, ETRACE_NOTE, unit, ETRACE_NOTE_HEAD + (uint32_t)n);
    put64(enc, time);
    put(enc, text, n);
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

int etrace_enc_end(struct etrace_enc *enc)
{
    size_t unit;

    /* In unit order, so the output does not depend on anything else. */
    for (unit = 0; unit < enc->n_pending; unit++) {
        commit_pending(enc, (uint16_t)unit);
    }
    flush_cache(enc);
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
    if (!enc) {
        return;
    }
    free(enc->out);
    free(enc->cache);
    free(enc->pending);
    free(enc);
}
