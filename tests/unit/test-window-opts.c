/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests of the window options' values (src/plugin/window/
 * window-opts.c): start-at= as a count, an address, a symbol or the
 * marker; stop-at= and snapshot-at= without counts; stop-after= as a
 * count of at least 1; the refusals, which leave the spec as it was.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "window/window.h"

static void test_window_opts_start_count(void **state)
{
    struct window_spec spec = { .has_stop_after = false };
    struct qtrace_err err = { "" };

    (void)state;
    assert_false(window_is_set(&spec));
    assert_int_equal(window_parse_start(&spec, "300000", &err), 0);
    assert_true(window_is_set(&spec));
    assert_int_equal(spec.start.how, WHEN_COUNT);
    assert_int_equal(spec.start.count, 300000);
    assert_null(spec.start.sym);
    /* Decimal, not octal: a leading zero is no base prefix. */
    assert_int_equal(window_parse_start(&spec, "010", &err), 0);
    assert_int_equal(spec.start.count, 10);
    window_spec_fini(&spec);
}

static void test_window_opts_start_address_symbol_marker(void **state)
{
    struct window_spec spec = { .has_stop_after = false };
    struct qtrace_err err = { "" };

    (void)state;
    assert_int_equal(window_parse_start(&spec, "0xffff0009", &err), 0);
    assert_int_equal(spec.start.how, WHEN_ADDR);
    assert_int_equal(spec.start.addr, 0xffff0009u);
    assert_null(spec.start.sym);
    assert_int_equal(window_parse_start(&spec, "_start.cold", &err), 0);
    assert_int_equal(spec.start.how, WHEN_SYMBOL);
    assert_string_equal(spec.start.sym, "_start.cold");
    assert_int_equal(window_parse_start(&spec, "marker", &err), 0);
    assert_int_equal(spec.start.how, WHEN_MARKER);
    assert_null(spec.start.sym);
    /* Not the marker: a symbol that starts like it. */
    assert_int_equal(window_parse_start(&spec, "markers", &err), 0);
    assert_int_equal(spec.start.how, WHEN_SYMBOL);
    /* A later count replaces the symbol. */
    assert_int_equal(window_parse_start(&spec, "5", &err), 0);
    assert_null(spec.start.sym);
    window_spec_fini(&spec);
}

static void test_window_opts_bad_start_refused(void **state)
{
    static const char *const bad[] = {
        "", "12ab", "0x", "0xfoo", "-3", "+3", "a b", "1e6", "main()",
        "99999999999999999999999",
    };
    struct window_spec spec = { .has_stop_after = false };
    size_t i;

    (void)state;
    for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        struct qtrace_err err = { "" };

        assert_int_equal(window_parse_start(&spec, bad[i], &err), -EINVAL);
        assert_string_equal(err.msg, "expected a count, 0xADDRESS, a "
                            "symbol or marker");
        assert_int_equal(spec.start.how, WHEN_NONE);
    }
    window_spec_fini(&spec);
}

static void test_window_opts_stop_at_and_snapshot_at(void **state)
{
    struct window_spec spec = { .has_stop_after = false };
    struct qtrace_err err = { "" };

    (void)state;
    assert_int_equal(window_parse_stop_at(&spec, "exit", &err), 0);
    assert_int_equal(spec.stop.how, WHEN_SYMBOL);
    assert_string_equal(spec.stop.sym, "exit");
    assert_int_equal(window_parse_snapshot_at(&spec, "0x4000", &err), 0);
    assert_int_equal(spec.snap.how, WHEN_ADDR);
    assert_int_equal(spec.snap.addr, 0x4000);
    assert_int_equal(window_parse_snapshot_at(&spec, "marker", &err), 0);
    assert_int_equal(spec.snap.how, WHEN_MARKER);
    /* No count: an instruction count stops with stop-after=. */
    assert_int_equal(window_parse_stop_at(&spec, "1000", &err), -EINVAL);
    assert_string_equal(err.msg, "expected 0xADDRESS, a symbol or marker");
    assert_int_equal(spec.stop.how, WHEN_SYMBOL);
    assert_int_equal(window_parse_snapshot_at(&spec, "", &err), -EINVAL);
    assert_int_equal(spec.snap.how, WHEN_MARKER);
    assert_true(window_is_set(&spec));
    window_spec_fini(&spec);
    assert_null(spec.stop.sym);
    assert_int_equal(spec.stop.how, WHEN_NONE);
}

static void test_window_opts_stop_after(void **state)
{
    static const char *const bad[] = { "0", "", "-1", "1k", "0x10", " 5" };
    struct window_spec spec = { .has_stop_after = false };
    struct qtrace_err err = { "" };
    size_t i;

    (void)state;
    assert_int_equal(window_parse_stop(&spec, "1", &err), 0);
    assert_true(spec.has_stop_after);
    assert_true(window_is_set(&spec));
    assert_int_equal(spec.stop_after, 1);
    for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        assert_int_equal(window_parse_stop(&spec, bad[i], &err), -EINVAL);
        assert_string_equal(err.msg,
                            "expected a count of instructions (1 or more)");
    }
    assert_int_equal(spec.stop_after, 1);
    window_spec_fini(&spec);
}

static void test_window_opts_when_fmt(void **state)
{
    struct window_spec spec = { .has_stop_after = false };
    struct qtrace_err err = { "" };
    char buf[64];

    (void)state;
    window_when_fmt(&spec.start, buf, sizeof(buf));
    assert_string_equal(buf, "none");
    assert_int_equal(window_parse_start(&spec, "0x40", &err), 0);
    window_when_fmt(&spec.start, buf, sizeof(buf));
    assert_string_equal(buf, "0x40");
    assert_int_equal(window_parse_stop_at(&spec, "marker", &err), 0);
    window_when_fmt(&spec.stop, buf, sizeof(buf));
    assert_string_equal(buf, "marker");
    window_spec_fini(&spec);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_window_opts_start_count),
        cmocka_unit_test(test_window_opts_start_address_symbol_marker),
        cmocka_unit_test(test_window_opts_bad_start_refused),
        cmocka_unit_test(test_window_opts_stop_at_and_snapshot_at),
        cmocka_unit_test(test_window_opts_stop_after),
        cmocka_unit_test(test_window_opts_when_fmt),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
