/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for src/format/chunk.c (the chunk CRC) and src/format/writer.c
 * (the bytes a writer puts in a file), checked byte by byte against
 * docs/format.md rather than through the reader.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <cmocka.h>

#include "chunk.h"
#include "writer.h"

#define META_TEXT "format=1\narch=aarch64\n"
#define CATALOG_TEXT "ev_a(uint64_t pc) \"pc 0x%\" PRIx64\n"

struct file_buf {
    uint8_t *data;
    size_t len;
};

static char *temp_path(void)
{
    const char *dir = getenv("TMPDIR");
    char *path;
    int fd;

    assert_true(asprintf(&path, "%s/test-chunk-XXXXXX",
                         dir && *dir ? dir : "/tmp") > 0);
    fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    return path;
}

static struct file_buf slurp(const char *path)
{
    struct file_buf fb = { NULL, 0 };
    struct stat st;
    int fd = open(path, O_RDONLY);

    assert_true(fd >= 0);
    assert_int_equal(fstat(fd, &st), 0);
    fb.len = (size_t)st.st_size;
    fb.data = malloc(fb.len + 1);
    assert_non_null(fb.data);
    assert_int_equal(read(fd, fb.data, fb.len), (ssize_t)fb.len);
    close(fd);
    return fb;
}

static uint32_t get32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
           (uint32_t)p[3] << 24;
}

static uint64_t get64(const uint8_t *p)
{
    return (uint64_t)get32(p) | (uint64_t)get32(p + 4) << 32;
}

/* Check the chunk at off: header fields, payload and CRC; returns its end. */
static size_t check_chunk_at(const struct file_buf *fb, size_t off,
                             uint16_t kind, uint32_t vcpu, uint32_t stream,
                             uint64_t seq, const void *payload, uint32_t len)
{
    const uint8_t *p = fb->data + off;
    uint8_t hdr[32];

    assert_true(off + 32 + len <= fb->len);
    assert_int_equal(get32(p), QTRACE_CHUNK_MAGIC);
    assert_int_equal(p[4] | p[5] << 8, kind);
    assert_int_equal(p[6] | p[7] << 8, 0);
    assert_int_equal(get32(p + 8), vcpu);
    assert_int_equal(get32(p + 12), stream);
    assert_int_equal(get32(p + 16), len);
    assert_int_equal(get64(p + 24), seq);
    assert_memory_equal(p + 32, payload, len);
    memcpy(hdr, p, sizeof(hdr));
    memset(hdr + 20, 0, 4);
    assert_int_equal(get32(p + 20),
                     crc32(crc32(0, hdr, sizeof(hdr)), p + 32, len));
    return off + 32 + len;
}

static void test_chunk_crc_known_value_matches(void **state)
{
    struct qtrace_chunk_hdr hdr = {
        .magic = QTRACE_CHUNK_MAGIC, .kind = 2, .flags = 0, .vcpu = 1,
        .stream = 7, .len = 9, .crc = 0, .seq = 5,
    };

    (void)state;
    /* Value computed independently (Python's zlib.crc32). */
    assert_int_equal(qtrace_chunk_crc(&hdr, "123456789", 9), 0x3f8063c0);
}

static void test_chunk_crc_ignores_crc_field(void **state)
{
    struct qtrace_chunk_hdr hdr = { .magic = QTRACE_CHUNK_MAGIC, .kind = 3 };
    uint32_t a;

    (void)state;
    a = qtrace_chunk_crc(&hdr, "x", 1);
    hdr.crc = 0xdeadbeef;
    assert_int_equal(qtrace_chunk_crc(&hdr, "x", 1), a);
    assert_int_equal(hdr.crc, 0xdeadbeef);   /* hdr left untouched */
}

static void test_chunk_crc_covers_header_and_payload(void **state)
{
    struct qtrace_chunk_hdr hdr = { .magic = QTRACE_CHUNK_MAGIC, .kind = 2 };
    uint32_t a;

    (void)state;
    a = qtrace_chunk_crc(&hdr, "abcd", 4);
    assert_int_not_equal(qtrace_chunk_crc(&hdr, "abce", 4), a);
    hdr.vcpu = 1;
    assert_int_not_equal(qtrace_chunk_crc(&hdr, "abcd", 4), a);
    hdr.vcpu = 0;
    assert_int_equal(qtrace_chunk_crc(&hdr, "abcd", 4), a);
    assert_int_equal(qtrace_chunk_crc(&hdr, NULL, 0),
                     qtrace_chunk_crc(&hdr, "abcd", 0));
}

static void test_chunk_rec_size_rounds_up_to_8(void **state)
{
    (void)state;
    assert_int_equal(qtrace_rec_size(16, 0), 16);
    assert_int_equal(qtrace_rec_size(28, 0), 32);
    assert_int_equal(qtrace_rec_size(22, 3), 32);
    assert_int_equal(qtrace_rec_size(24, 8), 32);
    assert_int_equal(qtrace_rec_size(24, 9), 40);
}

static void test_chunk_writer_layout_matches_spec(void **state)
{
    static const char meta_payload[] = META_TEXT "\n" CATALOG_TEXT;
    static const uint8_t data[16] = { 1, 0, 16, 0 };
    static const char end[] = "records=1\nchunks=3\nlost=0\n";
    struct qtrace_writer *w;
    struct qtrace_err err;
    struct file_buf fb;
    char *path = temp_path();
    size_t off;

    (void)state;
    assert_int_equal(qtrace_writer_open(&w, path, META_TEXT, CATALOG_TEXT,
                                        &err), 0);
    assert_int_equal(qtrace_writer_bytes(w),
                     16 + 32 + sizeof(meta_payload) - 1);
    assert_int_equal(qtrace_writer_chunk(w, QTRACE_CHUNK_DATA, 3, 9, data,
                                         sizeof(data), &err), 0);
    assert_int_equal(qtrace_writer_bytes(w),
                     16 + 32 + sizeof(meta_payload) - 1 + 32 + 16);
    assert_int_equal(qtrace_writer_close(w, end, &err), 0);

    fb = slurp(path);
    assert_memory_equal(fb.data, "QTRACE\r\n", 8);
    assert_int_equal(get32(fb.data + 8), 1);
    assert_int_equal(get32(fb.data + 12), 16);
    off = check_chunk_at(&fb, 16, QTRACE_CHUNK_META, 0, 0, 0, meta_payload,
                         sizeof(meta_payload) - 1);
    off = check_chunk_at(&fb, off, QTRACE_CHUNK_DATA, 3, 9, 1, data,
                         sizeof(data));
    off = check_chunk_at(&fb, off, QTRACE_CHUNK_END, 0, 0, 2, end,
                         sizeof(end) - 1);
    assert_int_equal(off, fb.len);
    free(fb.data);
    unlink(path);
    free(path);
}

static void test_chunk_writer_close_without_end_writes_no_end(void **state)
{
    struct qtrace_writer *w;
    struct qtrace_err err;
    struct file_buf fb;
    char *path = temp_path();
    uint64_t bytes;

    (void)state;
    assert_int_equal(qtrace_writer_open(&w, path, NULL, NULL, &err), 0);
    bytes = qtrace_writer_bytes(w);
    assert_int_equal(qtrace_writer_close(w, NULL, &err), 0);
    fb = slurp(path);
    assert_int_equal(fb.len, bytes);
    /* META payload of an empty meta and catalog: just the empty line. */
    assert_int_equal(check_chunk_at(&fb, 16, QTRACE_CHUNK_META, 0, 0, 0,
                                    "\n", 1), fb.len);
    free(fb.data);
    unlink(path);
    free(path);
}

static void test_chunk_writer_bad_dir_names_path(void **state)
{
    struct qtrace_writer *w = (void *)1;
    struct qtrace_err err;

    (void)state;
    assert_int_equal(qtrace_writer_open(&w, "/nonexistent-dir/x.qtr", "",
                                        "", &err), -ENOENT);
    assert_null(w);
    assert_string_equal(err.msg,
                        "/nonexistent-dir/x.qtr: No such file or directory");
}

static void test_chunk_writer_full_disk_returns_enospc(void **state)
{
    struct qtrace_writer *w;
    struct qtrace_err err;

    (void)state;
    if (access("/dev/full", W_OK) != 0) {
        skip();
    }
    assert_int_equal(qtrace_writer_open(&w, "/dev/full", "", "", &err),
                     -ENOSPC);
    assert_string_equal(err.msg, "/dev/full: No space left on device");
}

static void test_chunk_writer_oversized_chunk_refused(void **state)
{
    struct qtrace_writer *w;
    struct qtrace_err err;
    char *path = temp_path();
    uint8_t *big = calloc(1, QTRACE_CHUNK_MAX + 1u);
    uint64_t bytes;

    (void)state;
    assert_non_null(big);
    assert_int_equal(qtrace_writer_open(&w, path, "", "", &err), 0);
    bytes = qtrace_writer_bytes(w);
    assert_int_equal(qtrace_writer_chunk(w, QTRACE_CHUNK_DATA, 0, 0, big,
                                         QTRACE_CHUNK_MAX + 1u, &err),
                     -EFBIG);
    assert_non_null(strstr(err.msg, "over the"));
    assert_int_equal(qtrace_writer_bytes(w), bytes);
    assert_int_equal(qtrace_writer_close(w, NULL, &err), 0);
    free(big);
    unlink(path);
    free(path);
}

/*
 * A chunk that reaches the file only in part (file size limit, like a full
 * disk) is cut away again, so the chunks written after it stay readable.
 */
static void test_chunk_writer_partial_chunk_is_cut_away(void **state)
{
    static uint8_t payload[8192];
    struct qtrace_writer *w;
    struct qtrace_err err;
    struct rlimit old;
    struct rlimit lim;
    struct file_buf fb;
    char *path = temp_path();
    uint64_t good;
    size_t off;

    (void)state;
    memset(payload, 0x5a, sizeof(payload));
    assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
    signal(SIGXFSZ, SIG_IGN);
    assert_int_equal(qtrace_writer_open(&w, path, "", "", &err), 0);
    assert_int_equal(qtrace_writer_chunk(w, QTRACE_CHUNK_DATA, 0, 0,
                                         payload, 16, &err), 0);
    good = qtrace_writer_bytes(w);

    lim = old;
    lim.rlim_cur = 4096;
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
    assert_int_equal(qtrace_writer_chunk(w, QTRACE_CHUNK_DATA, 1, 0,
                                         payload, sizeof(payload), &err),
                     -EFBIG);
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
    signal(SIGXFSZ, SIG_DFL);
    assert_int_equal(qtrace_writer_bytes(w), good);

    assert_int_equal(qtrace_writer_chunk(w, QTRACE_CHUNK_DATA, 2, 0,
                                         payload, 24, &err), 0);
    assert_int_equal(qtrace_writer_close(w, "records=0\n", &err), 0);
    fb = slurp(path);
    off = check_chunk_at(&fb, 16, QTRACE_CHUNK_META, 0, 0, 0, "\n", 1);
    off = check_chunk_at(&fb, off, QTRACE_CHUNK_DATA, 0, 0, 1, payload, 16);
    off = check_chunk_at(&fb, off, QTRACE_CHUNK_DATA, 2, 0, 2, payload, 24);
    off = check_chunk_at(&fb, off, QTRACE_CHUNK_END, 0, 0, 3, "records=0\n",
                         10);
    assert_int_equal(off, fb.len);
    free(fb.data);
    unlink(path);
    free(path);
}

static void test_chunk_writer_open_fd_writes_to_pipe(void **state)
{
    static const uint8_t data[8] = { 0 };
    struct qtrace_writer *w;
    struct qtrace_err err;
    struct file_buf fb;
    uint8_t buf[512];
    ssize_t n;
    int fds[2];

    (void)state;
    assert_int_equal(pipe(fds), 0);
    assert_int_equal(qtrace_writer_open_fd(&w, fds[1], "pipe", "a=b\n",
                                           "", &err), 0);
    assert_int_equal(qtrace_writer_chunk(w, QTRACE_CHUNK_DATA, 0, 0, data,
                                         sizeof(data), &err), 0);
    assert_int_equal(qtrace_writer_close(w, NULL, &err), 0);
    n = read(fds[0], buf, sizeof(buf));
    close(fds[0]);
    assert_int_equal(n, 16 + 32 + 5 + 32 + 8);
    fb.data = buf;
    fb.len = (size_t)n;
    check_chunk_at(&fb, 16 + 32 + 5, QTRACE_CHUNK_DATA, 0, 0, 1, data, 8);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_chunk_crc_known_value_matches),
        cmocka_unit_test(test_chunk_crc_ignores_crc_field),
        cmocka_unit_test(test_chunk_crc_covers_header_and_payload),
        cmocka_unit_test(test_chunk_rec_size_rounds_up_to_8),
        cmocka_unit_test(test_chunk_writer_layout_matches_spec),
        cmocka_unit_test(test_chunk_writer_close_without_end_writes_no_end),
        cmocka_unit_test(test_chunk_writer_bad_dir_names_path),
        cmocka_unit_test(test_chunk_writer_full_disk_returns_enospc),
        cmocka_unit_test(test_chunk_writer_oversized_chunk_refused),
        cmocka_unit_test(test_chunk_writer_partial_chunk_is_cut_away),
        cmocka_unit_test(test_chunk_writer_open_fd_writes_to_pipe),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
