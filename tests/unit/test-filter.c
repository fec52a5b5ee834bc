/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests of address ranges and instruction filters
 * (src/plugin/filter.c), including range edges and parse errors.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "filter.h"

static void test_filter_no_range_selects_everything(void **state)
{
    struct filter f;

    (void)state;
    filter_init(&f);
    assert_true(filter_pc_in_range(&f, 0));
    assert_true(filter_pc_in_range(&f, UINT64_MAX));
    assert_true(filter_insn_selected(&f, 0x1234, NULL));
    filter_fini(&f);
}

static void test_filter_range_is_half_open(void **state)
{
    struct filter f;
    struct qtrace_err err;

    (void)state;
    filter_init(&f);
    assert_int_equal(filter_add_range(&f, "0x1000-0x1010", &err), 0);
    assert_false(filter_pc_in_range(&f, 0xfff));
    assert_true(filter_pc_in_range(&f, 0x1000));
    assert_true(filter_pc_in_range(&f, 0x100f));
    assert_false(filter_pc_in_range(&f, 0x1010));
    filter_fini(&f);
}

static void test_filter_bad_ranges_are_refused(void **state)
{
    struct filter f;
    struct qtrace_err err;

    (void)state;
    filter_init(&f);
    assert_int_equal(filter_add_range(&f, "0x10-0x10", &err), -EINVAL);
    assert_non_null(strstr(err.msg, "empty range"));
    assert_int_equal(filter_add_range(&f, "0x10", &err), -EINVAL);
    assert_int_equal(filter_add_range(&f, "-0x10", &err), -EINVAL);
    assert_int_equal(filter_add_range(&f, "0x10-zz", &err), -EINVAL);
    assert_int_equal(filter_add_range(&f, "0x10-0x20junk", &err), -EINVAL);
    assert_int_equal(f.n_ranges, 0);
    filter_fini(&f);
}

static void test_filter_addr_or_prefix_selects(void **state)
{
    struct filter f;
    struct qtrace_err err;

    (void)state;
    filter_init(&f);
    assert_int_equal(filter_add_iprefix(&f, "ldr", &err), 0);
    assert_int_equal(filter_add_addr(&f, "0x400010", &err), 0);
    assert_true(filter_has_insn_filters(&f));
    assert_true(filter_insn_selected(&f, 0x1, "ldr w3, [x1]"));
    assert_true(filter_insn_selected(&f, 0x1, "ldrb w3, [x1]"));
    assert_false(filter_insn_selected(&f, 0x1, "str w0, [x1, #8]"));
    assert_true(filter_insn_selected(&f, 0x400010, "add w0, w0, w3"));
    assert_false(filter_insn_selected(&f, 0x400014, NULL));
    filter_fini(&f);
}

static void test_filter_parse_u64_rejects_partial_numbers(void **state)
{
    uint64_t v;

    (void)state;
    assert_int_equal(filter_parse_u64("0x10", &v), 0);
    assert_int_equal(v, 16);
    assert_int_equal(filter_parse_u64("10", &v), 0);
    assert_int_equal(v, 10);
    assert_int_equal(filter_parse_u64("", &v), -EINVAL);
    assert_int_equal(filter_parse_u64("12abc", &v), -EINVAL);
    assert_int_equal(filter_parse_u64("-1", &v), -EINVAL);
    assert_int_equal(filter_parse_u64("0x1ffffffffffffffff", &v), -EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_filter_no_range_selects_everything),
        cmocka_unit_test(test_filter_range_is_half_open),
        cmocka_unit_test(test_filter_bad_ranges_are_refused),
        cmocka_unit_test(test_filter_addr_or_prefix_selects),
        cmocka_unit_test(test_filter_parse_u64_rejects_partial_numbers),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
