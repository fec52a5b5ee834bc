/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for src/format/merge.c and the reader's host times
 * (reader-clock.c): small traces written by hand with clock stamps, the
 * records' host times and merged order worked out by hand from the
 * stamps (docs/format.md, "Timeline"): streams interleaved, a packed
 * chunk's stamps found among its packets, a record of no vCPU handed out
 * once, order points that win over the clock, and a trace without
 * stamps refused.
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

#include "chunk.h"
#include "packed.h"
#include "qtrace/merge.h"
#include "qtrace/reader.h"
#include "writer.h"

/* Every event: 16-byte header, one or two u64 arguments. */
static const char catalog_text[] =
    "mark(uint64_t n) \"n %\" PRIu64\n"
    "clock(uint64_t ns, uint64_t resume_ns) \"ns %\" PRIu64 \" resume_ns %\" "
    "PRIu64\n"
    "order(uint64_t seq) \"seq %\" PRIu64\n"
    "note(uint64_t v) \"v %\" PRIu64\n";

enum { EV_MARK = 1, EV_CLOCK, EV_ORDER, EV_NOTE };

/* Host times count from the origin: 1000 here. */
static const char meta_stamped[] =
    "format=1\narch=x86_64\nword_bits=64\nendian=little\nmode=user\n"
    "timeline=monotonic\ntimeline_origin=1000\n";
static const char meta_plain[] =
    "format=1\narch=x86_64\nword_bits=64\nendian=little\nmode=user\n";

struct payload {
    uint8_t data[1024];
    size_t len;
    bool packed;                    /* records as record packets */
};

static void put64(uint8_t *p, uint64_t v)
{
    unsigned int i;

    for (i = 0; i < 8; i++) {
        p[i] = (uint8_t)(v >> (8 * i));
    }
}

/* A record of id at time with its arguments (one or two u64). */
static void rec(struct payload *pl, uint16_t id, uint64_t time, uint64_t a,
                uint64_t b)
{
    uint32_t size = id == EV_CLOCK ? 32 : 24;
    uint8_t *p;

    if (pl->packed) {
        /* Tag, then zeros up to the next multiple of 8. */
        pl->data[pl->len++] = PK_RECORD;
        while (pl->len % 8) {
            pl->data[pl->len++] = 0;
        }
    }
    p = pl->data + pl->len;
    assert_true(pl->len + size <= sizeof(pl->data));
    memset(p, 0, size);
    p[0] = (uint8_t)id;
    p[2] = (uint8_t)size;
    put64(p + 8, time);
    put64(p + 16, a);
    if (id == EV_CLOCK) {
        put64(p + 24, b);
    }
    pl->len += size;
}

static void stamp(struct payload *pl, uint64_t time, uint64_t ns,
                  uint64_t resume)
{
    rec(pl, EV_CLOCK, time, ns, resume);
}

static void chunk(struct qtrace_writer *w, uint32_t vcpu, uint32_t stream,
                  const struct payload *pl)
{
    struct qtrace_err err;

    assert_int_equal(qtrace_writer_chunk_flags(w, QTRACE_CHUNK_DATA,
                                               pl->packed ?
                                               QTRACE_CHUNK_PACKED : 0,
                                               vcpu, stream, pl->data,
                                               (uint32_t)pl->len, &err), 0);
}

static char *temp_path(void)
{
    const char *dir = getenv("TMPDIR");
    char *path;
    int fd;

    assert_true(asprintf(&path, "%s/test-merge-XXXXXX",
                         dir && *dir ? dir : "/tmp") > 0);
    fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    return path;
}

static struct qtrace_writer *open_trace(const char *path, const char *meta)
{
    struct qtrace_writer *w;
    struct qtrace_err err;

    assert_int_equal(qtrace_writer_open(&w, path, meta, catalog_text, &err),
                     0);
    return w;
}

static void close_trace(struct qtrace_writer *w)
{
    struct qtrace_err err;

    assert_int_equal(qtrace_writer_close(w, "exit=exit\n", &err), 0);
}

/*
 * What a merge hands out, as "EVENT:VALUE@TIME" words (TIME "-" for a
 * record of no vCPU), and how it ended.
 */
static void merge_text(const char *path, char *out, size_t len)
{
    struct qtrace_reader *rd;
    struct qtrace_merge *m;
    struct qtrace_record r;
    struct qtrace_err err;
    uint64_t ns;
    size_t used = 0;
    int ret;

    out[0] = '\0';
    assert_int_equal(qtrace_reader_open(path, &rd, &err), 0);
    assert_int_equal(qtrace_merge_open(rd, NULL, &m, &err), 0);
    while ((ret = qtrace_merge_next(m, &r, &ns, &err)) > 0) {
        char t[32];

        if (r.ev->id == EV_CLOCK) {
            continue;
        }
        if (ns == QTRACE_MERGE_NO_TIME) {
            snprintf(t, sizeof(t), "-");
        } else {
            snprintf(t, sizeof(t), "%llu", (unsigned long long)ns);
        }
        used += (size_t)snprintf(out + used, len - used, "%s%s:%llu@%s",
                                 used ? " " : "", r.ev->name,
                                 (unsigned long long)
                                 qtrace_record_u64(&r, 0), t);
        assert_true(used < len);
    }
    assert_int_equal(ret, 0);
    assert_true(qtrace_reader_has_end(qtrace_merge_reader(m)));
    qtrace_merge_close(m);
    qtrace_reader_close(rd);
}

/*
 * Stream 1: stamps 0 -> 1000 ns and 100 -> 2000, marks at 10 and 50
 * (1100 and 1500: 100 and 500 after the origin). Stream 2: stamps
 * 0 -> 1200 and 100 -> 1800, a mark at 20 (1320: 320); then a packed
 * chunk, stamps 100 -> 1900 and 200 -> 2100, a mark at 150 (2000:
 * 1000). A note of no vCPU between them in the file.
 */
static void test_merge_interleaves_by_host_time(void **state)
{
    char *path = temp_path();
    struct qtrace_writer *w = open_trace(path, meta_stamped);
    struct payload a = { .len = 0 }, n = { .len = 0 }, b = { .len = 0 };
    struct payload c = { .len = 0, .packed = true };
    char text[512];

    (void)state;
    stamp(&a, 0, 1000, 1000);
    rec(&a, EV_MARK, 10, 1, 0);
    rec(&a, EV_MARK, 50, 3, 0);
    stamp(&a, 100, 2000, 2000);
    chunk(w, 0, 1, &a);
    rec(&n, EV_NOTE, 0, 7, 0);
    chunk(w, QTRACE_VCPU_NONE, 0, &n);
    stamp(&b, 0, 1200, 1200);
    rec(&b, EV_MARK, 20, 2, 0);
    stamp(&b, 100, 1800, 1800);
    chunk(w, 1, 2, &b);
    stamp(&c, 100, 1900, 1900);
    rec(&c, EV_MARK, 150, 4, 0);
    stamp(&c, 200, 2100, 2100);
    chunk(w, 1, 2, &c);
    close_trace(w);

    merge_text(path, text, sizeof(text));
    /* Stream 2's reader meets the note first, when it opens (at 200). */
    assert_string_equal(text, "mark:1@100 note:7@- mark:2@320 mark:3@500 "
                        "mark:4@1000");
    unlink(path);
    free(path);
}

/*
 * A pause at count 40 of stream 1 (1100 to 1900 ns): its mark 1 at 40
 * before the pause stamp is at 1100, its mark 3 at 40 after it at 1900.
 * Stream 2's mark 2 at 1500 falls in the pause, between them.
 */
static void test_merge_pause_orders_one_count(void **state)
{
    char *path = temp_path();
    struct qtrace_writer *w = open_trace(path, meta_stamped);
    struct payload a = { .len = 0 }, b = { .len = 0 };
    char text[512];

    (void)state;
    stamp(&a, 0, 1000, 1000);
    rec(&a, EV_MARK, 40, 1, 0);
    stamp(&a, 40, 1100, 1900);
    rec(&a, EV_MARK, 40, 3, 0);
    stamp(&a, 40, 1950, 1950);
    chunk(w, 0, 1, &a);
    stamp(&b, 0, 1400, 1400);
    rec(&b, EV_MARK, 10, 2, 0);
    stamp(&b, 20, 1600, 1600);
    chunk(w, 1, 2, &b);
    close_trace(w);

    merge_text(path, text, sizeof(text));
    assert_string_equal(text, "mark:1@100 mark:2@500 mark:3@900");
    unlink(path);
    free(path);
}

/*
 * The clock puts stream 2's order point 5 (at 20) before stream 1's
 * point 4 (at 200): the order wins. Stream 2's mark 9 before its point
 * comes out at its time; point 5 waits for point 4 and takes its time.
 */
static void test_merge_order_points_win_over_clock(void **state)
{
    char *path = temp_path();
    struct qtrace_writer *w = open_trace(path, meta_stamped);
    struct payload a = { .len = 0 }, b = { .len = 0 };
    char text[512];

    (void)state;
    stamp(&a, 0, 1000, 1000);
    rec(&a, EV_MARK, 10, 1, 0);
    rec(&a, EV_ORDER, 50, 4, 0);
    stamp(&a, 100, 1400, 1400);
    chunk(w, 0, 1, &a);
    stamp(&b, 0, 1000, 1000);
    rec(&b, EV_MARK, 5, 9, 0);
    rec(&b, EV_ORDER, 10, 5, 0);
    stamp(&b, 100, 1200, 1200);
    chunk(w, 1, 2, &b);
    close_trace(w);

    merge_text(path, text, sizeof(text));
    assert_string_equal(text, "mark:9@10 mark:1@40 order:4@200 "
                        "order:5@200");
    unlink(path);
    free(path);
}

/* The reader's own host times: records around a packed chunk's stamps. */
static void test_reader_host_time_of_each_record(void **state)
{
    char *path = temp_path();
    struct qtrace_writer *w = open_trace(path, meta_stamped);
    struct payload a = { .len = 0, .packed = true };
    struct qtrace_reader *rd;
    struct qtrace_record r;
    struct qtrace_err err;
    uint64_t ns, first, last;
    /*
     * A mark before the first stamp is at its ns; a stamp at its own ns;
     * mark 2 halfway from 2100 to 2700; mark 3 halfway from the pause's
     * resume 2800 to 2900; all less the origin, 1000.
     */
    uint64_t want[] = { 1100, 1100, 1400, 1700, 1850, 1900 };
    unsigned int i = 0;

    (void)state;
    rec(&a, EV_MARK, 0, 1, 0);
    stamp(&a, 10, 2100, 2100);
    rec(&a, EV_MARK, 40, 2, 0);
    stamp(&a, 70, 2700, 2800);
    rec(&a, EV_MARK, 80, 3, 0);
    stamp(&a, 90, 2900, 2900);
    chunk(w, 0, 1, &a);
    close_trace(w);

    assert_int_equal(qtrace_reader_open(path, &rd, &err), 0);
    assert_true(qtrace_reader_has_timeline(rd));
    assert_int_equal(qtrace_reader_use_timeline(rd, &err), 0);
    while (qtrace_reader_next(rd, &r, &err) > 0) {
        assert_true(i < 6);
        assert_true(qtrace_reader_host_time(rd, &r, &ns));
        assert_int_equal(ns, want[i]);
        i++;
    }
    assert_int_equal(i, 6);
    assert_int_equal(qtrace_reader_chunk_span(rd, 1, &first, &last, &err), 0);
    assert_int_equal(first, 1100);
    assert_int_equal(last, 1900);
    qtrace_reader_close(rd);
    unlink(path);
    free(path);
}

/* Without META's timeline the clock event means nothing: refused. */
/*
 * A stamped trace with no vCPU stream at all (its one chunk is of no
 * vCPU): the merge has nothing to order and hands out that chunk's note.
 */
static void test_merge_of_no_vcpu_stream(void **state)
{
    char *path = temp_path();
    struct qtrace_writer *w = open_trace(path, meta_stamped);
    struct payload n = { .len = 0 };
    char text[128];

    (void)state;
    rec(&n, EV_NOTE, 0, 9, 0);
    chunk(w, QTRACE_VCPU_NONE, 0, &n);
    close_trace(w);

    merge_text(path, text, sizeof(text));
    assert_string_equal(text, "note:9@-");
    unlink(path);
    free(path);
}

static void test_merge_without_stamps_is_refused(void **state)
{
    char *path = temp_path();
    struct qtrace_writer *w = open_trace(path, meta_plain);
    struct payload a = { .len = 0 };
    struct qtrace_reader *rd;
    struct qtrace_merge *m = NULL;
    struct qtrace_err err;

    (void)state;
    stamp(&a, 0, 1000, 1000);
    rec(&a, EV_MARK, 10, 1, 0);
    chunk(w, 0, 1, &a);
    close_trace(w);

    assert_int_equal(qtrace_reader_open(path, &rd, &err), 0);
    assert_false(qtrace_reader_has_timeline(rd));
    assert_int_equal(qtrace_merge_open(rd, NULL, &m, &err), -ENODATA);
    assert_null(m);
    assert_non_null(strstr(err.msg, "timeline=on"));
    qtrace_reader_close(rd);
    unlink(path);
    free(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_merge_interleaves_by_host_time),
        cmocka_unit_test(test_merge_pause_orders_one_count),
        cmocka_unit_test(test_merge_order_points_win_over_clock),
        cmocka_unit_test(test_reader_host_time_of_each_record),
        cmocka_unit_test(test_merge_of_no_vcpu_stream),
        cmocka_unit_test(test_merge_without_stamps_is_refused),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
