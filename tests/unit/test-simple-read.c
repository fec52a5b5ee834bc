/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests of src/trace/simple-read.c: files built here byte by byte
 * from the simpletrace layout (docs/format.md), then cut and corrupted;
 * the reader must decode the good ones and stop cleanly on the rest.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "simple-read.h"

struct buf {
    uint8_t b[512];
    size_t n;
};

static void put(struct buf *f, const void *p, size_t n)
{
    memcpy(f->b + f->n, p, n);
    f->n += n;
}

static void put64(struct buf *f, uint64_t v)
{
    put(f, &v, 8);
}

static void put32(struct buf *f, uint32_t v)
{
    put(f, &v, 4);
}

/*
 * header; mapping 5 -> "ev"; event 5 (u64 7, string "hi") at time 100,
 * pid 42; dropped record (3) at time 200.
 */
static void build_sample(struct buf *f)
{
    f->n = 0;
    put64(f, 0xffffffffffffffffULL);
    put64(f, 0xf2b177cb0aa429b4ULL);
    put64(f, 4);
    put64(f, 0);
    put64(f, 5);
    put32(f, 2);
    put(f, "ev", 2);
    put64(f, 1);
    put64(f, 5);
    put64(f, 100);
    put32(f, 24 + 8 + 4 + 2);
    put32(f, 42);
    put64(f, 7);
    put32(f, 2);
    put(f, "hi", 2);
    put64(f, 1);
    put64(f, 0xfffffffffffffffeULL);
    put64(f, 200);
    put32(f, 24 + 8);
    put32(f, 42);
    put64(f, 3);
}

static char path[64];

static int write_file(const struct buf *f, size_t n)
{
    FILE *fp = fopen(path, "wb");

    assert_non_null(fp);
    assert_int_equal(fwrite(f->b, 1, n, fp), n);
    return fclose(fp);
}

static int setup(void **state)
{
    int fd;

    (void)state;
    snprintf(path, sizeof(path), "/tmp/test-simple-read.XXXXXX");
    fd = mkstemp(path);
    if (fd < 0) {
        return -1;
    }
    close(fd);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    unlink(path);
    return 0;
}

static void test_simple_read_sample_decodes(void **state)
{
    static const char events[] = "ev(uint64_t n, const char *s) \"%\" "
                                 "PRIu64 \" %s\"\n";
    struct qtrace_catalog cat;
    struct qtrace_err err;
    struct st_reader *rd;
    struct st_event ev;
    struct buf f;
    char text[128];

    (void)state;
    build_sample(&f);
    write_file(&f, f.n);
    assert_true(st_file_is_simpletrace(path));
    assert_int_equal(qtrace_catalog_parse(&cat, events, &err), 0);
    assert_int_equal(st_reader_open(path, &rd, &err), 0);
    assert_int_equal(st_reader_next(rd, &ev, &err), 1);
    assert_string_equal(ev.name, "ev");
    assert_int_equal(ev.timestamp_ns, 100);
    assert_int_equal(ev.pid, 42);
    assert_int_equal(st_format_args(&ev, qtrace_catalog_find(&cat, "ev"),
                                    text, sizeof(text)), 0);
    assert_string_equal(text, "n=0x7 s=hi");
    assert_int_equal(st_reader_next(rd, &ev, &err), 1);
    assert_true(ev.is_dropped);
    assert_int_equal(st_format_args(&ev, NULL, text, sizeof(text)), 0);
    assert_string_equal(text, "num_events_dropped=0x3");
    assert_int_equal(st_reader_next(rd, &ev, &err), 0);
    st_reader_close(rd);
    qtrace_catalog_fini(&cat);
}

/* Every cut of the file: no crash; a cut inside a record is an error. */
static void test_simple_read_every_cut_stops_cleanly(void **state)
{
    struct qtrace_err err;
    struct st_reader *rd;
    struct st_event ev;
    struct buf f;
    size_t cut;

    (void)state;
    build_sample(&f);
    for (cut = 0; cut < f.n; cut++) {
        int ret;
        int n = 0;

        write_file(&f, cut);
        if (st_reader_open(path, &rd, &err) < 0) {
            assert_true(cut < 24);
            continue;
        }
        while ((ret = st_reader_next(rd, &ev, &err)) > 0) {
            n++;
        }
        /* Cuts between records end cleanly, others with an error. */
        if (cut == 24 || cut == 46 || cut == 92) {
            assert_int_equal(ret, 0);
        } else {
            assert_int_equal(ret, -EBADMSG);
            assert_non_null(strstr(err.msg, "offset 0x"));
        }
        st_reader_close(rd);
    }
}

static void test_simple_read_bad_records_are_refused(void **state)
{
    struct qtrace_err err;
    struct st_reader *rd;
    struct st_event ev;
    struct buf f;

    (void)state;
    build_sample(&f);
    f.b[46 + 8 + 8 + 8] = 3;         /* event length below 24 */
    write_file(&f, f.n);
    assert_int_equal(st_reader_open(path, &rd, &err), 0);
    assert_int_equal(st_reader_next(rd, &ev, &err), -EBADMSG);
    assert_string_equal(err.msg, "event record at offset 0x2e: bad length "
                        "3");
    st_reader_close(rd);

    build_sample(&f);
    f.b[46 + 8] = 6;                 /* an id without a mapping */
    write_file(&f, f.n);
    assert_int_equal(st_reader_open(path, &rd, &err), 0);
    assert_int_equal(st_reader_next(rd, &ev, &err), -EBADMSG);
    assert_string_equal(err.msg, "event record at offset 0x2e: event id "
                        "without a mapping record");
    st_reader_close(rd);

    build_sample(&f);
    f.b[16] = 3;                     /* version 3 */
    write_file(&f, f.n);
    assert_int_equal(st_reader_open(path, &rd, &err), -EBADMSG);
    assert_string_equal(err.msg, "simpletrace version 3: only version 4 "
                        "is read");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_simple_read_sample_decodes,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_simple_read_every_cut_stops_cleanly, setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_simple_read_bad_records_are_refused, setup, teardown),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
