/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for the ELF header reader of the image map: small ELF files
 * built here, field by field (64-bit little-endian and 32-bit big-endian),
 * with known entry, segments and interpreter; and files that are not ELF.
 */
#include <elf.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "elf-load.h"

static const char interp[] = "/lib/ld-test.so.1";

static void put(uint8_t *p, uint64_t v, unsigned int size, bool big)
{
    unsigned int i;

    for (i = 0; i < size; i++) {
        p[big ? size - 1 - i : i] = (uint8_t)(v >> (8 * i));
    }
}

/*
 * An ET_DYN file: entry 0x1040, PT_INTERP, then two PT_LOADs: r-x at
 * vaddr 0 (offset 0, 0x1200 bytes) and rw- at vaddr 0x2e10 (offset
 * 0x1e10, filesz 0x100, memsz 0x300).
 */
static size_t build_elf(uint8_t *f, bool is64, bool big)
{
    unsigned int phoff = is64 ? 64 : 52, phsz = is64 ? 56 : 32;
    unsigned int interp_off = phoff + 3 * phsz;
    static const uint64_t load[2][5] = {
        /* vaddr, offset, filesz, memsz, flags */
        { 0, 0, 0x1200, 0x1200, PF_R | PF_X },
        { 0x2e10, 0x1e10, 0x100, 0x300, PF_R | PF_W },
    };
    uint8_t *ph;
    unsigned int i;

    memset(f, 0, 512);
    memcpy(f, ELFMAG, SELFMAG);
    f[EI_CLASS] = is64 ? ELFCLASS64 : ELFCLASS32;
    f[EI_DATA] = big ? ELFDATA2MSB : ELFDATA2LSB;
    f[EI_VERSION] = EV_CURRENT;
    put(f + 16, ET_DYN, 2, big);
    put(f + 24, 0x1040, is64 ? 8 : 4, big);
    put(f + (is64 ? 32 : 28), phoff, is64 ? 8 : 4, big);
    put(f + (is64 ? 54 : 42), phsz, 2, big);
    put(f + (is64 ? 56 : 44), 3, 2, big);
    ph = f + phoff;
    put(ph, PT_INTERP, 4, big);
    put(ph + (is64 ? 8 : 4), interp_off, is64 ? 8 : 4, big);
    put(ph + (is64 ? 32 : 16), sizeof(interp), is64 ? 8 : 4, big);
    for (i = 0; i < 2; i++) {
        ph = f + phoff + (i + 1) * phsz;
        put(ph, PT_LOAD, 4, big);
        if (is64) {
            put(ph + 4, load[i][4], 4, big);
            put(ph + 8, load[i][1], 8, big);
            put(ph + 16, load[i][0], 8, big);
            put(ph + 32, load[i][2], 8, big);
            put(ph + 40, load[i][3], 8, big);
        } else {
            put(ph + 4, load[i][1], 4, big);
            put(ph + 8, load[i][0], 4, big);
            put(ph + 16, load[i][2], 4, big);
            put(ph + 20, load[i][3], 4, big);
            put(ph + 24, load[i][4], 4, big);
        }
    }
    memcpy(f + interp_off, interp, sizeof(interp));
    return interp_off + sizeof(interp);
}

/* Write len bytes to a new temporary file; its path goes into path. */
static void write_tmp(char *path, const uint8_t *data, size_t len)
{
    const char *dir = getenv("TMPDIR");
    int fd;

    snprintf(path, 256, "%s/test-elf-load-XXXXXX", dir ? dir : "/tmp");
    fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, data, len), (ssize_t)len);
    close(fd);
}

static void check_parsed(bool is64, bool big)
{
    uint8_t file[512];
    char path[256];
    struct elf_load el;
    struct qtrace_err err = { "" };

    write_tmp(path, file, build_elf(file, is64, big));
    assert_int_equal(elf_load_read(path, &el, &err), 0);
    unlink(path);
    assert_true(el.is_dyn);
    assert_int_equal(el.entry, 0x1040);
    assert_string_equal(el.interp, interp);
    assert_int_equal(el.n_segs, 2);
    assert_int_equal(el.segs[0].vaddr, 0);
    assert_int_equal(el.segs[0].memsz, 0x1200);
    assert_int_equal(el.segs[0].flags, PF_R | PF_X);
    assert_int_equal(el.segs[1].vaddr, 0x2e10);
    assert_int_equal(el.segs[1].offset, 0x1e10);
    assert_int_equal(el.segs[1].memsz, 0x300);
    assert_int_equal(el.segs[1].flags, PF_R | PF_W);
}

static void test_elf_load_64_le_segments_and_interp(void **state)
{
    (void)state;
    check_parsed(true, false);
}

static void test_elf_load_32_be_segments_and_interp(void **state)
{
    (void)state;
    check_parsed(false, true);
}

static void test_elf_load_not_elf_fails(void **state)
{
    static const uint8_t text[] = "#!/bin/sh\necho not an ELF file\n";
    char path[256];
    struct elf_load el;
    struct qtrace_err err = { "" };

    (void)state;
    write_tmp(path, text, sizeof(text));
    assert_int_equal(elf_load_read(path, &el, &err), -ENOEXEC);
    unlink(path);
    assert_non_null(strstr(err.msg, "not an ELF file"));
}

static void test_elf_load_truncated_headers_fail(void **state)
{
    uint8_t file[512];
    char path[256];
    struct elf_load el;
    struct qtrace_err err = { "" };

    (void)state;
    build_elf(file, true, false);
    write_tmp(path, file, 100);     /* program headers cut off */
    assert_int_equal(elf_load_read(path, &el, &err), -ENOEXEC);
    unlink(path);
    assert_non_null(strstr(err.msg, "program header"));
}

static void test_elf_load_missing_file_fails(void **state)
{
    struct elf_load el;
    struct qtrace_err err = { "" };

    (void)state;
    assert_int_equal(elf_load_read("/nonexistent/elf", &el, &err), -ENOENT);
    assert_non_null(strstr(err.msg, "/nonexistent/elf"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_elf_load_64_le_segments_and_interp),
        cmocka_unit_test(test_elf_load_32_be_segments_and_interp),
        cmocka_unit_test(test_elf_load_not_elf_fails),
        cmocka_unit_test(test_elf_load_truncated_headers_fail),
        cmocka_unit_test(test_elf_load_missing_file_fails),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
