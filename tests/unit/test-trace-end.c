/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests of src/cli/trace-end.c, the END chunk read from a trace's
 * tail: traces written with the format's own writer, the END present,
 * absent, cut short, and a DATA payload that ends with bytes shaped like
 * an END header (but with no valid checksum).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "../format/le.h"
#include "../format/writer.h"
#include "trace-end.h"

static const char meta_text[] = "format=1\narch=x86_64\n";
static const char catalog_text[] = "exec_tb(uint64_t pc, uint32_t tb) "
                                   "\"pc 0x%\" PRIx64 \" tb %u\"\n";

/* DATA payload bytes: big enough that the END sits past the 64 KiB tail. */
#define DATA_BYTES (200u * 1024u)

static char *temp_path(void)
{
    char *path = strdup("/tmp/test-trace-end.XXXXXX");
    int fd;

    assert_non_null(path);
    fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    return path;
}

/*
 * A trace of one DATA chunk. With fake_tail, the payload ends with a
 * chunk header of kind END, length 0 and checksum 0. end is the END text,
 * or NULL for none.
 */
static char *write_trace(const char *end, bool fake_tail)
{
    struct qtrace_writer *w;
    struct qtrace_err err;
    uint8_t *data = calloc(1, DATA_BYTES);
    uint8_t *hdr = data + DATA_BYTES - 32;
    char *path = temp_path();

    assert_non_null(data);
    if (fake_tail) {
        store32(hdr, QTRACE_CHUNK_MAGIC);
        store16(hdr + 4, QTRACE_CHUNK_END);
    }
    assert_int_equal(qtrace_writer_open(&w, path, meta_text, catalog_text,
                                        &err), 0);
    assert_int_equal(qtrace_writer_chunk(w, QTRACE_CHUNK_DATA, 0, 1, data,
                                         DATA_BYTES, &err), 0);
    assert_int_equal(qtrace_writer_close(w, end, &err), 0);
    free(data);
    return path;
}

static uint64_t file_size(const char *path)
{
    struct stat st;

    assert_int_equal(stat(path, &st), 0);
    return (uint64_t)st.st_size;
}

static void test_trace_end_found_reads_its_keys(void **state)
{
    char *path = write_trace("records=5\nlost=0\ninsns=77\nexit=exit\n",
                             false);
    struct kv_list end;
    struct qtrace_err err;
    uint64_t bytes = 0;

    (void)state;
    assert_int_equal(trace_end_read(path, &end, &bytes, &err), 1);
    assert_string_equal(kv_get(&end, "insns"), "77");
    assert_string_equal(kv_get(&end, "records"), "5");
    assert_int_equal(bytes, file_size(path));
    kv_fini(&end);
    unlink(path);
    free(path);
}

static void test_trace_end_absent_is_zero(void **state)
{
    char *path = write_trace(NULL, false);
    struct kv_list end;
    struct qtrace_err err;
    uint64_t bytes = 0;

    (void)state;
    assert_int_equal(trace_end_read(path, &end, &bytes, &err), 0);
    unlink(path);
    free(path);
}

static void test_trace_end_cut_short_is_zero(void **state)
{
    char *path = write_trace("records=5\n", false);
    struct kv_list end;
    struct qtrace_err err;
    uint64_t bytes = 0;

    (void)state;
    assert_int_equal(truncate(path, (off_t)file_size(path) - 1), 0);
    assert_int_equal(trace_end_read(path, &end, &bytes, &err), 0);
    unlink(path);
    free(path);
}

static void test_trace_end_bad_checksum_is_no_end(void **state)
{
    char *path = write_trace(NULL, true);
    struct kv_list end;
    struct qtrace_err err;
    uint64_t bytes = 0;

    (void)state;
    assert_int_equal(trace_end_read(path, &end, &bytes, &err), 0);
    unlink(path);
    free(path);
}

static void test_trace_end_missing_file_is_an_error(void **state)
{
    struct kv_list end;
    struct qtrace_err err;
    uint64_t bytes = 0;

    (void)state;
    assert_int_equal(trace_end_read("/nonexistent/t.qtr", &end, &bytes,
                                    &err), -ENOENT);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_trace_end_found_reads_its_keys),
        cmocka_unit_test(test_trace_end_absent_is_zero),
        cmocka_unit_test(test_trace_end_cut_short_is_zero),
        cmocka_unit_test(test_trace_end_bad_checksum_is_no_end),
        cmocka_unit_test(test_trace_end_missing_file_is_an_error),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
