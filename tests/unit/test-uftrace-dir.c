/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for src/convert/uftrace-dir.c: the 16-byte record against
 * one taken from a real uftrace recording (trace-formats.md 1.3), and a
 * whole directory written from hand-picked entries and exits (one of them
 * unbalanced) and a fake ELF, read back byte by byte: the .dat records
 * decoded by the layout of trace-formats.md, info, task.txt, the map and
 * the symbol file compared with text written here.
 */
#include <errno.h>
#include <gelf.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "fake-elf.h"
#include "qtrace/symbols.h"
#include "uftrace-dir.h"

static char tmpdir[] = "/tmp/qtrace-test-uftrace.XXXXXX";

/* The whole file dir/name, NUL-terminated; *len its size. */
static char *slurp(const char *dir, const char *name, size_t *len)
{
    char path[600];
    char *buf;
    FILE *f;
    long n;

    snprintf(path, sizeof(path), "%s/%s", dir, name);
    f = fopen(path, "rb");
    if (!f) {
        fail_msg("%s: cannot open", path);
    }
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    fseek(f, 0, SEEK_SET);
    buf = calloc(1, (size_t)n + 1);
    assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    *len = (size_t)n;
    return buf;
}

static uint64_t le64(const uint8_t *p)
{
    uint64_t v = 0;
    int i;

    for (i = 7; i >= 0; i--) {
        v = v << 8 | p[i];
    }
    return v;
}

/* A real ENTRY record: time 0x34f2ee0c29, depth 2, addr 0x55d994cb51d7. */
static void test_uftrace_dir_record_matches_uftrace(void **state)
{
    static const uint8_t real[16] = {
        0x29, 0x0c, 0xee, 0xf2, 0x34, 0x00, 0x00, 0x00,
        0xa8, 0x00, 0xd7, 0x51, 0xcb, 0x94, 0xd9, 0x55,
    };
    uint8_t rec[16];

    (void)state;
    uftrace_dir_fmt_record(rec, 0x34f2ee0c29, false, 2, 0x55d994cb51d7);
    assert_memory_equal(rec, real, 16);
    /* Exit is type 1; addresses keep 48 bits; depth saturates at 1023. */
    uftrace_dir_fmt_record(rec, 1, true, 5000, 0xffff800000401000);
    assert_int_equal(le64(rec + 8), 1 | 5 << 3 | 1023ull << 6 |
                                    0x800000401000ull << 16);
}

/* Check record i of a .dat: time, exit, depth (0-based), address. */
static void expect_rec(const char *dat, size_t i, uint64_t time, bool exit,
                       unsigned int depth, uint64_t addr)
{
    const uint8_t *p = (const uint8_t *)dat + 16 * i;
    uint64_t w = le64(p + 8);

    assert_int_equal(le64(p), time);
    assert_int_equal(w & 3, exit ? 1 : 0);        /* type */
    assert_int_equal((w >> 2) & 1, 0);            /* more */
    assert_int_equal((w >> 3) & 7, 5);            /* magic */
    assert_int_equal((w >> 6) & 0x3ff, depth);
    assert_int_equal(w >> 16, addr);
}

/*
 * Program at 0x400000..0x402000 (code at 0x401000, file offset 0x1000):
 *   main     0x401000 size 0x20
 *   longjmp  0x401020 size 0x10   uftrace's fixup name: written longjmp_
 *   helper   0x401100 size 0x08   after a gap
 */
static const char *write_prog(void)
{
    static const struct fake_sym syms[] = {
        { "main", 0x401000, 0x20, STT_FUNC, STB_GLOBAL },
        { "longjmp", 0x401020, 0x10, STT_FUNC, STB_GLOBAL },
        { "helper", 0x401100, 0x8, STT_FUNC, STB_LOCAL },
    };
    static const struct fake_seg segs[] = {
        { 0x0000, 0x400000, 0x1000, false },
        { 0x1000, 0x401000, 0x1000, true },
    };
    struct fake_elf fe = { ELFCLASS64, EM_X86_64, ET_EXEC, 0x401000, 0x1000,
                           segs, 2, syms, 3, NULL, 0, 0, 0 };

    return fake_elf_write(tmpdir, "prog", &fe);
}

/* Stream 7: main { longjmp {} helper { (no exit) } }, stream 9: open. */
static void feed(struct uftrace_dir *u)
{
    struct qtrace_err err = { "" };

    assert_int_equal(uftrace_dir_entry(u, 7, 10, 0x401000, 1, &err), 0);
    assert_int_equal(uftrace_dir_entry(u, 7, 12, 0x401020, 2, &err), 0);
    assert_int_equal(uftrace_dir_exit(u, 7, 20, 0x401020, &err), 0);
    assert_int_equal(uftrace_dir_entry(u, 9, 5, 0x401100, 1, &err), 0);
    assert_int_equal(uftrace_dir_entry(u, 7, 21, 0x401100, 2, &err), 0);
    assert_int_equal(uftrace_dir_exit(u, 7, 30, 0x401000, &err), 0);
    uftrace_dir_seen(u, 9, 50);
    /* An exit of nothing open is dropped. */
    assert_int_equal(uftrace_dir_exit(u, 7, 31, 0x401020, &err), 0);
}

static void check_dat(const char *dir)
{
    size_t len;
    char *dat = slurp(dir, "7.dat", &len);

    assert_int_equal(len, 6 * 16);
    expect_rec(dat, 0, 10, false, 0, 0x401000);
    expect_rec(dat, 1, 12, false, 1, 0x401020);
    expect_rec(dat, 2, 20, true, 1, 0x401020);
    expect_rec(dat, 3, 21, false, 1, 0x401100);
    expect_rec(dat, 4, 30, true, 1, 0x401100);     /* closed by main's */
    expect_rec(dat, 5, 30, true, 0, 0x401000);
    free(dat);
    dat = slurp(dir, "9.dat", &len);
    assert_int_equal(len, 2 * 16);
    expect_rec(dat, 0, 5, false, 0, 0x401100);
    expect_rec(dat, 1, 50, true, 0, 0x401100);     /* at its last time */
    free(dat);
}

static void check_info(const char *dir)
{
    static const char text[] =
        "exename:/guest/prog\n"
        "cmdline:/guest/prog\n"
        "taskinfo:lines=2\n"
        "taskinfo:nr_tid=2\n"
        "taskinfo:tids=7,9\n";
    size_t len;
    char *info = slurp(dir, "info", &len);
    const uint8_t *h = (const uint8_t *)info;

    assert_int_equal(len, 40 + strlen(text));
    assert_memory_equal(h, "Ftrace!\0", 8);
    assert_int_equal(h[8] | h[9] << 8, 4);         /* version */
    assert_int_equal(h[12] | h[13] << 8, 40);      /* header size */
    assert_int_equal(h[14], 1);                    /* little-endian */
    assert_int_equal(h[15], 2);                    /* 64-bit */
    assert_int_equal(le64(h + 16), 0x2);           /* TASK_SESSION */
    assert_int_equal(le64(h + 24), 0x89);  /* EXE_NAME CMDLINE TASKINFO */
    assert_string_equal(info + 40, text);
    free(info);
}

static void test_uftrace_dir_writes_every_file(void **state)
{
    const char *prog = write_prog();
    struct qtrace_symbols *syms = qtrace_symbols_new();
    struct uftrace_dir_meta meta = { "/guest/prog", NULL, 64 };
    struct qtrace_err err = { "" };
    struct uftrace_dir *u;
    char dir[600], expect[1200];
    size_t len;
    char *text;

    (void)state;
    snprintf(dir, sizeof(dir), "%s/out", tmpdir);
    assert_int_equal(qtrace_symbols_add_map(syms, prog, 0x401000, 0x402000,
                                            0x1000, &err), 0);
    assert_int_equal(uftrace_dir_open(&u, dir, &err), 0);
    feed(u);
    assert_int_equal(uftrace_dir_close(u, &meta, syms, &err), 0);
    check_dat(dir);
    check_info(dir);
    text = slurp(dir, "task.txt", &len);
    assert_string_equal(text,
        "SESS timestamp=0.000000000 pid=7 sid=0 exename=\"/guest/prog\"\n"
        "TASK timestamp=0.000000010 tid=7 pid=7\n"
        "TASK timestamp=0.000000005 tid=9 pid=7\n");
    free(text);
    text = slurp(dir, "sid-0.map", &len);
    snprintf(expect, sizeof(expect),
             "000000400000-000000402000 r-xp 00000000 00:00 0 %s\n"
             "ffffffffffff-ffffffffffff rw-p 00000000 00:00 0 [stack]\n",
             prog);
    assert_string_equal(text, expect);
    free(text);
    text = slurp(dir, "prog.sym", &len);
    assert_string_equal(text,
        "0000000000001000 T main\n"
        "0000000000001020 T longjmp_\n"
        "0000000000001030 ? __sym_end\n"
        "0000000000001100 T helper\n"
        "0000000000001108 ? __sym_end\n");
    free(text);
    qtrace_symbols_free(syms);
}

/* A second conversion into the same directory leaves no stale task. */
static void test_uftrace_dir_reuse_removes_old_files(void **state)
{
    struct uftrace_dir_meta meta = { NULL, NULL, 32 };
    struct qtrace_err err = { "" };
    struct uftrace_dir *u;
    struct stat st;
    char dir[600], path[700];
    size_t len;
    char *info;

    (void)state;
    snprintf(dir, sizeof(dir), "%s/out", tmpdir);
    assert_int_equal(uftrace_dir_open(&u, dir, &err), 0);
    assert_int_equal(uftrace_dir_entry(u, 3, 1, 0x1000, 1, &err), 0);
    assert_int_equal(uftrace_dir_close(u, &meta, NULL, &err), 0);
    snprintf(path, sizeof(path), "%s/7.dat", dir);
    assert_int_not_equal(stat(path, &st), 0);
    snprintf(path, sizeof(path), "%s/prog.sym", dir);
    assert_int_not_equal(stat(path, &st), 0);
    info = slurp(dir, "info", &len);
    assert_int_equal(info[15], 1);                 /* 32-bit guest */
    assert_non_null(strstr(info + 40, "exename:guest\n"));
    assert_non_null(strstr(info + 40, "taskinfo:tids=3\n"));
    free(info);
}

/* A directory of other files is never cleaned: refused. */
static void test_uftrace_dir_foreign_dir_refused(void **state)
{
    struct qtrace_err err = { "" };
    struct uftrace_dir *u;
    struct stat st;
    char dir[600], path[700];
    FILE *f;

    (void)state;
    snprintf(dir, sizeof(dir), "%s/mine", tmpdir);
    assert_int_equal(mkdir(dir, 0755), 0);
    snprintf(path, sizeof(path), "%s/keep.dat", dir);
    f = fopen(path, "w");
    assert_non_null(f);
    fclose(f);
    assert_int_equal(uftrace_dir_open(&u, dir, &err), -EEXIST);
    assert_non_null(strstr(err.msg, "no uftrace data directory"));
    assert_int_equal(stat(path, &st), 0);
    /* An empty one is fine. */
    snprintf(dir, sizeof(dir), "%s/empty", tmpdir);
    assert_int_equal(mkdir(dir, 0755), 0);
    assert_int_equal(uftrace_dir_open(&u, dir, &err), 0);
    uftrace_dir_free(u);
}

static void test_uftrace_dir_bad_path_fails(void **state)
{
    struct qtrace_err err = { "" };
    struct uftrace_dir *u;
    char path[600];
    FILE *f;

    (void)state;
    snprintf(path, sizeof(path), "%s/file", tmpdir);
    f = fopen(path, "w");
    assert_non_null(f);
    fclose(f);
    assert_int_equal(uftrace_dir_open(&u, path, &err), -ENOTDIR);
    assert_non_null(strstr(err.msg, path));
    snprintf(path, sizeof(path), "%s/no/such/dir", tmpdir);
    assert_int_equal(uftrace_dir_open(&u, path, &err), -ENOENT);
}

static int setup(void **state)
{
    (void)state;
    return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
    char cmd[600];

    (void)state;
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
    return system(cmd) == 0 ? 0 : -1;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_uftrace_dir_record_matches_uftrace),
        cmocka_unit_test(test_uftrace_dir_writes_every_file),
        cmocka_unit_test(test_uftrace_dir_reuse_removes_old_files),
        cmocka_unit_test(test_uftrace_dir_foreign_dir_refused),
        cmocka_unit_test(test_uftrace_dir_bad_path_fails),
    };

    return cmocka_run_group_tests(tests, setup, teardown);
}
