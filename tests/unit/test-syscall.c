/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for src/format/syscall.c: numbers and names from the Linux
 * system call tables (arch/x86/entry/syscalls/syscall_64.tbl,
 * include/uapi/asm-generic/unistd.h, arch/arm/tools/syscall.tbl),
 * including the ends of each table, gaps and per-arch additions.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "qtrace/syscall.h"

struct fact {
    int64_t num;
    const char *name;               /* NULL: no such call */
};

static void check(const char *arch, const struct fact *f, size_t n)
{
    const struct qtrace_syscall_table *t = qtrace_syscall_table_find(arch);
    size_t i;

    assert_non_null(t);
    for (i = 0; i < n; i++) {
        const char *got = qtrace_syscall_name(t, f[i].num);

        if (f[i].name) {
            assert_non_null(got);
            assert_string_equal(got, f[i].name);
        } else {
            assert_null(got);
        }
    }
}

#define CHECK(arch, facts) check(arch, facts, sizeof(facts) / sizeof(facts[0]))

static void test_syscall_x86_64_names(void **state)
{
    static const struct fact f[] = {
        { 0, "read" }, { 1, "write" }, { 2, "open" }, { 39, "getpid" },
        { 56, "clone" }, { 59, "execve" }, { 60, "exit" },
        { 158, "arch_prctl" }, { 231, "exit_group" }, { 257, "openat" },
        { 262, "newfstatat" }, { 302, "prlimit64" }, { 318, "getrandom" },
        { 334, "rseq" }, { 335, NULL }, { 423, NULL },
        { 424, "pidfd_send_signal" }, { 435, "clone3" }, { 462, "mseal" },
        { -1, NULL }, { 100000, NULL },
    };

    (void)state;
    CHECK("x86_64", f);
}

static void test_syscall_generic_names(void **state)
{
    static const struct fact f[] = {
        { 0, "io_setup" }, { 17, "getcwd" }, { 29, "ioctl" },
        { 38, "renameat" }, { 56, "openat" }, { 57, "close" },
        { 62, "lseek" }, { 63, "read" }, { 64, "write" },
        { 79, "newfstatat" }, { 93, "exit" }, { 94, "exit_group" },
        { 160, "uname" }, { 172, "getpid" }, { 214, "brk" },
        { 220, "clone" }, { 221, "execve" }, { 222, "mmap" },
        { 261, "prlimit64" }, { 278, "getrandom" }, { 293, "rseq" },
        { 435, "clone3" }, { 1024, NULL },
    };
    static const struct fact riscv[] = {
        { 258, "riscv_hwprobe" }, { 259, "riscv_flush_icache" },
        { 64, "write" },
    };

    (void)state;
    CHECK("aarch64", f);
    CHECK("riscv64", f);
    CHECK("riscv64", riscv);
}

static void test_syscall_arm_eabi_names(void **state)
{
    static const struct fact f[] = {
        { 0, "restart_syscall" }, { 1, "exit" }, { 3, "read" },
        { 4, "write" }, { 5, "open" }, { 6, "close" }, { 7, NULL },
        { 20, "getpid" }, { 24, "getuid" }, { 45, "brk" },
        { 191, "ugetrlimit" }, { 192, "mmap2" }, { 248, "exit_group" },
        { 322, "openat" }, { 384, "getrandom" }, { 398, "rseq" },
        { 435, "clone3" }, { 0x0f0002, "cacheflush" },
        { 0x0f0005, "set_tls" }, { 0x0f0007, NULL },
    };

    (void)state;
    CHECK("arm", f);
}

static void test_syscall_unknown_arch_has_no_table(void **state)
{
    (void)state;
    assert_null(qtrace_syscall_table_find("mips"));
    assert_null(qtrace_syscall_table_find(NULL));
    assert_null(qtrace_syscall_name(NULL, 1));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_syscall_x86_64_names),
        cmocka_unit_test(test_syscall_generic_names),
        cmocka_unit_test(test_syscall_arm_eabi_names),
        cmocka_unit_test(test_syscall_unknown_arch_has_no_table),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
