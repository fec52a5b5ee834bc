/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests of the window options' values (src/plugin/window-opts.c):
 * start-at= as a count, an address or a symbol, stop-after= as a count
 * of at least 1, and the refusals.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "window.h"

static void test_window_opts_start_count(void **state)
{
    struct window_spec spec = { .has_start = false };
    struct qtrace_err err = { "" };

    (void)state;
    assert_int_equal(window_parse_start(&spec, "300000", &err), 0);
    assert_true(spec.has_start);
    assert_true(spec.start_is_count);
    assert_int_equal(spec.start_count, 300000);
    assert_null(spec.start_sym);
    /* Decimal, not octal: a leading zero is no base prefix. */
    assert_int_equal(window_parse_start(&spec, "010", &err), 0);
    assert_int_equal(spec.start_count, 10);
    window_spec_fini(&spec);
}

static void test_window_opts_start_address_and_symbol(void **state)
{
    struct window_spec spec = { .has_start = false };
    struct qtrace_err err = { "" };

    (void)state;
    assert_int_equal(window_parse_start(&spec, "0xffff0009", &err), 0);
    assert_false(spec.start_is_count);
    assert_int_equal(spec.start_addr, 0xffff0009u);
    assert_null(spec.start_sym);
    assert_int_equal(window_parse_start(&spec, "_start.cold", &err), 0);
    assert_false(spec.start_is_count);
    assert_string_equal(spec.start_sym, "_start.cold");
    /* A later count replaces the symbol. */
    assert_int_equal(window_parse_start(&spec, "5", &err), 0);
    assert_null(spec.start_sym);
    window_spec_fini(&spec);
}

static void test_window_opts_bad_start_refused(void **state)
{
    static const char *const bad[] = {
        "", "12ab", "0x", "0xfoo", "-3", "+3", "a b", "1e6", "main()",
        "99999999999999999999999",
    };
    struct window_spec spec = { .has_start = false };
    size_t i;

    (void)state;
    for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        struct qtrace_err err = { "" };

        assert_int_equal(window_parse_start(&spec, bad[i], &err), -EINVAL);
        assert_string_equal(err.msg,
                            "expected a count, 0xADDRESS or a symbol");
        assert_false(spec.has_start);
    }
    window_spec_fini(&spec);
}

static void test_window_opts_stop_after(void **state)
{
    static const char *const bad[] = { "0", "", "-1", "1k", "0x10", " 5" };
    struct window_spec spec = { .has_start = false };
    struct qtrace_err err = { "" };
    size_t i;

    (void)state;
    assert_int_equal(window_parse_stop(&spec, "1", &err), 0);
    assert_true(spec.has_stop);
    assert_int_equal(spec.stop_after, 1);
    for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        assert_int_equal(window_parse_stop(&spec, bad[i], &err), -EINVAL);
        assert_string_equal(err.msg,
                            "expected a count of instructions (1 or more)");
    }
    assert_int_equal(spec.stop_after, 1);
    window_spec_fini(&spec);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_window_opts_start_count),
        cmocka_unit_test(test_window_opts_start_address_and_symbol),
        cmocka_unit_test(test_window_opts_bad_start_refused),
        cmocka_unit_test(test_window_opts_stop_after),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
