/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for src/symbols/symbol-table.c (System.map and kallsyms
 * text) and for --symbols files in a table (user-file.c,
 * extra-files.c): the text below and the ELF files written with
 * fake-elf.c give every address and size by construction.
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
#include <unistd.h>

#include <cmocka.h>

#include "fake-elf.h"
#include "qtrace/symbols.h"
#include "symbol-table.h"
#include "user-file.h"

static char tmpdir[] = "/tmp/qtrace-test-symbol-table.XXXXXX";

/*
 * A kallsyms excerpt:
 *   _text, startup_64  0x...81000000 T   one address: startup_64 (fewer _)
 *   jiffies            0x...81000100 D   data: dropped
 *   do_one             0x...81000200 t   runs to do_two
 *   do_two             0x...81000300 W   weak; last of the kernel: 4 KiB
 *   mod_a              0x...c0000000 t [m]  runs to mod_b
 *   mod_b              0x...c0000040 T [m]  last of [m]: 4 KiB
 *   undefined          (nm's "U name", no address): passed over
 */
static const char kallsyms[] =
    "ffffffff81000000 T _text\n"
    "ffffffff81000000 T startup_64\n"
    "ffffffff81000100 D jiffies\n"
    "ffffffff81000200 t do_one\n"
    "\n"
    "ffffffff81000300 W do_two\n"
    "                 U undefined\n"
    "ffffffffc0000000 t mod_a\t[m]\n"
    "ffffffffc0000040 T mod_b\t[m]\n";

static int parse(struct elf_file *f, const char *text,
                 struct qtrace_err *err)
{
    return symbol_table_parse(f, text, strlen(text), "t.map", err);
}

static void test_symbol_table_kallsyms_text_symbols_sized(void **state)
{
    struct qtrace_err err = { "" };
    struct elf_file f;

    (void)state;
    assert_int_equal(parse(&f, kallsyms, &err), 0);
    assert_int_equal(f.n_syms, 5);
    assert_string_equal(f.syms[0].name, "startup_64");
    assert_int_equal(f.syms[0].size, 0x200);     /* jiffies is no text */
    assert_string_equal(f.syms[1].name, "do_one");
    assert_int_equal(f.syms[1].size, 0x100);
    assert_string_equal(f.syms[2].name, "do_two");
    assert_int_equal(f.syms[2].size, SYMBOL_TABLE_LAST_SIZE);
    assert_string_equal(f.syms[3].name, "mod_a [m]");
    assert_int_equal(f.syms[3].size, 0x40);
    assert_string_equal(f.syms[4].name, "mod_b [m]");
    assert_int_equal(f.syms[4].size, SYMBOL_TABLE_LAST_SIZE);
    assert_int_equal(elf_file_anchor(&f), 0xffffffff81000000ull);
    assert_int_equal(f.lo, 0xffffffff81000000ull);
    assert_int_equal(f.hi, 0xffffffffc0000040ull + SYMBOL_TABLE_LAST_SIZE);
    elf_file_fini(&f);
}

static void test_symbol_table_anchor_stext_then_lowest(void **state)
{
    struct qtrace_err err = { "" };
    struct elf_file f;

    (void)state;
    assert_int_equal(parse(&f, "1000 t a\n2000 T _stext\n", &err), 0);
    assert_int_equal(elf_file_anchor(&f), 0x2000);
    elf_file_fini(&f);
    assert_int_equal(parse(&f, "3000 t b\n1000 t a\n", &err), 0);
    assert_int_equal(elf_file_anchor(&f), 0x1000);
    elf_file_fini(&f);
}

static void test_symbol_table_bad_line_named(void **state)
{
    struct qtrace_err err = { "" };
    struct elf_file f;

    (void)state;
    assert_int_equal(parse(&f, "1000 t a\n\n1000 tt b\n", &err), -EINVAL);
    assert_non_null(strstr(err.msg, "t.map: line 3: "));
    assert_null(strstr(err.msg, "ELF"));
    assert_int_equal(parse(&f, "1000 t a b c\n", &err), -EINVAL);
    assert_non_null(strstr(err.msg, "line 1: "));
    assert_non_null(strstr(err.msg, "not an ELF file"));
    assert_int_equal(parse(&f, "10000000000000000 t big\n", &err),
                     -EINVAL);
    assert_int_equal(parse(&f, "1000 t a [m\n", &err), -EINVAL);
}

static void test_symbol_table_zero_addresses_refused(void **state)
{
    struct qtrace_err err = { "" };
    struct elf_file f;

    (void)state;
    assert_int_equal(parse(&f, "0000000000000000 T _text\n"
                           "0000000000000000 t a\n", &err), -EINVAL);
    assert_non_null(strstr(err.msg, "kptr_restrict"));
    assert_int_equal(parse(&f, "1000 D data\n", &err), -EINVAL);
    assert_non_null(strstr(err.msg, "no text symbols"));
}

/* A file of text in tmpdir; returns its path (a static buffer). */
static const char *write_text(const char *name, const char *text)
{
    static char path[256];
    FILE *f;

    snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
    f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    return path;
}

static void expect_name(const struct qtrace_symbols *s, uint64_t addr,
                        const char *name, uint64_t off)
{
    uint64_t got_off = UINT64_MAX;
    const char *got = qtrace_symbols_lookup(s, addr, &got_off);

    assert_non_null(got);
    assert_string_equal(got, name);
    assert_int_equal(got_off, off);
}

/* The extra files placed in a fresh table. */
static struct qtrace_symbols *table_with_extras(void)
{
    struct qtrace_symbols *s = qtrace_symbols_new();

    assert_non_null(s);
    assert_int_equal(extra_files_place(s), 0);
    return s;
}

static void test_symbol_table_at_moves_text_to_addr(void **state)
{
    char spec[300];
    struct qtrace_err err = { "" };
    struct qtrace_symbols *s;

    (void)state;
    snprintf(spec, sizeof(spec), "%s@0x%x",
             write_text("kallsyms", kallsyms), 0x1000000);
    assert_int_equal(qtrace_symbols_extra_add(spec, &err), 0);
    s = table_with_extras();
    assert_int_equal(qtrace_symbols_n_images(s), 1);
    expect_name(s, 0x1000000, "startup_64", 0);
    expect_name(s, 0x1000210, "do_one", 0x10);
    expect_name(s, 0x1000000 + 0x3f000041, "mod_b [m]", 1);
    assert_null(qtrace_symbols_lookup(s, 0xffffffff81000000ull, NULL));
    assert_null(qtrace_symbols_module(s, 0x1000000, NULL));
    qtrace_symbols_free(s);
    qtrace_symbols_extra_clear();
}

/*
 * An ELF program with _text at 0x401000 (code 0x401000..0x403000):
 * "func" at 0x401100. As a --symbols file it wins over an image of a
 * stripped-like ELF ("other" at the same address) where it has a symbol,
 * and the image names the rest.
 */
static const struct fake_sym user_syms[] = {
    { "_text", 0x401000, 0, STT_NOTYPE, STB_GLOBAL },
    { "func", 0x401100, 0x100, STT_FUNC, STB_GLOBAL },
};
static const struct fake_sym image_syms[] = {
    { "other", 0x401100, 0x100, STT_FUNC, STB_GLOBAL },
    { "later", 0x402000, 0x100, STT_FUNC, STB_GLOBAL },
};
static const struct fake_seg segs[] = {
    { 0x1000, 0x401000, 0x2000, true },
};

static void test_symbol_table_user_elf_wins_and_moves(void **state)
{
    struct fake_elf ue = { ELFCLASS64, EM_X86_64, ET_EXEC, 0x401000, 0x2000,
                           segs, 1, user_syms, 2, NULL, 0, 0, 0 };
    struct fake_elf ie = ue;
    struct qtrace_err err = { "" };
    struct qtrace_symbols *s;
    char spec[300];
    const char *path;

    (void)state;
    ie.syms = image_syms;
    path = fake_elf_write(tmpdir, "user.elf", &ue);
    assert_int_equal(qtrace_symbols_extra_add(path, &err), 0);
    snprintf(spec, sizeof(spec), "%s@ffff0000", path);
    assert_int_equal(qtrace_symbols_extra_add(spec, &err), 0);
    s = table_with_extras();
    path = fake_elf_write(tmpdir, "image.elf", &ie);
    assert_int_equal(qtrace_symbols_add_map(s, path, 0x401000, 0x403000,
                                            0x1000, &err), 0);
    assert_int_equal(qtrace_symbols_n_images(s), 3);
    expect_name(s, 0x401104, "func", 4);          /* over "other" */
    expect_name(s, 0x402010, "later", 0x10);      /* only the image's */
    expect_name(s, 0xffff0100, "func", 0);        /* moved: _text there */
    qtrace_symbols_free(s);
    qtrace_symbols_extra_clear();
}

static void test_symbol_table_spec_errors(void **state)
{
    struct qtrace_err err = { "" };

    (void)state;
    assert_int_equal(qtrace_symbols_extra_add("/nonexistent/x@1000", &err),
                     -ENOENT);
    assert_non_null(strstr(err.msg, "/nonexistent/x: "));
    assert_int_equal(qtrace_symbols_extra_add("/nonexistent/x@zz", &err),
                     -EINVAL);
    assert_non_null(strstr(err.msg, "'zz' after @"));
    qtrace_symbols_extra_clear();
}

static int setup(void **state)
{
    (void)state;
    return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
    char cmd[300];

    (void)state;
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
    return system(cmd) == 0 ? 0 : -1;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_symbol_table_kallsyms_text_symbols_sized),
        cmocka_unit_test(test_symbol_table_anchor_stext_then_lowest),
        cmocka_unit_test(test_symbol_table_bad_line_named),
        cmocka_unit_test(test_symbol_table_zero_addresses_refused),
        cmocka_unit_test(test_symbol_table_at_moves_text_to_addr),
        cmocka_unit_test(test_symbol_table_user_elf_wins_and_moves),
        cmocka_unit_test(test_symbol_table_spec_errors),
    };

    return cmocka_run_group_tests(tests, setup, teardown);
}
