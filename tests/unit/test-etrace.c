/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for the etrace encoder (src/convert/etrace-enc.c) and its
 * reading through the reader (src/format/etrace.c): exact bytes of the
 * records, checked at the offsets of docs/etrace.md by hand-written
 * loads; one entry per block, the order of MEM and EXEC records, flushes,
 * the order across units from order points;
 * decoding, errors of cut and bad streams; the etrace-flags parser.
 */
#include <errno.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "etrace-enc.h"
#include "etrace.h"
#include "qtrace/format.h"
#include "qtrace/reader.h"

/* What the encoder wrote, in memory. */
struct out {
    uint8_t buf[1 << 20];
    size_t len;
    int calls;
    int fail_with;                  /* returned by write when not 0 */
};

static int out_write(void *ctx, const void *buf, size_t len)
{
    struct out *o = ctx;

    o->calls++;
    if (o->fail_with) {
        return o->fail_with;
    }
    assert_true(o->len + len <= sizeof(o->buf));
    memcpy(o->buf + o->len, buf, len);
    o->len += len;
    return 0;
}

static uint16_t ld16(const uint8_t *p)
{
    return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t ld32(const uint8_t *p)
{
    return ld16(p) | (uint32_t)ld16(p + 2) << 16;
}

static uint64_t ld64(const uint8_t *p)
{
    return ld32(p) | (uint64_t)ld32(p + 4) << 32;
}

/* The records of o as (type, unit, payload offset, len), in order. */
struct rec {
    uint16_t type, unit;
    const uint8_t *p;
    uint32_t len;
};

static size_t split(const struct out *o, struct rec *recs, size_t max)
{
    size_t off = 0, n = 0;

    while (off < o->len) {
        assert_true(off + 8 <= o->len);
        assert_true(n < max);
        recs[n].type = ld16(o->buf + off);
        recs[n].unit = ld16(o->buf + off + 2);
        recs[n].len = ld32(o->buf + off + 4);
        recs[n].p = o->buf + off + 8;
        off += 8 + recs[n].len;
        assert_true(off <= o->len);
        n++;
    }
    return n;
}

static struct etrace_enc *new_enc(struct out *o, const char *arch,
                                  uint32_t flags)
{
    struct etrace_enc_cfg cfg = {
        .arch = arch, .flags = flags, .write = out_write, .ctx = o,
    };
    struct etrace_enc *enc;
    struct qtrace_err err;

    memset(o, 0, sizeof(*o));
    assert_int_equal(etrace_enc_new(&enc, &cfg, &err), 0);
    assert_int_equal(etrace_enc_begin(enc), 0);
    return enc;
}

/* Entry i of an EXEC payload: duration, start, end. */
static void exec_entry(const struct rec *r, unsigned int bits, size_t i,
                       uint32_t *dur, uint64_t *start, uint64_t *end)
{
    const uint8_t *p = r->p + 8 + i * (bits == 32 ? 12 : 20);

    *dur = ld32(p);
    *start = bits == 32 ? ld32(p + 4) : ld64(p + 4);
    *end = bits == 32 ? ld32(p + 8) : ld64(p + 12);
}

static void test_etrace_begin_writes_info_and_arch(void **state)
{
    static struct out o;
    struct etrace_enc *enc = new_enc(&o, "aarch64", ETRACE_F_ALL);
    struct rec r[4];

    (void)state;
    assert_int_equal(split(&o, r, 4), 2);
    assert_int_equal(r[0].type, 0x4554);
    assert_int_equal(r[0].len, 12);
    assert_int_equal(ld64(r[0].p), 0);              /* attr */
    assert_int_equal(ld16(r[0].p + 8), 0);          /* major */
    assert_int_equal(r[1].type, 5);
    assert_int_equal(r[1].len, 16);
    assert_int_equal(ld32(r[1].p), 183);            /* EM_AARCH64 */
    assert_int_equal(r[1].p[4], 64);
    assert_int_equal(r[1].p[5], 0);
    assert_int_equal(r[1].p[6] | r[1].p[7], 0);     /* padding */
    etrace_enc_free(enc);
}

static void test_etrace_each_block_has_its_entry(void **state)
{
    static struct out o;
    struct etrace_enc *enc = new_enc(&o, "x86_64", ETRACE_F_EXEC);
    struct rec r[8];
    uint64_t s, e;
    uint32_t d;

    (void)state;
    o.len = 0;
    etrace_enc_block(enc, 0, 100, 0x1000, 0x1010, 4);
    etrace_enc_block(enc, 0, 104, 0x1010, 0x1020, 3);   /* contiguous */
    etrace_enc_block(enc, 0, 107, 0x1030, 0x1040, 2);   /* gap */
    assert_int_equal(etrace_enc_end(enc), 0);
    assert_int_equal(split(&o, r, 8), 2);
    assert_int_equal(r[0].type, ETRACE_EXEC);
    assert_int_equal(r[0].len, 8 + 3 * 20);
    assert_int_equal(ld64(r[0].p), 100);                /* start time */
    exec_entry(&r[0], 64, 0, &d, &s, &e);
    assert_true(d == 4 && s == 0x1000 && e == 0x1010);
    exec_entry(&r[0], 64, 1, &d, &s, &e);
    assert_true(d == 3 && s == 0x1010 && e == 0x1020);
    exec_entry(&r[0], 64, 2, &d, &s, &e);
    assert_true(d == 2 && s == 0x1030 && e == 0x1040);
    assert_int_equal(r[1].type, ETRACE_BARRIER);
    assert_int_equal(r[1].len, 0);
    etrace_enc_free(enc);
}

static void test_etrace_accesses_precede_their_block(void **state)
{
    static struct out o;
    struct etrace_enc *enc = new_enc(&o, "x86_64",
                                     ETRACE_F_EXEC | ETRACE_F_MEM);
    struct rec r[8];
    uint64_t s, e;
    uint32_t d;

    (void)state;
    o.len = 0;
    etrace_enc_block(enc, 2, 0, 0x1000, 0x1010, 4);
    etrace_enc_access(enc, 2, 1, 0x5000, 0, 0, 4, QTRACE_MEM_STORE, NULL, 0);
    etrace_enc_block(enc, 2, 4, 0x1010, 0x1020, 3);
    etrace_enc_access(enc, 2, 5, 0x6000, 0x9000, 0, 8,
                      QTRACE_MEM_HAS_PADDR, NULL, 0);
    assert_int_equal(etrace_enc_end(enc), 0);
    /* MEM(A) EXEC[A] BARRIER MEM(B) EXEC[B] BARRIER */
    assert_int_equal(split(&o, r, 8), 6);
    assert_int_equal(r[0].type, ETRACE_MEM);
    assert_int_equal(r[0].unit, 2);
    assert_int_equal(r[0].len, 40);
    assert_int_equal(ld64(r[0].p), 1);                  /* time */
    assert_int_equal(ld64(r[0].p + 8), 0x5000);         /* vaddr */
    assert_int_equal(ld64(r[0].p + 16), 0x5000);        /* paddr = vaddr */
    assert_int_equal(ld32(r[0].p + 32), 1);             /* write */
    assert_int_equal(r[0].p[36], 4);
    assert_int_equal(r[1].type, ETRACE_EXEC);
    exec_entry(&r[1], 64, 0, &d, &s, &e);
    assert_true(d == 4 && s == 0x1000 && e == 0x1010);
    assert_int_equal(r[2].type, ETRACE_BARRIER);
    assert_int_equal(r[3].type, ETRACE_MEM);
    assert_int_equal(ld64(r[3].p + 16), 0x9000);        /* its paddr */
    assert_int_equal(ld32(r[3].p + 32), 0);             /* read */
    assert_int_equal(r[4].type, ETRACE_EXEC);
    assert_int_equal(ld64(r[4].p), 4);
    etrace_enc_free(enc);
}

static void test_etrace_other_unit_flushes_exec(void **state)
{
    static struct out o;
    struct etrace_enc *enc = new_enc(&o, "arm", ETRACE_F_EXEC);
    struct rec r[8];
    uint64_t s, e;
    uint32_t d;

    (void)state;
    o.len = 0;
    etrace_enc_block(enc, 0, 0, 0x8000, 0x8008, 2);
    etrace_enc_block(enc, 0, 2, 0x8008, 0x8010, 2);
    etrace_enc_block(enc, 1, 0, 0x8010, 0x8014, 1);     /* other unit */
    assert_int_equal(etrace_enc_end(enc), 0);
    assert_int_equal(split(&o, r, 8), 4);
    assert_int_equal(r[0].type, ETRACE_EXEC);
    assert_int_equal(r[0].unit, 0);
    assert_int_equal(r[0].len, 8 + 2 * 12);             /* 32-bit entries */
    exec_entry(&r[0], 32, 1, &d, &s, &e);
    assert_true(d == 2 && s == 0x8008 && e == 0x8010);
    assert_int_equal(r[1].type, ETRACE_BARRIER);
    assert_int_equal(r[1].unit, 0);
    /* Contiguous, but another unit's: an EXEC record of its own. */
    assert_int_equal(r[2].type, ETRACE_EXEC);
    assert_int_equal(r[2].unit, 1);
    exec_entry(&r[2], 32, 0, &d, &s, &e);
    assert_true(d == 1 && s == 0x8010 && e == 0x8014);
    assert_int_equal(r[3].type, ETRACE_BARRIER);
    assert_int_equal(r[3].unit, 1);
    etrace_enc_free(enc);
}

static void test_etrace_full_cache_flushes(void **state)
{
    static struct out o;
    struct etrace_enc *enc = new_enc(&o, "x86_64", ETRACE_F_EXEC);
    static struct rec r[8];
    uint32_t i;

    (void)state;
    o.len = 0;
    /* Gaps between the blocks: no merging. */
    for (i = 0; i <= ETRACE_EXEC_MAX_ENTRIES + 1; i++) {
        etrace_enc_block(enc, 0, i, 0x10000 + 32 * i, 0x10000 + 32 * i + 16,
                         1);
    }
    assert_int_equal(etrace_enc_end(enc), 0);
    assert_int_equal(split(&o, r, 8), 4);
    assert_int_equal(r[0].len, 8 + ETRACE_EXEC_MAX_ENTRIES * 20);
    assert_int_equal(r[2].len, 8 + 2 * 20);
    assert_int_equal(ld64(r[2].p), ETRACE_EXEC_MAX_ENTRIES);
    etrace_enc_free(enc);
}

static void test_etrace_flags_select_records(void **state)
{
    static struct out o;
    struct etrace_enc *enc = new_enc(&o, "x86_64", ETRACE_F_GPIO);
    const uint64_t args[6] = { 1, 2, 3, 4, 5, 6 };
    struct rec r[8];

    (void)state;
    o.len = 0;
    etrace_enc_tb(enc, 0x1000, (const uint8_t *)"\x90", 1);
    etrace_enc_block(enc, 0, 0, 0x1000, 0x1001, 1);
    etrace_enc_access(enc, 0, 1, 0xfee00030, 0xfee00030, 0, 4,
                      QTRACE_MEM_HAS_PADDR, "apic", 4);     /* not I/O */
    etrace_enc_access(enc, 0, 2, 0xfee00030, 0xfee00030, 0, 4,
                      QTRACE_MEM_HAS_PADDR | QTRACE_MEM_IO, "apic", 4);
    etrace_enc_vcpu(enc, 0, 3, true);
    etrace_enc_syscall(enc, 0, 3, 1, args);
    assert_int_equal(etrace_enc_end(enc), 0);
    assert_int_equal(split(&o, r, 8), 1);
    assert_int_equal(r[0].type, ETRACE_EVENT_U64);
    assert_int_equal(r[0].len, 36 + 5 + 5);
    assert_int_equal(ld64(r[0].p + 8), 2);              /* time */
    assert_int_equal(ld64(r[0].p + 16), 0xfee00030);    /* val = paddr */
    assert_int_equal(ld16(r[0].p + 32), 5);             /* "apic" + NUL */
    assert_int_equal(ld16(r[0].p + 34), 5);             /* "read" + NUL */
    assert_memory_equal(r[0].p + 36, "apic\0read\0", 10);
    etrace_enc_free(enc);
}

static void test_etrace_cpu_notes_name_syscalls(void **state)
{
    static struct out o;
    struct etrace_enc *enc = new_enc(&o, "aarch64", ETRACE_F_CPU);
    const uint64_t args[6] = { 0x2a, 0, 0, 0, 0, 0 };
    struct rec r[8];

    (void)state;
    o.len = 0;
    etrace_enc_vcpu(enc, 0, 0, true);
    etrace_enc_syscall(enc, 0, 7, 94, args);
    etrace_enc_syscall_ret(enc, 0, 9, 56, -2);
    etrace_enc_syscall(enc, 0, 9, 99999, args);
    assert_int_equal(etrace_enc_end(enc), 0);
    assert_int_equal(split(&o, r, 8), 4);
    assert_int_equal(r[1].type, ETRACE_NOTE);
    assert_int_equal(ld64(r[1].p), 7);
#define NOTE_IS(rec, text) \
    do { \
        assert_int_equal((rec).len, 8 + strlen(text)); \
        assert_memory_equal((rec).p + 8, text, strlen(text)); \
    } while (0)
    NOTE_IS(r[0], "vcpu 0 start\n");
    NOTE_IS(r[1], "syscall exit_group(0x2a, 0x0, 0x0, 0x0, 0x0, 0x0)\n");
    NOTE_IS(r[2], "syscall openat = -2\n");
    NOTE_IS(r[3], "syscall syscall_99999(0x2a, 0x0, 0x0, 0x0, 0x0, 0x0)\n");
    etrace_enc_free(enc);
}

/*
 * Unit 1's records arrive after all of unit 0's (one stream after the
 * other), but its points say it ran between unit 0's points 0 and 2:
 * unit 0 start (0), unit 1 start (1), unit 1 exit (2), unit 0 exit (3).
 */
static void test_etrace_order_points_interleave_units(void **state)
{
    static struct out o;
    struct etrace_enc *enc = new_enc(&o, "x86_64",
                                     ETRACE_F_EXEC | ETRACE_F_CPU);
    struct rec r[16];
    uint64_t s, e;
    uint32_t d;

    (void)state;
    o.len = 0;
    etrace_enc_order(enc, 0, 0);
    etrace_enc_vcpu(enc, 0, 0, true);
    etrace_enc_block(enc, 0, 0, 0x1000, 0x1010, 4);
    etrace_enc_order(enc, 0, 3);
    etrace_enc_vcpu(enc, 0, 4, false);
    assert_int_equal(etrace_enc_sync(enc), 0);
    /* Unit 0's start waits for nothing; the rest waits for points 1, 2. */
    assert_int_equal(split(&o, r, 16), 3);
    etrace_enc_order(enc, 1, 1);
    etrace_enc_vcpu(enc, 1, 0, true);
    etrace_enc_block(enc, 1, 0, 0x2000, 0x2004, 1);
    etrace_enc_order(enc, 1, 2);
    etrace_enc_vcpu(enc, 1, 1, false);
    assert_int_equal(etrace_enc_end(enc), 0);
    /*
     * N0 start, EXEC0, B0 (up to point 3), N1 start, EXEC1, B1, N1 exit,
     * N0 exit.
     */
    assert_int_equal(split(&o, r, 16), 8);
    assert_true(r[0].type == ETRACE_NOTE && r[0].unit == 0);
    assert_true(r[1].type == ETRACE_EXEC && r[1].unit == 0);
    assert_true(r[2].type == ETRACE_BARRIER && r[2].unit == 0);
    assert_true(r[3].type == ETRACE_NOTE && r[3].unit == 1);
    assert_true(r[4].type == ETRACE_EXEC && r[4].unit == 1);
    exec_entry(&r[4], 64, 0, &d, &s, &e);
    assert_true(d == 1 && s == 0x2000 && e == 0x2004);
    assert_true(r[5].type == ETRACE_BARRIER && r[5].unit == 1);
    assert_true(r[6].type == ETRACE_NOTE && r[6].unit == 1);
    assert_memory_equal(r[6].p + 8, "vcpu 1 exit\n", 12);
    assert_true(r[7].type == ETRACE_NOTE && r[7].unit == 0);
    assert_memory_equal(r[7].p + 8, "vcpu 0 exit\n", 12);
    etrace_enc_free(enc);
}

/*
 * Two order points of one unit with nothing between: the segment of the
 * first is empty, and writing it must write nothing (its buffer is NULL;
 * the ASan/UBSan build stops on a NULL given to memcpy).
 */
static void test_etrace_empty_segment_writes_nothing(void **state)
{
    static struct out o;
    struct etrace_enc *enc = new_enc(&o, "x86_64", ETRACE_F_EXEC);
    struct rec r[8];

    (void)state;
    o.len = 0;
    assert_int_equal(etrace_enc_order(enc, 0, 0), 0);
    assert_int_equal(etrace_enc_order(enc, 0, 1), 0);
    etrace_enc_block(enc, 0, 0, 0x1000, 0x1010, 4);
    assert_int_equal(etrace_enc_end(enc), 0);
    /* EXEC and BARRIER of the one block, nothing for the empty segment. */
    assert_int_equal(split(&o, r, 8), 2);
    assert_true(r[0].type == ETRACE_EXEC && r[1].type == ETRACE_BARRIER);
    etrace_enc_free(enc);
}

static void test_etrace_write_error_is_sticky(void **state)
{
    static struct out o;
    struct etrace_enc *enc = new_enc(&o, "x86_64", ETRACE_F_ALL);
    int calls;

    (void)state;
    o.fail_with = -EPIPE;
    etrace_enc_tb(enc, 0x1000, (const uint8_t *)"\x90", 1);
    assert_int_equal(etrace_enc_sync(enc), -EPIPE);
    calls = o.calls;
    assert_int_equal(etrace_enc_tb(enc, 0x1000, (const uint8_t *)"\x90", 1),
                     -EPIPE);
    assert_int_equal(etrace_enc_end(enc), -EPIPE);
    assert_int_equal(o.calls, calls);
    etrace_enc_free(enc);
}

static void test_etrace_unknown_arch_refused(void **state)
{
    struct out o;
    struct etrace_enc_cfg cfg = {
        .arch = "m68k", .flags = ETRACE_F_ALL, .write = out_write, .ctx = &o,
    };
    struct etrace_enc *enc;
    struct qtrace_err err;

    (void)state;
    assert_int_equal(etrace_enc_new(&enc, &cfg, &err), -EINVAL);
    assert_null(enc);
    assert_string_equal(err.msg, "arch m68k: no ELF machine known for it");
}

static void test_etrace_flags_parse_names(void **state)
{
    struct qtrace_err err;
    uint32_t f = 0;

    (void)state;
    assert_int_equal(etrace_flags_parse("exec,mem", &f, &err), 0);
    assert_int_equal(f, ETRACE_F_EXEC | ETRACE_F_MEM);
    assert_int_equal(etrace_flags_parse("disas;cpu;gpio", &f, &err), 0);
    assert_int_equal(f, ETRACE_F_DISAS | ETRACE_F_CPU | ETRACE_F_GPIO);
    assert_int_equal(etrace_flags_parse("all", &f, &err), 0);
    assert_int_equal(f, ETRACE_F_ALL);
    assert_int_equal(etrace_flags_parse("none", &f, &err), 0);
    assert_int_equal(f, 0);
    assert_int_equal(etrace_flags_parse("exec,execs", &f, &err), -EINVAL);
    assert_string_equal(err.msg, "unknown flag 'execs' (known: none, exec, "
                        "disas, mem, cpu, gpio, all)");
    assert_int_equal(etrace_flags_parse("", &f, &err), -EINVAL);
}

/* ---- reading, through the public reader ---- */

static char *save(const struct out *o)
{
    static char path[256];
    const char *dir = getenv("TMPDIR");
    int fd;

    snprintf(path, sizeof(path), "%s/test-etrace.XXXXXX",
             dir && *dir ? dir : "/tmp");
    fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, o->buf, o->len), (ssize_t)o->len);
    close(fd);
    return path;
}

static void test_etrace_reader_decodes_records(void **state)
{
    /* A's access comes before A's entry, which shares B's EXEC record. */
    static const char *const want[] = {
        "info attr 0x0 version 0.0",
        "arch guest 243 bits 64 big_endian 0 host ",
        "mem vaddr 0x3000 paddr 0x3000 value 0x0 attr 0x0 size 2",
        "exec start 0x1000 end 0x1010 duration 4",
        "exec start 0x2000 end 0x2008 duration 2",
        "barrier ",
    };
    static const uint64_t times[] = { 0, 0, 12, 10, 14, 0 };
    static struct out o;
    struct etrace_enc *enc = new_enc(&o, "riscv64", ETRACE_F_ALL);
    struct qtrace_reader *rd;
    struct qtrace_record rec;
    struct qtrace_err err;
    char line[300];
    char args[200];
    const char *path;
    size_t i;

    (void)state;
    etrace_enc_block(enc, 0, 10, 0x1000, 0x1010, 4);
    etrace_enc_access(enc, 0, 12, 0x3000, 0, 0, 2, 0, NULL, 0);
    etrace_enc_block(enc, 0, 14, 0x2000, 0x2008, 2);
    assert_int_equal(etrace_enc_end(enc), 0);
    etrace_enc_free(enc);
    path = save(&o);
    assert_int_equal(qtrace_reader_open(path, &rd, &err), 0);
    assert_string_equal(qtrace_reader_meta(rd, "format"), "etrace");
    assert_string_equal(qtrace_reader_meta(rd, "arch"), "riscv64");
    assert_string_equal(qtrace_reader_meta(rd, "word_bits"), "64");
    for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
        assert_int_equal(qtrace_reader_next(rd, &rec, &err), 1);
        qtrace_record_fmt(&rec, args, sizeof(args));
        snprintf(line, sizeof(line), "%s %s", rec.ev->name, args);
        /* The host part of ARCH is the build machine's. */
        if (strncmp(line, want[i], strlen(want[i])) != 0) {
            fail_msg("record %zu: \"%s\", want \"%s\"", i, line, want[i]);
        }
        assert_int_equal(rec.time, times[i]);
        assert_int_equal(rec.vcpu, 0);
    }
    assert_int_equal(qtrace_reader_next(rd, &rec, &err), 0);
    assert_true(qtrace_reader_has_end(rd));
    qtrace_reader_close(rd);
    unlink(path);
}

static void test_etrace_reader_stops_at_bad_records(void **state)
{
    static struct out o;
    struct etrace_enc *enc = new_enc(&o, "x86_64", ETRACE_F_ALL);
    struct qtrace_reader *rd;
    struct qtrace_record rec;
    struct qtrace_err err;
    const char *path;

    (void)state;
    etrace_enc_block(enc, 0, 0, 0x1000, 0x1010, 4);
    assert_int_equal(etrace_enc_end(enc), 0);
    etrace_enc_free(enc);
    o.len -= 9;                     /* cut into the EXEC record */
    path = save(&o);
    assert_int_equal(qtrace_reader_open(path, &rd, &err), 0);
    assert_int_equal(qtrace_reader_next(rd, &rec, &err), 1);
    assert_int_equal(qtrace_reader_next(rd, &rec, &err), 1);
    assert_true(qtrace_reader_next(rd, &rec, &err) < 0);
    assert_string_equal(err.msg, "etrace record 2 at offset 0x2c: truncated "
                        "payload (need 28 bytes, 27 left)");
    assert_false(qtrace_reader_has_end(rd));
    qtrace_reader_close(rd);
    unlink(path);

    /* An EXEC record before any ARCH: its entries cannot be sized. */
    memset(&o, 0, sizeof(o));
    memcpy(o.buf, "TE\0\0\x0c\0\0\0", 8);
    o.len = 8 + 12;
    memcpy(o.buf + o.len, "\x01\0\0\0\x08\0\0\0", 8);
    o.len += 16;
    path = save(&o);
    assert_int_equal(qtrace_reader_open(path, &rd, &err), 0);
    assert_int_equal(qtrace_reader_next(rd, &rec, &err), 1);
    assert_true(qtrace_reader_next(rd, &rec, &err) < 0);
    assert_string_equal(err.msg, "etrace record 1 at offset 0x14: EXEC "
                        "before any ARCH record (entry size unknown)");
    qtrace_reader_close(rd);
    unlink(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_etrace_begin_writes_info_and_arch),
        cmocka_unit_test(test_etrace_each_block_has_its_entry),
        cmocka_unit_test(test_etrace_accesses_precede_their_block),
        cmocka_unit_test(test_etrace_other_unit_flushes_exec),
        cmocka_unit_test(test_etrace_full_cache_flushes),
        cmocka_unit_test(test_etrace_flags_select_records),
        cmocka_unit_test(test_etrace_cpu_notes_name_syscalls),
        cmocka_unit_test(test_etrace_order_points_interleave_units),
        cmocka_unit_test(test_etrace_empty_segment_writes_nothing),
        cmocka_unit_test(test_etrace_write_error_is_sticky),
        cmocka_unit_test(test_etrace_unknown_arch_refused),
        cmocka_unit_test(test_etrace_flags_parse_names),
        cmocka_unit_test(test_etrace_reader_decodes_records),
        cmocka_unit_test(test_etrace_reader_stops_at_bad_records),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
