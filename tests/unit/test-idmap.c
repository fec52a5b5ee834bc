/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for src/format/idmap.c and budget.c: ids as large as a file
 * may hold cost a slot each, the budget stops growth with its message,
 * sizes parse as documented.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "idmap.h"

static void test_idmap_far_ids_cost_a_slot_each(void **state)
{
    struct budget b = { .used = 0, .limit = 1 << 20 };
    struct idmap m;
    char why[160];
    uint64_t *v;
    uint32_t id;

    (void)state;
    idmap_init(&m, sizeof(uint64_t), &b);
    for (id = 0; id < 1000; id++) {
        v = idmap_put(&m, UINT32_MAX - id * 65537u, why, sizeof(why));
        assert_non_null(v);
        *v = id;
    }
    for (id = 0; id < 1000; id++) {
        v = idmap_get(&m, UINT32_MAX - id * 65537u);
        assert_non_null(v);
        assert_int_equal(*v, id);
    }
    assert_null(idmap_get(&m, 12345));
    /* 1000 ids at a load of at most a half: 2048 slots of 16 bytes. */
    assert_int_equal(b.used, 2048 * 16);
    idmap_fini(&m);
    assert_int_equal(b.used, 0);
}

static void test_idmap_budget_stops_growth(void **state)
{
    struct budget b = { .used = 0, .limit = 4096 };
    struct idmap m;
    char why[160] = "";
    uint32_t id;
    void *v = NULL;

    (void)state;
    idmap_init(&m, 8, &b);
    for (id = 1; id < 10000; id++) {
        v = idmap_put(&m, id * 7919u, why, sizeof(why));
        if (!v) {
            break;
        }
    }
    assert_null(v);
    assert_true(b.used <= b.limit);
    assert_string_equal(why, "the reader's memory limit of 4 KiB is reached "
                        "(QTRACE_READER_MEMORY_LIMIT=SIZE raises it)");
    /* What was put before stays. */
    assert_non_null(idmap_get(&m, 7919u));
    idmap_fini(&m);
}

static void test_budget_parse_sizes(void **state)
{
    uint64_t v;

    (void)state;
    assert_true(budget_parse_size("512M", &v));
    assert_int_equal(v, 512ull << 20);
    assert_true(budget_parse_size("4g", &v));
    assert_int_equal(v, 4ull << 30);
    assert_true(budget_parse_size("0", &v));
    assert_int_equal(v, 0);
    assert_true(budget_parse_size("1000", &v));
    assert_int_equal(v, 1000);
    assert_false(budget_parse_size("", &v));
    assert_false(budget_parse_size("lots", &v));
    assert_false(budget_parse_size("12MB", &v));
    assert_false(budget_parse_size("99999999999999999999", &v));
    assert_false(budget_parse_size("20000000000T", &v));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_idmap_far_ids_cost_a_slot_each),
        cmocka_unit_test(test_idmap_budget_stops_growth),
        cmocka_unit_test(test_budget_parse_sizes),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
