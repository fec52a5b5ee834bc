/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for src/plugin/devname.h: which QEMU versions may be asked
 * for device names, and the names recorded (QEMU's, or an address-derived
 * one for the regions QEMU names after a host pointer).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "devname.h"

static void test_versions(void **state)
{
    (void)state;
    /* The strings qc_qemu_version gives: Debian's 7.2 and 10.0. */
    assert_false(devname_qemu_safe("7.2.22 (Debian 1:7.2+dfsg-7+deb12u18)"));
    assert_true(devname_qemu_safe("10.0.2 (Debian 1:10.0.2+ds-2~bpo12+1)"));
    assert_false(devname_qemu_safe("8.0.4"));
    assert_false(devname_qemu_safe("8.1.5"));
    assert_true(devname_qemu_safe("8.2.0"));
    assert_true(devname_qemu_safe("9.0.0"));
    assert_true(devname_qemu_safe("11.0"));
    /* Unreadable: assumed unsafe. */
    assert_false(devname_qemu_safe("unknown"));
    assert_false(devname_qemu_safe(""));
    assert_false(devname_qemu_safe("10"));
    assert_false(devname_qemu_safe("10."));
    assert_false(devname_qemu_safe(NULL));
}

static void check(const char *qemu_name, uint64_t paddr, const char *want)
{
    char buf[64];
    size_t n = devname_format(qemu_name, paddr, buf, sizeof(buf));

    assert_string_equal(buf, want);
    assert_int_equal(n, strlen(want));
}

static void test_names(void **state)
{
    (void)state;
    /* A named region keeps QEMU's name, wherever it is accessed. */
    check("hpet", 0xfed000f0, "hpet");
    check("apic-msi", 0xfee000b0, "apic-msi");
    check("unassigned", 0x12345678, "unassigned");
    /* An unnamed one: the accessed page, not the host pointer. */
    check("anonb2798e20", 0xfed000f0, "anon@0xfed00000");
    check("anon00000000", 0x100000fff, "anon@0x100000000");
    /* Only "anon" and exactly eight lowercase hex digits are pointers. */
    check("anon", 0x1000, "anon");
    check("anonb2798e2", 0x1000, "anonb2798e2");
    check("anonb2798e200", 0x1000, "anonb2798e200");
    check("anonB2798E20", 0x1000, "anonB2798E20");
    check("anonymous-rom", 0x1000, "anonymous-rom");
    /* No name: nothing recorded. */
    check("", 0x1000, "");
    check(NULL, 0x1000, "");
}

static void test_truncation(void **state)
{
    char buf[8];

    (void)state;
    assert_int_equal(devname_format("virtio-pci-common", 0, buf, sizeof(buf)),
                     7);
    assert_string_equal(buf, "virtio-");
    assert_int_equal(devname_format("anonb2798e20", 0xfed00000, buf,
                                    sizeof(buf)), 7);
    assert_string_equal(buf, "anon@0x");
    assert_int_equal(devname_format("hpet", 0, buf, 1), 0);
    assert_string_equal(buf, "");
    assert_int_equal(devname_format("hpet", 0, buf, 0), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_versions),
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_truncation),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
