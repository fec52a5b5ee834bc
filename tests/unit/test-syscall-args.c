/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for src/cli/syscall-args.c: the argument counts of calls
 * from their prototypes (write(fd, buf, count): 3), the calls whose
 * 64-bit arguments take two registers on a 32-bit ABI, and every name
 * of the x86_64, aarch64 and arm tables found (a table out of order
 * would lose some to the binary search).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "qtrace/syscall.h"
#include "syscall-args.h"

static void test_syscall_args_prototypes_counted(void **state)
{
    (void)state;
    assert_int_equal(syscall_args_count("getpid", 64), 0);
    assert_int_equal(syscall_args_count("exit_group", 64), 1);
    assert_int_equal(syscall_args_count("write", 64), 3);
    assert_int_equal(syscall_args_count("openat", 64), 4);
    assert_int_equal(syscall_args_count("mmap", 64), 6);
    assert_int_equal(syscall_args_count("_llseek", 32), 5);
    assert_int_equal(syscall_args_count("accept", 64), 3);
    assert_int_equal(syscall_args_count("writev", 64), 3);
}

static void test_syscall_args_wide_arguments_on_32_bits(void **state)
{
    (void)state;
    /* pread64(fd, buf, count, [pad], off_lo, off_hi) on arm EABI. */
    assert_int_equal(syscall_args_count("pread64", 64), 4);
    assert_int_equal(syscall_args_count("pread64", 32), 6);
    assert_int_equal(syscall_args_count("ftruncate64", 32), 4);
    assert_int_equal(syscall_args_count("write", 32), 3);
}

static void test_syscall_args_unknown_is_every_register(void **state)
{
    (void)state;
    assert_int_equal(syscall_args_count("no_such_call", 64), 6);
    assert_int_equal(syscall_args_count(NULL, 64), 6);
    assert_int_equal(syscall_args_count("tuxcall", 64), 6);
}

/* Calls with no argument, in each table: found, so counted 0. */
static void test_syscall_args_every_table_name_found(void **state)
{
    static const char *const arches[] = { "x86_64", "aarch64", "arm" };
    size_t a;
    int64_t num;
    unsigned int found = 0;

    (void)state;
    for (a = 0; a < sizeof(arches) / sizeof(arches[0]); a++) {
        const struct qtrace_syscall_table *t =
            qtrace_syscall_table_find(arches[a]);

        assert_non_null(t);
        for (num = 0; num < 500; num++) {
            const char *name = qtrace_syscall_name(t, num);

            if (name && syscall_args_count(name, 64) < 6) {
                found++;
            }
        }
    }
    /* Nearly every call takes fewer than six: most names were found. */
    assert_true(found > 3 * 250);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_syscall_args_prototypes_counted),
        cmocka_unit_test(test_syscall_args_wide_arguments_on_32_bits),
        cmocka_unit_test(test_syscall_args_unknown_is_every_register),
        cmocka_unit_test(test_syscall_args_every_table_name_found),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
