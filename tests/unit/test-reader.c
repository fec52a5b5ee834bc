/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for src/format/reader.c: round trip through the writer with a
 * small hand-written catalog, every cut length of a trace, corrupt chunks
 * and records. Records are built by hand by the layout rule of
 * docs/format.md, independently of the catalog parser's offsets.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <zstd.h>

#include "chunk.h"
#include "qtrace/reader.h"
#include "writer.h"
#include "zchunk.h"

/*
 * Layouts (header 16 bytes):
 *   ev_a  pc u64 @16, tb u32 @24                    fixed 28, size 32
 *   ev_s  n u8 @16, name len @18, v i32 @20         fixed 24, + name
 *   ev_b  k u16 @16, code len @18, tag len @20      fixed 22, + code + tag
 *   ev_z  no arguments                              fixed 16, size 16
 */
static const char catalog_text[] =
    "# test catalog\n"
    "ev_a(uint64_t pc, uint32_t tb) \"pc 0x%\" PRIx64 \" tb %u\"\n"
    "\n"
    "ev_s(uint8_t n, const char *name, int32_t v) \"n %u name %s v %d\"\n"
    "disable ev_b(uint16_t k, const uint8_t *code, const char *tag) "
    "\"k %u code %s tag %s\"\n"
    "ev_z(void) \"nothing\"\n";

enum { EV_A = 1, EV_S, EV_B, EV_Z };

static const char meta_text[] =
    "format=1\narch=aarch64\nword_bits=64\nendian=little\nmode=user\n";

#define MAX_RECS 256

/* The records a test wrote, in file order, to compare with what is read. */
struct expect {
    uint8_t buf[MAX_RECS * 64];
    size_t off[MAX_RECS];           /* record start in buf */
    uint32_t size[MAX_RECS];
    uint32_t vcpu[MAX_RECS];
    size_t end_of_chunk[MAX_RECS];  /* file offset where its chunk ends */
    size_t n;
};

/* A chunk payload being built. */
struct payload {
    uint8_t data[4096];
    size_t len;
};

static void put16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}

static void put32(uint8_t *p, uint32_t v)
{
    put16(p, (uint16_t)v);
    put16(p + 2, (uint16_t)(v >> 16));
}

static void put64(uint8_t *p, uint64_t v)
{
    put32(p, (uint32_t)v);
    put32(p + 4, (uint32_t)(v >> 32));
}

static uint32_t get32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
           (uint32_t)p[3] << 24;
}

/* Start a record of fixed+var bytes (rounded up to 8), zero-filled. */
static uint8_t *rec_start(struct payload *pl, uint16_t id, uint32_t fixed,
                          uint32_t var, uint64_t time)
{
    uint32_t size = qtrace_rec_size(fixed, var);
    uint8_t *p = pl->data + pl->len;

    assert_true(pl->len + size <= sizeof(pl->data));
    memset(p, 0, size);
    put16(p, id);
    put16(p + 2, (uint16_t)size);
    put64(p + 8, time);
    pl->len += size;
    return p;
}

static void rec_a(struct payload *pl, uint64_t time, uint64_t pc,
                  uint32_t tb)
{
    uint8_t *p = rec_start(pl, EV_A, 28, 0, time);

    put64(p + 16, pc);
    put32(p + 24, tb);
}

static void rec_s(struct payload *pl, uint64_t time, uint8_t n,
                  const char *name, int32_t v)
{
    size_t len = strlen(name);
    uint8_t *p = rec_start(pl, EV_S, 24, (uint32_t)len, time);

    p[16] = n;
    put16(p + 18, (uint16_t)len);
    put32(p + 20, (uint32_t)v);
    memcpy(p + 24, name, len);
}

static void rec_b(struct payload *pl, uint64_t time, uint16_t k,
                  const uint8_t *code, size_t code_len, const char *tag)
{
    size_t tag_len = strlen(tag);
    uint8_t *p = rec_start(pl, EV_B, 22, (uint32_t)(code_len + tag_len),
                           time);

    put16(p + 16, k);
    put16(p + 18, (uint16_t)code_len);
    put16(p + 20, (uint16_t)tag_len);
    memcpy(p + 22, code, code_len);
    memcpy(p + 22 + code_len, tag, tag_len);
}

static void rec_z(struct payload *pl, uint64_t time)
{
    rec_start(pl, EV_Z, 16, 0, time);
}

static char *temp_path(void)
{
    const char *dir = getenv("TMPDIR");
    char *path;
    int fd;

    assert_true(asprintf(&path, "%s/test-reader-XXXXXX",
                         dir && *dir ? dir : "/tmp") > 0);
    fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    return path;
}

/* Write len bytes at data as a DATA chunk, compressed by libzstd itself. */
static void write_zstd_chunk(struct qtrace_writer *w, uint32_t vcpu,
                             uint32_t stream, const void *data, size_t len)
{
    size_t cap = ZSTD_compressBound(len);
    void *frame = malloc(cap);
    struct qtrace_err err;
    size_t n;

    assert_non_null(frame);
    n = ZSTD_compress(frame, cap, data, len, 3);
    assert_false(ZSTD_isError(n));
    assert_int_equal(qtrace_writer_chunk_flags(w, QTRACE_CHUNK_DATA,
                                               QTRACE_CHUNK_ZSTD, vcpu,
                                               stream, frame, (uint32_t)n,
                                               &err), 0);
    free(frame);
}

/*
 * Write pl as a DATA chunk (zstd-compressed if zstd) and remember its
 * records in ex.
 */
static void write_data_as(struct qtrace_writer *w, struct expect *ex,
                          uint32_t vcpu, const struct payload *pl, bool zstd)
{
    struct qtrace_err err;
    size_t off = 0;

    if (zstd) {
        write_zstd_chunk(w, vcpu, vcpu + 100, pl->data, pl->len);
    } else {
        assert_int_equal(qtrace_writer_chunk(w, QTRACE_CHUNK_DATA, vcpu,
                                             vcpu + 100, pl->data,
                                             (uint32_t)pl->len, &err), 0);
    }
    while (ex && off < pl->len) {
        uint32_t size = pl->data[off + 2] | pl->data[off + 3] << 8;
        size_t at = ex->n ? ex->off[ex->n - 1] + ex->size[ex->n - 1] : 0;

        assert_true(ex->n < MAX_RECS && at + size <= sizeof(ex->buf));
        memcpy(ex->buf + at, pl->data + off, size);
        ex->off[ex->n] = at;
        ex->size[ex->n] = size;
        ex->vcpu[ex->n] = vcpu;
        ex->end_of_chunk[ex->n] = qtrace_writer_bytes(w);
        ex->n++;
        off += size;
    }
}

static void write_data(struct qtrace_writer *w, struct expect *ex,
                       uint32_t vcpu, const struct payload *pl)
{
    write_data_as(w, ex, vcpu, pl, false);
}

/*
 * The reference trace: four DATA chunks on two vCPUs, then END; with
 * zstd, the first and third chunks are compressed.
 */
static char *write_reference_as(struct expect *ex, bool with_end, bool zstd)
{
    static const uint8_t code[] = { 0x1f, 0x20, 0x03, 0xd5, 0xc0 };
    struct qtrace_writer *w;
    struct qtrace_err err;
    struct payload pl;
    char *path = temp_path();
    int i;

    memset(ex, 0, sizeof(*ex));
    assert_int_equal(qtrace_writer_open(&w, path, meta_text, catalog_text,
                                        &err), 0);
    pl.len = 0;
    rec_a(&pl, 1, 0x400080, 3);
    rec_s(&pl, 2, 7, "hello", -42);
    rec_b(&pl, 3, 9, code, sizeof(code), "tag");
    rec_z(&pl, 4);
    write_data_as(w, ex, 0, &pl, zstd);
    pl.len = 0;
    rec_s(&pl, 10, 0, "", 0);
    rec_b(&pl, 11, 0, code, 0, "");
    write_data(w, ex, 1, &pl);
    pl.len = 0;
    for (i = 0; i < 20; i++) {
        rec_a(&pl, 20 + (uint64_t)i, 0x400000 + 4 * (uint64_t)i,
              (uint32_t)i);
    }
    write_data_as(w, ex, 0, &pl, zstd);
    pl.len = 0;
    rec_s(&pl, 50, 255, "exactly8", INT32_MIN);
    rec_z(&pl, 51);
    write_data(w, ex, 1, &pl);
    assert_int_equal(qtrace_writer_close(w, with_end ?
                                         "records=28\nchunks=6\nlost=0\n" :
                                         NULL, &err), 0);
    return path;
}

static char *write_reference(struct expect *ex, bool with_end)
{
    return write_reference_as(ex, with_end, false);
}

static uint8_t *read_file(const char *path, size_t *len)
{
    struct stat st;
    uint8_t *buf;
    int fd = open(path, O_RDONLY);

    assert_true(fd >= 0);
    assert_int_equal(fstat(fd, &st), 0);
    *len = (size_t)st.st_size;
    buf = malloc(*len + 1);
    assert_non_null(buf);
    assert_int_equal(read(fd, buf, *len), (ssize_t)*len);
    close(fd);
    return buf;
}

static void write_file(const char *path, const uint8_t *buf, size_t len)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

    assert_true(fd >= 0);
    assert_int_equal(write(fd, buf, len), (ssize_t)len);
    close(fd);
}

/*
 * Read every record of rd, checking each against ex in order. Returns the
 * last value of qtrace_reader_next and the count in *n.
 */
static int read_all(struct qtrace_reader *rd, const struct expect *ex,
                    size_t *n, struct qtrace_err *err)
{
    struct qtrace_record rec;
    int ret;

    *n = 0;
    while ((ret = qtrace_reader_next(rd, &rec, err)) == 1) {
        assert_true(*n < ex->n);
        assert_int_equal(rec.size, ex->size[*n]);
        assert_memory_equal(rec.data, ex->buf + ex->off[*n], rec.size);
        assert_int_equal(rec.vcpu, ex->vcpu[*n]);
        assert_int_equal(rec.stream, ex->vcpu[*n] + 100);
        (*n)++;
    }
    return ret;
}

/*
 * Whether the tests that open through open_reader read ahead on the
 * reader's thread (qtrace_reader_set_ahead): the same tests, run both
 * ways, must see the same records, ends and errors.
 */
static bool read_ahead;

static int open_reader(const char *path, struct qtrace_reader **rd,
                       struct qtrace_err *err)
{
    int ret = qtrace_reader_open(path, rd, err);

    if (ret == 0 && read_ahead) {
        assert_int_equal(qtrace_reader_set_ahead(*rd, true), 0);
    }
    return ret;
}

/* Offsets of the chunks of a trace file (walking the headers). */
static size_t chunk_offsets(const uint8_t *buf, size_t len, size_t *offs,
                            size_t max)
{
    size_t off = 16;
    size_t n = 0;

    while (off < len && n < max) {
        offs[n++] = off;
        off += 32 + get32(buf + off + 16);
    }
    return n;
}

/* Set a chunk header field and recompute its CRC, as a writer would. */
static void patch_chunk(uint8_t *buf, size_t off, size_t field,
                        const void *val, size_t len)
{
    struct qtrace_chunk_hdr hdr;

    memcpy(buf + off + field, val, len);
    memcpy(&hdr, buf + off, sizeof(hdr));
    put32(buf + off + 20, qtrace_chunk_crc(&hdr, buf + off + 32,
                                           get32(buf + off + 16)));
}

static void collect_meta(const char *key, const char *value, void *arg)
{
    char *out = arg;

    strcat(out, key);
    strcat(out, ":");
    strcat(out, value);
    strcat(out, ";");
}

static void test_reader_round_trip_returns_every_record(void **state)
{
    struct qtrace_reader *rd;
    struct qtrace_err err;
    struct expect ex;
    char keys[256] = "";
    char *path = write_reference(&ex, true);
    size_t n;

    (void)state;
    assert_int_equal(open_reader(path, &rd, &err), 0);
    assert_string_equal(qtrace_reader_meta(rd, "arch"), "aarch64");
    assert_string_equal(qtrace_reader_meta(rd, "format"), "1");
    assert_null(qtrace_reader_meta(rd, "qemu"));
    qtrace_reader_meta_each(rd, collect_meta, keys);
    assert_string_equal(keys, "format:1;arch:aarch64;word_bits:64;"
                        "endian:little;mode:user;");
    assert_int_equal(qtrace_reader_catalog(rd)->n_events, 4);
    assert_string_equal(qtrace_reader_catalog(rd)->text, catalog_text);
    assert_string_equal(qtrace_reader_stop_reason(rd),
                        "trace not read to its end");

    assert_int_equal(read_all(rd, &ex, &n, &err), 0);
    assert_int_equal(n, ex.n);
    assert_int_equal(n, 28);
    assert_true(qtrace_reader_has_end(rd));
    assert_null(qtrace_reader_stop_reason(rd));
    assert_string_equal(qtrace_reader_end(rd, "records"), "28");
    assert_string_equal(qtrace_reader_end(rd, "lost"), "0");
    assert_null(qtrace_reader_end(rd, "nope"));

    /* After the end, next keeps saying so; rewind starts over. */
    assert_int_equal(read_all(rd, &ex, &n, &err), 0);
    assert_int_equal(n, 0);
    qtrace_reader_rewind(rd);
    assert_int_equal(read_all(rd, &ex, &n, &err), 0);
    assert_int_equal(n, 28);
    qtrace_reader_close(rd);
    unlink(path);
    free(path);
}

/* What qtrace_reader_chunks listed, in order. */
struct chunk_list {
    uint32_t stream[8];
    uint64_t seq[8];
    bool has_a[8];
    size_t n;
};

static void note_chunk(void *arg, const struct qtrace_chunk_entry *e)
{
    struct chunk_list *cl = arg;

    assert_true(cl->n < 8);
    cl->stream[cl->n] = e->stream;
    cl->seq[cl->n] = e->chunk_seq;
    cl->has_a[cl->n] = (e->events[EV_A / 64] >> (EV_A % 64)) & 1;
    cl->n++;
}

static void test_reader_select_stream_reads_one_stream(void **state)
{
    struct qtrace_record rec;
    struct qtrace_reader *rd;
    struct qtrace_err err;
    struct chunk_list cl = { .n = 0 };
    struct expect ex;
    uint64_t want[QTRACE_MAX_EVENTS / 64] = { 0 };
    uint64_t times[8];
    char *path = write_reference(&ex, true);
    size_t n = 0;

    (void)state;
    assert_int_equal(qtrace_reader_open(path, &rd, &err), 0);

    /* The chunks, from the index: two streams, alternating. */
    assert_int_equal(qtrace_reader_chunks(rd, note_chunk, &cl, &err), 0);
    assert_int_equal(cl.n, 4);
    assert_int_equal(cl.stream[0], 100);
    assert_int_equal(cl.stream[1], 101);
    assert_int_equal(cl.stream[2], 100);
    assert_int_equal(cl.stream[3], 101);
    assert_true(cl.seq[0] < cl.seq[1] && cl.seq[2] < cl.seq[3]);
    assert_true(cl.has_a[0] && cl.has_a[2]);
    assert_false(cl.has_a[1] || cl.has_a[3]);

    /* Every record of stream 101, in order, none of 100. */
    assert_int_equal(qtrace_reader_select_stream(rd, NULL, 101, &err), 0);
    while (qtrace_reader_next(rd, &rec, &err) == 1) {
        assert_true(n < 8);
        assert_int_equal(rec.stream, 101);
        times[n++] = rec.time;
    }
    assert_int_equal(n, 4);
    assert_int_equal(times[0], 10);
    assert_int_equal(times[1], 11);
    assert_int_equal(times[2], 50);
    assert_int_equal(times[3], 51);
    assert_true(qtrace_reader_has_end(rd));

    /* One event of stream 100: its ev_a records only. */
    want[EV_A / 64] |= 1ull << (EV_A % 64);
    assert_int_equal(qtrace_reader_select_stream(rd, want, 100, &err), 0);
    n = 0;
    while (qtrace_reader_next(rd, &rec, &err) == 1) {
        assert_int_equal(rec.stream, 100);
        assert_int_equal(rec.ev->id, EV_A);
        n++;
    }
    assert_int_equal(n, 21);

    /* A stream the trace lacks: nothing. Then everything again. */
    assert_int_equal(qtrace_reader_select_stream(rd, NULL, 7, &err), 0);
    assert_int_equal(qtrace_reader_next(rd, &rec, &err), 0);
    assert_int_equal(qtrace_reader_select(rd, NULL, &err), 0);
    assert_int_equal(read_all(rd, &ex, &n, &err), 0);
    assert_int_equal(n, 28);
    qtrace_reader_close(rd);
    unlink(path);
    free(path);
}

static void test_reader_accessors_decode_args(void **state)
{
    static const uint8_t code[] = { 0x1f, 0x20, 0x03, 0xd5, 0xc0 };
    struct qtrace_record rec;
    struct qtrace_reader *rd;
    struct qtrace_err err;
    struct expect ex;
    char *path = write_reference(&ex, true);
    const uint8_t *b;
    size_t len;

    (void)state;
    assert_int_equal(qtrace_reader_open(path, &rd, &err), 0);
    assert_int_equal(qtrace_reader_next(rd, &rec, &err), 1);
    assert_string_equal(rec.ev->name, "ev_a");
    assert_int_equal(rec.time, 1);
    assert_int_equal(rec.chunk_seq, 1);
    assert_int_equal(qtrace_record_u64(&rec, 0), 0x400080);
    assert_int_equal(qtrace_record_u64(&rec, 1), 3);
    assert_int_equal(qtrace_record_u64(&rec, 2), 0);   /* no such arg */
    assert_int_equal(qtrace_record_arg_index(&rec, "tb"), 1);
    assert_int_equal(qtrace_record_arg_index(&rec, "nope"), -1);
    assert_null(qtrace_record_bytes(&rec, 0, &len));
    assert_int_equal(len, 0);

    assert_int_equal(qtrace_reader_next(rd, &rec, &err), 1);
    assert_string_equal(rec.ev->name, "ev_s");
    assert_int_equal(qtrace_record_u64(&rec, 0), 7);
    assert_int_equal(qtrace_record_u64(&rec, 1), 5);   /* STR length */
    assert_int_equal(qtrace_record_i64(&rec, 2), -42);
    assert_int_equal(qtrace_record_u64(&rec, 2), (uint64_t)-42);
    b = qtrace_record_bytes(&rec, 1, &len);
    assert_int_equal(len, 5);
    assert_memory_equal(b, "hello", 5);

    assert_int_equal(qtrace_reader_next(rd, &rec, &err), 1);
    assert_string_equal(rec.ev->name, "ev_b");
    assert_true(rec.ev->disabled);
    assert_int_equal(qtrace_record_u64(&rec, 0), 9);
    b = qtrace_record_bytes(&rec, 1, &len);
    assert_int_equal(len, sizeof(code));
    assert_memory_equal(b, code, sizeof(code));
    b = qtrace_record_bytes(&rec, 2, &len);
    assert_int_equal(len, 3);
    assert_memory_equal(b, "tag", 3);

    assert_int_equal(qtrace_reader_next(rd, &rec, &err), 1);
    assert_string_equal(rec.ev->name, "ev_z");
    assert_int_equal(rec.size, 16);
    assert_int_equal(qtrace_reader_next(rd, &rec, &err), 1);
    assert_int_equal(rec.vcpu, 1);
    assert_int_equal(rec.stream, 101);
    assert_int_equal(rec.chunk_seq, 2);
    b = qtrace_record_bytes(&rec, 1, &len);
    assert_non_null(b);
    assert_int_equal(len, 0);
    qtrace_reader_close(rd);
    unlink(path);
    free(path);
}

static void test_reader_missing_end_reports_unclean_exit(void **state)
{
    struct qtrace_reader *rd;
    struct qtrace_err err;
    struct expect ex;
    char *path = write_reference(&ex, false);
    size_t n;

    (void)state;
    assert_int_equal(open_reader(path, &rd, &err), 0);
    assert_int_equal(read_all(rd, &ex, &n, &err), 0);
    assert_int_equal(n, 28);
    assert_false(qtrace_reader_has_end(rd));
    assert_null(qtrace_reader_end(rd, "records"));
    assert_string_equal(qtrace_reader_stop_reason(rd),
                        "no END chunk (QEMU did not exit cleanly)");
    qtrace_reader_close(rd);
    unlink(path);
    free(path);
}

/* What a cut of the reference trace at cut bytes must read. */
static void check_cut(const char *path, const struct expect *ex,
                      const size_t *offs, size_t n_chunks, size_t size,
                      size_t cut)
{
    struct qtrace_reader *rd;
    struct qtrace_err err;
    char want[128];
    size_t expect_n = 0;
    size_t n;
    size_t k;
    int ret;

    ret = open_reader(path, &rd, &err);
    if (cut < offs[1]) {
        /* The file header or the META chunk is incomplete. */
        assert_true(ret < 0);
        if (cut == 0) {
            assert_string_equal(err.msg, "empty file");
        } else if (cut < 16) {
            assert_string_equal(err.msg, "truncated file header");
        } else if (cut == 16) {
            assert_string_equal(err.msg,
                                "no META chunk (file ends after its header)");
        } else {
            assert_int_equal(ret, -ENODATA);
            assert_memory_equal(err.msg, "chunk 0 at offset 0x10: truncated",
                                33);
        }
        return;
    }
    assert_int_equal(ret, 0);
    while (expect_n < ex->n && ex->end_of_chunk[expect_n] <= cut) {
        expect_n++;
    }
    ret = read_all(rd, ex, &n, &err);
    assert_int_equal(n, expect_n);
    /* Chunks 0..k-1 start before the cut: it falls in or after k-1. */
    k = 0;
    while (k < n_chunks && offs[k] < cut) {
        k++;
    }
    if (cut == size) {
        assert_int_equal(ret, 0);
        assert_true(qtrace_reader_has_end(rd));
    } else if (k < n_chunks && offs[k] == cut) {
        /* Cut between two chunks: a clean end without END. */
        assert_int_equal(ret, 0);
        assert_false(qtrace_reader_has_end(rd));
        assert_string_equal(qtrace_reader_stop_reason(rd),
                            "no END chunk (QEMU did not exit cleanly)");
    } else {
        assert_int_equal(ret, -ENODATA);
        snprintf(want, sizeof(want), "chunk %zu at offset 0x%zx: truncated",
                 k - 1, offs[k - 1]);
        assert_memory_equal(err.msg, want, strlen(want));
        assert_string_equal(qtrace_reader_stop_reason(rd), err.msg);
        /* The failure is sticky. */
        assert_int_equal(read_all(rd, ex, &n, &err), -ENODATA);
        assert_int_equal(n, 0);
    }
    qtrace_reader_close(rd);
}

static void test_reader_every_cut_reads_whole_chunks(void **state)
{
    struct expect ex;
    char *path = write_reference(&ex, true);
    char *cut_path = temp_path();
    size_t offs[16];
    size_t n_chunks;
    size_t size;
    size_t cut;
    uint8_t *buf = read_file(path, &size);

    (void)state;
    n_chunks = chunk_offsets(buf, size, offs, 16);
    assert_int_equal(n_chunks, 6);
    for (cut = 0; cut <= size; cut++) {
        write_file(cut_path, buf, cut);
        check_cut(cut_path, &ex, offs, n_chunks, size, cut);
    }
    free(buf);
    unlink(cut_path);
    unlink(path);
    free(cut_path);
    free(path);
}

/*
 * Open a modified copy of the reference trace and read it: returns the
 * reading's result with the record count in *n and the text in err.
 */
static int read_modified(uint8_t *buf, size_t size, const struct expect *ex,
                         size_t *n, struct qtrace_err *err)
{
    struct qtrace_reader *rd;
    char *path = temp_path();
    int ret;

    write_file(path, buf, size);
    ret = open_reader(path, &rd, err);
    assert_int_equal(ret, 0);
    ret = read_all(rd, ex, n, err);
    if (ret < 0) {
        assert_string_equal(qtrace_reader_stop_reason(rd), err->msg);
    }
    qtrace_reader_close(rd);
    unlink(path);
    free(path);
    return ret;
}

/* Records in the chunks before chunk k of the reference trace. */
static size_t records_before(const struct expect *ex, size_t chunk_off)
{
    size_t n = 0;

    while (n < ex->n && ex->end_of_chunk[n] <= chunk_off) {
        n++;
    }
    return n;
}

static void test_reader_flipped_payload_byte_is_checksum_mismatch(void **st)
{
    struct qtrace_err err;
    struct expect ex;
    char *path = write_reference(&ex, true);
    char want[128];
    size_t offs[16];
    size_t size;
    size_t k;
    size_t n;
    uint8_t *buf = read_file(path, &size);

    (void)st;
    chunk_offsets(buf, size, offs, 16);
    for (k = 1; k <= 4; k++) {
        buf[offs[k] + 32 + 9] ^= 0x40;
        assert_int_equal(read_modified(buf, size, &ex, &n, &err), -EBADMSG);
        assert_int_equal(n, records_before(&ex, offs[k]));
        snprintf(want, sizeof(want), "chunk %zu at offset 0x%zx: checksum "
                 "mismatch", k, offs[k]);
        assert_string_equal(err.msg, want);
        buf[offs[k] + 32 + 9] ^= 0x40;
    }
    free(buf);
    unlink(path);
    free(path);
}

static void test_reader_corrupt_chunk_header_stops_there(void **state)
{
    struct qtrace_err err;
    struct expect ex;
    char *path = write_reference(&ex, true);
    size_t offs[16];
    size_t size;
    size_t n;
    uint8_t *buf = read_file(path, &size);
    const uint32_t huge = QTRACE_CHUNK_MAX + 1u;

    (void)state;
    chunk_offsets(buf, size, offs, 16);
    buf[offs[2] + 8] ^= 1;                  /* vcpu field */
    assert_int_equal(read_modified(buf, size, &ex, &n, &err), -EBADMSG);
    assert_int_equal(n, records_before(&ex, offs[2]));
    assert_non_null(strstr(err.msg, ": checksum mismatch"));
    buf[offs[2] + 8] ^= 1;

    buf[offs[3]] ^= 0xff;                   /* chunk magic */
    assert_int_equal(read_modified(buf, size, &ex, &n, &err), -EBADMSG);
    assert_int_equal(n, records_before(&ex, offs[3]));
    assert_non_null(strstr(err.msg, "chunk 3 at offset"));
    assert_non_null(strstr(err.msg, ": bad magic"));
    buf[offs[3]] ^= 0xff;

    put32(buf + offs[4] + 16, huge);        /* len over the limit */
    assert_int_equal(read_modified(buf, size, &ex, &n, &err), -EBADMSG);
    assert_int_equal(n, records_before(&ex, offs[4]));
    assert_non_null(strstr(err.msg, "chunk 4 at offset"));
    assert_non_null(strstr(err.msg, "payload length 67108865 over the "
                           "limit"));
    free(buf);
    unlink(path);
    free(path);
}

static void test_reader_chunk_rules_enforced(void **state)
{
    struct qtrace_err err;
    struct expect ex;
    char *path = write_reference(&ex, true);
    size_t offs[16];
    size_t size;
    size_t n;
    uint8_t *buf = read_file(path, &size);
    uint8_t *orig = malloc(size);
    uint64_t seq = 9;
    uint16_t v;

    (void)state;
    memcpy(orig, buf, size);
    chunk_offsets(buf, size, offs, 16);
    v = 0x8000;
    patch_chunk(buf, offs[2], 6, &v, 2);    /* DATA flags: unknown bit */
    assert_int_equal(read_modified(buf, size, &ex, &n, &err), -ENOTSUP);
    assert_int_equal(n, records_before(&ex, offs[2]));
    assert_non_null(strstr(err.msg, "unsupported payload encoding"));
    memcpy(buf, orig, size);

    patch_chunk(buf, offs[2], 24, &seq, 8); /* spliced chunk */
    assert_int_equal(read_modified(buf, size, &ex, &n, &err), -EBADMSG);
    assert_non_null(strstr(err.msg, "out of sequence (seq 9)"));
    memcpy(buf, orig, size);

    v = QTRACE_CHUNK_META;
    patch_chunk(buf, offs[3], 4, &v, 2);
    assert_int_equal(read_modified(buf, size, &ex, &n, &err), -EBADMSG);
    assert_int_equal(n, records_before(&ex, offs[3]));
    assert_non_null(strstr(err.msg, "second META chunk"));
    memcpy(buf, orig, size);
    free(orig);
    free(buf);
    unlink(path);
    free(path);
}

static void test_reader_unknown_kind_skipped_only_if_valid(void **state)
{
    static const char future[] = "something a newer qtrace writes";
    struct qtrace_writer *w;
    struct qtrace_reader *rd;
    struct qtrace_err err;
    struct payload pl;
    struct expect ex;
    char *path = temp_path();
    size_t offs[8];
    size_t size;
    size_t n;
    uint8_t *buf;

    (void)state;
    memset(&ex, 0, sizeof(ex));
    assert_int_equal(qtrace_writer_open(&w, path, meta_text, catalog_text,
                                        &err), 0);
    pl.len = 0;
    rec_a(&pl, 1, 0x1000, 1);
    write_data(w, &ex, 0, &pl);
    assert_int_equal(qtrace_writer_chunk(w, 77, 0, 0, future,
                                         sizeof(future), &err), 0);
    pl.len = 0;
    rec_z(&pl, 2);
    write_data(w, &ex, 0, &pl);
    assert_int_equal(qtrace_writer_close(w, "records=2\n", &err), 0);

    assert_int_equal(qtrace_reader_open(path, &rd, &err), 0);
    assert_int_equal(read_all(rd, &ex, &n, &err), 0);
    assert_int_equal(n, 2);
    assert_true(qtrace_reader_has_end(rd));
    qtrace_reader_close(rd);

    buf = read_file(path, &size);
    assert_int_equal(chunk_offsets(buf, size, offs, 8), 5);
    buf[offs[2] + 40] ^= 1;
    assert_int_equal(read_modified(buf, size, &ex, &n, &err), -EBADMSG);
    assert_int_equal(n, 1);
    assert_non_null(strstr(err.msg, "chunk 2 at offset"));
    assert_non_null(strstr(err.msg, ": checksum mismatch"));
    free(buf);
    unlink(path);
    free(path);
}

/*
 * Write a trace whose second DATA chunk holds one good record and then the
 * bytes of bad[], read it, and check the error names that record.
 */
static void check_bad_record(const uint8_t *bad, size_t bad_len,
                             const char *reason)
{
    struct qtrace_writer *w;
    struct qtrace_reader *rd;
    struct qtrace_err err;
    struct payload pl;
    struct expect ex;
    char *path = temp_path();
    char want[256];
    size_t rec_off;
    size_t n;

    memset(&ex, 0, sizeof(ex));
    assert_int_equal(qtrace_writer_open(&w, path, meta_text, catalog_text,
                                        &err), 0);
    pl.len = 0;
    rec_a(&pl, 1, 0x1000, 1);
    write_data(w, &ex, 0, &pl);
    pl.len = 0;
    rec_z(&pl, 2);
    memcpy(pl.data + pl.len, bad, bad_len);
    /* Only the good record goes into ex; the bad one follows it. */
    assert_int_equal(qtrace_writer_chunk(w, QTRACE_CHUNK_DATA, 0, 100,
                                         pl.data,
                                         (uint32_t)(pl.len + bad_len),
                                         &err), 0);
    ex.off[ex.n] = ex.off[ex.n - 1] + ex.size[ex.n - 1];
    memcpy(ex.buf + ex.off[ex.n], pl.data, 16);
    ex.size[ex.n] = 16;
    ex.vcpu[ex.n] = 0;
    ex.n++;
    rec_off = ex.end_of_chunk[0] + 32 + 16;
    assert_int_equal(qtrace_writer_close(w, "records=3\n", &err), 0);

    assert_int_equal(qtrace_reader_open(path, &rd, &err), 0);
    assert_int_equal(read_all(rd, &ex, &n, &err), -EBADMSG);
    assert_int_equal(n, 2);
    snprintf(want, sizeof(want), "chunk 2 at offset 0x%zx: record at "
             "offset 0x%zx: %s", (size_t)ex.end_of_chunk[0], rec_off,
             reason);
    assert_string_equal(err.msg, want);
    qtrace_reader_close(rd);
    unlink(path);
    free(path);
}

static void test_reader_bad_records_rejected(void **state)
{
    uint8_t bad[64];

    (void)state;
    memset(bad, 0, sizeof(bad));
    put16(bad, EV_Z);
    check_bad_record(bad, 16, "size 0, below the 16-byte record header");
    put16(bad + 2, 20);
    check_bad_record(bad, 24, "size 20, not a multiple of 8");
    put16(bad + 2, 64);
    check_bad_record(bad, 32, "size 64, past the end of the chunk "
                     "(32 bytes left)");
    check_bad_record(bad, 8, "truncated record header (8 bytes left in the "
                     "chunk)");
    put16(bad, 99);
    put16(bad + 2, 16);
    check_bad_record(bad, 16, "unknown event id 99");
    put16(bad, 0);
    check_bad_record(bad, 16, "unknown event id 0");
    put16(bad, EV_A);
    check_bad_record(bad, 16, "size 16 below the 28 bytes of ev_a");
    /* ev_s with a 100-byte name in a 32-byte record. */
    put16(bad, EV_S);
    put16(bad + 2, 32);
    put16(bad + 18, 100);
    check_bad_record(bad, 32, "variable arguments of ev_s need 124 bytes, "
                     "record has 32");
    /* ev_b: each length fits, their sum does not. */
    put16(bad, EV_B);
    put16(bad + 2, 32);
    put16(bad + 18, 6);
    put16(bad + 20, 6);
    check_bad_record(bad, 32, "variable arguments of ev_b need 34 bytes, "
                     "record has 32");
}

static void check_open_fails(const uint8_t *buf, size_t len, int ret,
                             const char *msg)
{
    struct qtrace_reader *rd = (void *)1;
    struct qtrace_err err;
    char *path = temp_path();

    write_file(path, buf, len);
    assert_int_equal(qtrace_reader_open(path, &rd, &err), ret);
    assert_null(rd);
    assert_string_equal(err.msg, msg);
    unlink(path);
    free(path);
}

static void test_reader_bad_file_header_rejected(void **state)
{
    struct qtrace_reader *rd;
    struct qtrace_err err;
    struct expect ex;
    char *path = write_reference(&ex, true);
    size_t size;
    uint8_t *buf = read_file(path, &size);

    (void)state;
    check_open_fails(buf, 0, -EINVAL, "empty file");
    check_open_fails((const uint8_t *)"QTR", 3, -ENODATA,
                     "truncated file header");
    check_open_fails((const uint8_t *)"\x7f" "ELF\2\1\1\0\0\0\0\0\0\0\0\0",
                     16, -EINVAL, "not a qtrace trace (bad magic)");
    buf[8] = 2;
    check_open_fails(buf, size, -ENOTSUP, "unsupported format version 2");
    buf[8] = 1;
    buf[12] = 8;
    check_open_fails(buf, size, -EINVAL, "bad file header size 8");
    buf[12] = 16;
    buf[16] ^= 1;
    check_open_fails(buf, size, -EBADMSG, "chunk 0 at offset 0x10: bad "
                     "magic");
    buf[16] ^= 1;
    buf[16 + 40] ^= 1;
    check_open_fails(buf, size, -EBADMSG, "chunk 0 at offset 0x10: "
                     "checksum mismatch");
    buf[16 + 40] ^= 1;
    patch_chunk(buf, 16, 4, "\2\0", 2);
    check_open_fails(buf, size, -EBADMSG, "chunk 0 at offset 0x10: kind 2, "
                     "expected META (1)");

    assert_int_equal(qtrace_reader_open("/nonexistent-dir/x.qtr", &rd,
                                        &err), -ENOENT);
    assert_string_equal(err.msg, "No such file or directory");
    assert_int_equal(qtrace_reader_open("/", &rd, &err), -EISDIR);
    free(buf);
    unlink(path);
    free(path);
}

/* A trace holding only a META chunk made of meta and catalog. */
static int open_meta(const char *meta, const char *catalog,
                     struct qtrace_err *err)
{
    struct qtrace_writer *w;
    struct qtrace_reader *rd;
    char *path = temp_path();
    int ret;

    assert_int_equal(qtrace_writer_open(&w, path, meta, catalog, err), 0);
    assert_int_equal(qtrace_writer_close(w, NULL, err), 0);
    ret = qtrace_reader_open(path, &rd, err);
    qtrace_reader_close(rd);
    unlink(path);
    free(path);
    return ret;
}

static void test_reader_bad_meta_rejected(void **state)
{
    struct qtrace_err err;

    (void)state;
    assert_int_equal(open_meta("", "", &err), 0);
    assert_int_equal(open_meta("a=b\n", "ev_z(void) \"x\"\n", &err), 0);
    assert_int_equal(open_meta("a=b\n", "ev_z(void) \"x\"\nev_y(bad", &err),
                     -EINVAL);
    assert_string_equal(err.msg, "META chunk: catalog 2:9: unterminated "
                        "argument list");
    assert_int_equal(open_meta("a=b", "ev_z(void) \"x\"\n", &err), -EBADMSG);
    assert_string_equal(err.msg,
                        "META chunk: no empty line before the catalog");
    assert_int_equal(open_meta("a=b\nnoequals\n", "", &err), -EBADMSG);
    assert_string_equal(err.msg,
                        "META chunk: line 2: not a key=value line");
    assert_int_equal(open_meta("=b\n", "", &err), -EBADMSG);
    assert_string_equal(err.msg,
                        "META chunk: line 1: not a key=value line");
}

static void test_reader_zstd_chunks_read_like_plain_ones(void **state)
{
    struct qtrace_reader *rd;
    struct qtrace_err err;
    struct expect ex;
    char *path = write_reference_as(&ex, true, true);
    size_t offs[16];
    size_t size;
    size_t n;
    uint8_t *buf = read_file(path, &size);

    (void)state;
    /* Chunks 1 and 3 really are compressed, 2 and 4 are not. */
    assert_int_equal(chunk_offsets(buf, size, offs, 16), 6);
    assert_int_equal(buf[offs[1] + 6], QTRACE_CHUNK_ZSTD);
    assert_int_equal(buf[offs[2] + 6], 0);
    assert_int_equal(buf[offs[3] + 6], QTRACE_CHUNK_ZSTD);
    assert_true(get32(buf + offs[3] + 16) < 20 * 32);

    assert_int_equal(qtrace_reader_open(path, &rd, &err), 0);
    assert_int_equal(read_all(rd, &ex, &n, &err), 0);
    assert_int_equal(n, 28);
    assert_true(qtrace_reader_has_end(rd));
    qtrace_reader_close(rd);
    free(buf);
    unlink(path);
    free(path);
}

/* Damage chunk 1's frame at byte at (CRC made to match) and read. */
static void check_bad_frame(size_t at, const char *reason)
{
    struct qtrace_err err;
    struct expect ex;
    char *path = write_reference_as(&ex, true, true);
    char want[256];
    size_t offs[16];
    size_t size;
    size_t n;
    uint8_t *buf = read_file(path, &size);
    uint8_t byte;

    chunk_offsets(buf, size, offs, 16);
    assert_true(at < get32(buf + offs[1] + 16));
    buf[offs[1] + 32 + at] ^= 0xff;
    byte = buf[offs[1] + 6];
    patch_chunk(buf, offs[1], 6, &byte, 1);
    assert_int_equal(read_modified(buf, size, &ex, &n, &err), -EBADMSG);
    assert_int_equal(n, 0);
    snprintf(want, sizeof(want), "chunk 1 at offset 0x%zx: %s", offs[1],
             reason);
    assert_string_equal(err.msg, want);
    free(buf);
    unlink(path);
    free(path);
}

static void test_reader_bad_zstd_frame_stops_there(void **state)
{
    (void)state;
    check_bad_frame(0, "not a zstd frame with its content size");
    check_bad_frame(3, "not a zstd frame with its content size");
}

static void test_reader_zstd_frame_over_the_limit_rejected(void **state)
{
    size_t big = (size_t)QTRACE_CHUNK_MAX + 8;
    uint8_t *zeros = calloc(1, big);
    struct qtrace_writer *w;
    struct qtrace_reader *rd;
    struct qtrace_err err;
    struct qtrace_record rec;
    char *path = temp_path();
    char want[160];

    (void)state;
    assert_non_null(zeros);
    assert_int_equal(qtrace_writer_open(&w, path, meta_text, catalog_text,
                                        &err), 0);
    write_zstd_chunk(w, 0, 100, zeros, big);
    assert_int_equal(qtrace_writer_close(w, "records=0\n", &err), 0);
    assert_int_equal(qtrace_reader_open(path, &rd, &err), 0);
    assert_int_equal(qtrace_reader_next(rd, &rec, &err), -EBADMSG);
    snprintf(want, sizeof(want), "zstd frame of %zu bytes, over the "
             "%u-byte limit", big, QTRACE_CHUNK_MAX);
    assert_non_null(strstr(err.msg, want));
    qtrace_reader_close(rd);
    free(zeros);
    unlink(path);
    free(path);
}

static void test_reader_bad_record_in_zstd_chunk_named(void **state)
{
    struct qtrace_writer *w;
    struct qtrace_reader *rd;
    struct qtrace_err err;
    struct payload pl;
    struct expect ex;
    char *path = temp_path();
    size_t n;

    (void)state;
    memset(&ex, 0, sizeof(ex));
    assert_int_equal(qtrace_writer_open(&w, path, meta_text, catalog_text,
                                        &err), 0);
    pl.len = 0;
    rec_z(&pl, 1);
    rec_z(&pl, 2);
    put16(pl.data + 16, 99);        /* the second: an unknown event */
    write_zstd_chunk(w, 0, 100, pl.data, pl.len);
    assert_int_equal(qtrace_writer_close(w, "records=2\n", &err), 0);
    ex.size[0] = 16;
    memcpy(ex.buf, pl.data, 16);
    ex.n = 1;

    assert_int_equal(qtrace_reader_open(path, &rd, &err), 0);
    assert_int_equal(read_all(rd, &ex, &n, &err), -EBADMSG);
    assert_int_equal(n, 1);
    assert_non_null(strstr(err.msg, ": record at decompressed byte 0x10: "
                           "unknown event id 99"));
    qtrace_reader_close(rd);
    unlink(path);
    free(path);
}

/* Resident memory of this process, in MiB. */
static long resident_mib(void)
{
    long pages = 0;
    FILE *f = fopen("/proc/self/statm", "r");

    assert_non_null(f);
    assert_int_equal(fscanf(f, "%*s %ld", &pages), 1);
    fclose(f);
    return pages * sysconf(_SC_PAGESIZE) >> 20;
}

/*
 * A 300 MiB trace, far beyond the reader's release window (64 MiB): read
 * to the end, rewind, read again. Both passes see every record intact and
 * keep resident memory well under the file's size; the second one starts
 * below the part already released, and releases nothing but the file's.
 */
static void test_reader_rewind_after_release_reads_again(void **state)
{
    enum { PER_CHUNK = 65536, CHUNKS = 300, CANARY = 96 << 20 };
    uint8_t *data = malloc((size_t)PER_CHUNK * 16);
    uint8_t *canary;
    struct qtrace_writer *w;
    struct qtrace_reader *rd;
    struct qtrace_record rec;
    struct qtrace_err err;
    char *path = temp_path();
    char end[32];
    uint64_t n, pass;
    size_t i, c;

    (void)state;
    assert_non_null(data);
    memset(data, 0, (size_t)PER_CHUNK * 16);
    assert_int_equal(qtrace_writer_open(&w, path, meta_text, catalog_text,
                                        &err), 0);
    for (c = 0; c < CHUNKS; c++) {
        for (i = 0; i < PER_CHUNK; i++) {
            put16(data + 16 * i, EV_Z);
            put16(data + 16 * i + 2, 16);
            put64(data + 16 * i + 8, c * PER_CHUNK + i);
        }
        assert_int_equal(qtrace_writer_chunk(w, QTRACE_CHUNK_DATA, 0, 100,
                                             data, PER_CHUNK * 16, &err), 0);
    }
    snprintf(end, sizeof(end), "records=%d\n", PER_CHUNK * CHUNKS);
    assert_int_equal(qtrace_writer_close(w, end, &err), 0);

    assert_int_equal(qtrace_reader_open(path, &rd, &err), 0);
    /*
     * Mapped after the trace, so (mappings grow downwards) most likely
     * right below it: where a release that miscounts would reach.
     */
    canary = mmap(NULL, CANARY, PROT_READ | PROT_WRITE,
                  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    assert_true(canary != MAP_FAILED);
    memset(canary, 0xa5, CANARY);
    for (pass = 0; pass < 2; pass++) {
        n = 0;
        while (qtrace_reader_next(rd, &rec, &err) == 1) {
            if (rec.time != n) {
                fail_msg("pass %" PRIu64 ": record %" PRIu64 " has time %"
                         PRIu64, pass, n, rec.time);
            }
            n++;
        }
        assert_int_equal(n, (uint64_t)PER_CHUNK * CHUNKS);
        assert_true(qtrace_reader_has_end(rd));
        if (resident_mib() > 200 + (CANARY >> 20)) {
            fail_msg("pass %" PRIu64 ": %ld MiB resident", pass,
                     resident_mib());
        }
        qtrace_reader_rewind(rd);
    }
    for (i = 0; i < CANARY; i++) {
        if (canary[i] != 0xa5) {
            fail_msg("memory outside the trace changed at byte %zu", i);
        }
    }
    munmap(canary, CANARY);
    qtrace_reader_close(rd);
    free(data);
    unlink(path);
    free(path);
}

/* The tests above that read through open_reader, reading ahead. */
static void test_reader_ahead_round_trip(void **state)
{
    read_ahead = true;
    test_reader_round_trip_returns_every_record(state);
    test_reader_missing_end_reports_unclean_exit(state);
    read_ahead = false;
}

static void test_reader_ahead_every_cut(void **state)
{
    read_ahead = true;
    test_reader_every_cut_reads_whole_chunks(state);
    read_ahead = false;
}

static void test_reader_ahead_bad_chunks_and_records(void **state)
{
    read_ahead = true;
    test_reader_flipped_payload_byte_is_checksum_mismatch(state);
    test_reader_corrupt_chunk_header_stops_there(state);
    test_reader_bad_records_rejected(state);
    read_ahead = false;
}

#define MANY_RECS 60000u            /* seven batches of the thread */
#define RECS_PER_CHUNK 100u

/* A trace of MANY_RECS ev_a records, record i with time i and pc i. */
static char *write_many(void)
{
    struct qtrace_writer *w;
    struct qtrace_err err;
    struct payload pl;
    char *path = temp_path();
    char end[64];
    uint32_t i;

    assert_int_equal(qtrace_writer_open(&w, path, meta_text, catalog_text,
                                        &err), 0);
    pl.len = 0;
    for (i = 0; i < MANY_RECS; i++) {
        rec_a(&pl, i, i, i % 7);
        if ((i + 1) % RECS_PER_CHUNK == 0) {
            write_data_as(w, NULL, i / RECS_PER_CHUNK % 2, &pl,
                          i / RECS_PER_CHUNK % 3 == 0);
            pl.len = 0;
        }
    }
    snprintf(end, sizeof(end), "records=%u\nlost=0\n", MANY_RECS);
    assert_int_equal(qtrace_writer_close(w, end, &err), 0);
    return path;
}

/* Read up to n records, checking each is the next one; returns the count. */
static uint32_t read_many(struct qtrace_reader *rd, uint32_t *next,
                          uint32_t n, int *ret)
{
    struct qtrace_record rec;
    struct qtrace_err err;
    uint32_t got = 0;

    while (got < n && (*ret = qtrace_reader_next(rd, &rec, &err)) == 1) {
        assert_int_equal(rec.time, *next);
        assert_int_equal(rec.size, 32);
        assert_int_equal(get32(rec.data + 16), *next);
        assert_int_equal(rec.vcpu, *next / RECS_PER_CHUNK % 2);
        (*next)++;
        got++;
    }
    return got;
}

/*
 * Calls between the records stop the thread and start it again: the
 * records go on in order from where they were; rewind and select start
 * over; close with the thread running ends it.
 */
static void test_reader_ahead_many_batches_and_pauses(void **state)
{
    struct qtrace_reader *rd;
    struct qtrace_err err;
    char *path = write_many();
    uint64_t size, want[QTRACE_MAX_EVENTS / 64] = { 0 };
    uint32_t next = 0;
    int ret = 1;

    (void)state;
    assert_int_equal(qtrace_reader_open(path, &rd, &err), 0);
    assert_int_equal(qtrace_reader_set_ahead(rd, true), 0);
    assert_int_equal(read_many(rd, &next, 10000, &ret), 10000);
    /* Ahead of the records handed out, never behind them. */
    assert_true(qtrace_reader_offset(rd, &size) > 16);
    assert_int_equal(read_many(rd, &next, 1, &ret), 1);
    assert_false(qtrace_reader_index(rd));     /* the writer wrote none */
    assert_int_equal(qtrace_reader_charge(rd, 100, &err), 0);
    assert_string_equal(qtrace_reader_stop_reason(rd),
                        "trace not read to its end");
    assert_int_equal(read_many(rd, &next, 20000, &ret), 20000);
    /* Off: the records read ahead first, then on this thread. */
    assert_int_equal(qtrace_reader_set_ahead(rd, false), 0);
    assert_int_equal(read_many(rd, &next, 5000, &ret), 5000);
    assert_int_equal(qtrace_reader_set_ahead(rd, true), 0);
    assert_int_equal(read_many(rd, &next, MANY_RECS, &ret),
                     MANY_RECS - 35001);
    assert_int_equal(ret, 0);
    assert_int_equal(next, MANY_RECS);
    assert_true(qtrace_reader_has_end(rd));
    assert_null(qtrace_reader_stop_reason(rd));
    assert_int_equal(read_many(rd, &next, 1, &ret), 0);
    assert_int_equal(ret, 0);

    qtrace_reader_rewind(rd);
    next = 0;
    assert_int_equal(read_many(rd, &next, 30000, &ret), 30000);
    qtrace_reader_rewind(rd);
    next = 0;
    assert_int_equal(read_many(rd, &next, 100, &ret), 100);
    /* A selection starts over too. */
    want[EV_A / 64] |= 1ull << (EV_A % 64);
    assert_int_equal(qtrace_reader_select(rd, want, &err), 0);
    next = 0;
    assert_int_equal(read_many(rd, &next, MANY_RECS + 1, &ret), MANY_RECS);
    assert_int_equal(ret, 0);
    qtrace_reader_rewind(rd);
    next = 0;
    assert_int_equal(read_many(rd, &next, 25000, &ret), 25000);
    qtrace_reader_close(rd);
    unlink(path);
    free(path);
}

/* Progress offsets reach the caller, on its thread, in order, to the end. */
struct progress_seen {
    uint64_t last;
    uint64_t calls;
    bool backwards;
};

static void on_progress(void *arg, uint64_t offset, uint64_t size)
{
    struct progress_seen *ps = arg;

    (void)size;
    ps->backwards |= offset < ps->last;
    ps->last = offset;
    ps->calls++;
}

static void test_reader_ahead_progress_chunk_by_chunk(void **state)
{
    struct progress_seen seen = { 0, 0, false };
    struct qtrace_reader *rd;
    struct qtrace_err err;
    char *path = write_many();
    uint32_t next = 0;
    uint64_t size;
    int ret = 1;

    (void)state;
    assert_int_equal(qtrace_reader_open(path, &rd, &err), 0);
    qtrace_reader_offset(rd, &size);
    qtrace_reader_set_progress(rd, on_progress, &seen);
    assert_int_equal(qtrace_reader_set_ahead(rd, true), 0);
    assert_int_equal(read_many(rd, &next, MANY_RECS + 1, &ret), MANY_RECS);
    assert_int_equal(ret, 0);
    assert_false(seen.backwards);
    assert_int_equal(seen.last, size);
    /* One a chunk at least, as without the thread. */
    assert_true(seen.calls >= MANY_RECS / RECS_PER_CHUNK);
    qtrace_reader_close(rd);
    unlink(path);
    free(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reader_round_trip_returns_every_record),
        cmocka_unit_test(test_reader_accessors_decode_args),
        cmocka_unit_test(test_reader_select_stream_reads_one_stream),
        cmocka_unit_test(test_reader_missing_end_reports_unclean_exit),
        cmocka_unit_test(test_reader_every_cut_reads_whole_chunks),
        cmocka_unit_test(test_reader_flipped_payload_byte_is_checksum_mismatch),
        cmocka_unit_test(test_reader_corrupt_chunk_header_stops_there),
        cmocka_unit_test(test_reader_chunk_rules_enforced),
        cmocka_unit_test(test_reader_unknown_kind_skipped_only_if_valid),
        cmocka_unit_test(test_reader_bad_records_rejected),
        cmocka_unit_test(test_reader_bad_file_header_rejected),
        cmocka_unit_test(test_reader_bad_meta_rejected),
        cmocka_unit_test(test_reader_zstd_chunks_read_like_plain_ones),
        cmocka_unit_test(test_reader_bad_zstd_frame_stops_there),
        cmocka_unit_test(test_reader_zstd_frame_over_the_limit_rejected),
        cmocka_unit_test(test_reader_bad_record_in_zstd_chunk_named),
        cmocka_unit_test(test_reader_rewind_after_release_reads_again),
        cmocka_unit_test(test_reader_ahead_round_trip),
        cmocka_unit_test(test_reader_ahead_every_cut),
        cmocka_unit_test(test_reader_ahead_bad_chunks_and_records),
        cmocka_unit_test(test_reader_ahead_many_batches_and_pauses),
        cmocka_unit_test(test_reader_ahead_progress_chunk_by_chunk),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
