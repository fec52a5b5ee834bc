/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for src/format/clockmap.c: where records fall between host
 * clock stamps (docs/format.md, "Timeline"), worked out by hand: inside
 * a segment in proportion to the instruction count, before and after
 * the stamps, on either side of a pause at one count, and stamps that
 * go back raised.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "clockmap.h"

/* Two plain stamps: 100 instructions in 1000 ns, from ns 1000. */
static void test_clockmap_at_interpolates_by_instructions(void **state)
{
    struct clock_stamp st[] = { { 100, 1000, 1000 }, { 200, 2000, 2000 } };

    (void)state;
    assert_int_equal(clockmap_at(st, 2, 1, 100), 1000);
    assert_int_equal(clockmap_at(st, 2, 1, 150), 1500);
    assert_int_equal(clockmap_at(st, 2, 1, 199), 1990);
    assert_int_equal(clockmap_at(st, 2, 1, 200), 2000);
}

/* A count outside the segment is held at its end. */
static void test_clockmap_at_clamps_to_the_segment(void **state)
{
    struct clock_stamp st[] = { { 100, 1000, 1000 }, { 200, 2000, 2000 } };

    (void)state;
    assert_int_equal(clockmap_at(st, 2, 1, 10), 1000);
    assert_int_equal(clockmap_at(st, 2, 1, 500), 2000);
}

/* Before the first stamp its stop; after the last, its resume. */
static void test_clockmap_at_outside_the_stamps(void **state)
{
    struct clock_stamp st[] = { { 100, 1000, 1200 }, { 200, 2000, 2500 } };

    (void)state;
    assert_int_equal(clockmap_at(st, 2, 0, 150), 1000);
    assert_int_equal(clockmap_at(st, 2, 2, 150), 2500);
    assert_int_equal(clockmap_at(st, 1, 1, 999), 1200);
}

/*
 * A pause at count 200 from 3000 to 5000: a record at 200 before the
 * stamp (the system call) is at 3000, one after it (its return) at 5000,
 * and the segments on either side ignore the pause.
 */
static void test_clockmap_at_pause_splits_one_count(void **state)
{
    struct clock_stamp st[] = {
        { 100, 1000, 1000 }, { 200, 3000, 5000 }, { 300, 6000, 6000 },
    };

    (void)state;
    assert_int_equal(clockmap_at(st, 3, 1, 200), 3000);
    assert_int_equal(clockmap_at(st, 3, 2, 200), 5000);
    assert_int_equal(clockmap_at(st, 3, 1, 150), 2000);
    assert_int_equal(clockmap_at(st, 3, 2, 250), 5500);
}

/* No instruction between two stamps: the first one's resume. */
static void test_clockmap_at_same_count_takes_resume(void **state)
{
    struct clock_stamp st[] = { { 100, 1000, 1100 }, { 100, 1500, 1500 } };

    (void)state;
    assert_int_equal(clockmap_at(st, 2, 1, 100), 1100);
}

/* Stamps that go back (a damaged trace) are raised in order. */
static void test_clockmap_clamp_raises_what_goes_back(void **state)
{
    struct clock_stamp st[] = {
        { 100, 1000, 2000 }, { 90, 1500, 1400 }, { 300, 3000, 2900 },
    };

    (void)state;
    clockmap_clamp(st, 3);
    assert_int_equal(st[1].time, 100);
    assert_int_equal(st[1].ns, 2000);
    assert_int_equal(st[1].resume, 2000);
    assert_int_equal(st[2].time, 300);
    assert_int_equal(st[2].ns, 3000);
    assert_int_equal(st[2].resume, 3000);
    assert_int_equal(clockmap_at(st, 3, 1, 95), 2000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_clockmap_at_interpolates_by_instructions),
        cmocka_unit_test(test_clockmap_at_clamps_to_the_segment),
        cmocka_unit_test(test_clockmap_at_outside_the_stamps),
        cmocka_unit_test(test_clockmap_at_pause_splits_one_count),
        cmocka_unit_test(test_clockmap_at_same_count_takes_resume),
        cmocka_unit_test(test_clockmap_clamp_raises_what_goes_back),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
