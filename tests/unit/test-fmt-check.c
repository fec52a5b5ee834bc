/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests of src/tracetool/fmt-check.c: formats that a C compiler
 * takes for the declared types pass, the others fail with the reason.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "fmt-check.h"

/* Parse one event and check its format; returns the check's result. */
static int check(const char *line, enum fmt_check_mode mode,
                 struct qtrace_err *err)
{
    struct qtrace_catalog cat;
    int ret;

    if (qtrace_catalog_parse(&cat, line, err) != 0) {
        fail_msg("parse failed: %s", err->msg);
    }
    ret = fmt_check_event(qtrace_catalog_get(&cat, 1), mode, err);
    qtrace_catalog_fini(&cat);
    return ret;
}

static void test_fmt_check_fitting_formats_pass(void **state)
{
    static const char *const good[] = {
        "e(size_t n, long l, unsigned long u) \"%zu %ld %lu\"",
        "e(const void *p, void *q, const char *s) \"%p %p %s\"",
        "e(char c, uint8_t b, int16_t h) \"%c %hhu %hd\"",
        "e(int64_t a, uint64_t b) \"%\" PRId64 \" 0x%\" PRIx64",
        "e(int a) \"100%% a %-08d\"",
        "e(bool b, unsigned u) \"%d %x\"",
        "vcpu e(uint32_t n) \"n %u\"",
        "e(void) \"no conversion\"",
    };
    struct qtrace_err err;
    size_t i;

    (void)state;
    for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
        if (check(good[i], FMT_CHECK_PROGRAM, &err) != 0) {
            fail_msg("'%s' refused: %s", good[i], err.msg);
        }
    }
}

static void test_fmt_check_misfits_fail_with_reason(void **state)
{
    static const struct {
        const char *line;
        const char *reason;
    } bad[] = {
        { "e(int a) \"%s\"", "%s needs a 'const char *' argument" },
        { "e(const char *s) \"%d\"", "integer conversion for a string" },
        { "e(uint64_t v) \"%u\"", "64-bit argument needs" },
        { "e(uint32_t v) \"%lu\"", "narrower than 64 bits" },
        { "e(int a) \"%*d\"", "'*' width or precision" },
        { "e(int a) \"%f\"", "floating-point conversion" },
        { "e(int a) \"%d%n\"", "more conversions than arguments" },
        { "e(int a, int b) \"%d\"", "no conversion for argument 'b'" },
        { "e(int a) \"%d %m\"", "'%m' is not allowed" },
        { "e(int a) \"%d\\n\"", "must not end with a newline" },
        { "e(int a) \"%d %\"", "format ends inside a conversion" },
    };
    struct qtrace_err err;
    size_t i;

    (void)state;
    for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        if (check(bad[i].line, FMT_CHECK_PROGRAM, &err) != -EINVAL ||
            !strstr(err.msg, bad[i].reason)) {
            fail_msg("'%s': got '%s', wanted '%s'", bad[i].line, err.msg,
                     bad[i].reason);
        }
    }
}

/* The plugin's records: byte arrays have no conversion, others may lack. */
static void test_fmt_check_records_mode_skips_bytes(void **state)
{
    struct qtrace_err err;

    (void)state;
    assert_int_equal(check("e(uint32_t a, const uint8_t *code, uint32_t b)"
                           " \"%u %u\"", FMT_CHECK_RECORDS, &err), 0);
    assert_int_equal(check("e(uint32_t a, bool f) \"%u\"",
                           FMT_CHECK_RECORDS, &err), 0);
    assert_int_equal(check("e(const uint8_t *code) \"%p\"",
                           FMT_CHECK_RECORDS, &err), -EINVAL);
    assert_int_equal(check("e(const uint8_t *code) \"%p\"",
                           FMT_CHECK_PROGRAM, &err), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fmt_check_fitting_formats_pass),
        cmocka_unit_test(test_fmt_check_misfits_fail_with_reason),
        cmocka_unit_test(test_fmt_check_records_mode_skips_bytes),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
