/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Device names of I/O accesses (see devname.h).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "devname.h"

#define PAGE_MASK (~(uint64_t)0xfff)

bool devname_qemu_safe(const char *version)
{
    char *end;
    long major, minor;

    if (!version) {
        return false;
    }
    major = strtol(version, &end, 10);
    if (end == version || *end != '.') {
        return false;
    }
    version = end + 1;
    minor = strtol(version, &end, 10);
    if (end == version) {
        return false;
    }
    return major > 8 || (major == 8 && minor >= 2);
}

/* QEMU's name of an unnamed region: "anon" and 8 lowercase hex digits. */
static bool is_host_pointer_name(const char *name)
{
    size_t i;

    if (strncmp(name, "anon", 4) != 0 || strlen(name) != 12) {
        return false;
    }
    for (i = 4; i < 12; i++) {
        if (!strchr("0123456789abcdef", name[i])) {
            return false;
        }
    }
    return true;
}

size_t devname_format(const char *qemu_name, uint64_t paddr, char *buf,
                      size_t len)
{
    int n;

    if (len == 0) {
        return 0;
    }
    if (!qemu_name || !qemu_name[0]) {
        buf[0] = '\0';
        return 0;
    }
    if (is_host_pointer_name(qemu_name)) {
        n = snprintf(buf, len, "anon@0x%" PRIx64, paddr & PAGE_MASK);
    } else {
        n = snprintf(buf, len, "%s", qemu_name);
    }
    if (n < 0) {
        buf[0] = '\0';
        return 0;
    }
    return (size_t)n < len ? (size_t)n : len - 1;
}
