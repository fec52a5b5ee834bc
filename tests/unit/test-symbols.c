/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for src/symbols: ELF files written here with libelf, with
 * segments and symbols chosen by the test, so every address, size and
 * load bias below is known by construction. Covers non-PIE and PIE
 * placement, sizes and gaps, the naming rules, not-found addresses and
 * unreadable files.
 */
#include <errno.h>
#include <fcntl.h>
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

static char tmpdir[] = "/tmp/qtrace-test-symbols.XXXXXX";

/*
 * The program of most tests: code at 0x401000..0x403000 (file offset
 * 0x1000), data segment up to 0x405000.
 *   _start  0x401000 size 0x10  global func
 *   helper  0x401010 size 0x20  local func   -> gap 0x401030..0x401100
 *   inner   0x401014 size 0     local label inside helper: cuts it,
 *                               runs to helper's end 0x401030
 *   __main  0x401100 size 0x100 global func
 *   main    0x401100 size 0x100 weak func (alias: fewer '_' wins)
 *   main_l  0x401100 size 0     global label (a label loses)
 *   $x      0x401200 size 0     mapping symbol: dropped
 *   loop    0x401200 size 0     label: runs to the next symbol
 *   last    0x401300 size 0     label: runs to the end of .text 0x403000
 */
static const struct fake_sym prog_syms[] = {
    { "_start", 0x401000, 0x10, STT_FUNC, STB_GLOBAL },
    { "helper", 0x401010, 0x20, STT_FUNC, STB_LOCAL },
    { "inner", 0x401014, 0, STT_NOTYPE, STB_LOCAL },
    { "__main", 0x401100, 0x100, STT_FUNC, STB_GLOBAL },
    { "main_l", 0x401100, 0, STT_NOTYPE, STB_GLOBAL },
    { "main", 0x401100, 0x100, STT_FUNC, STB_WEAK },
    { "$x", 0x401200, 0, STT_NOTYPE, STB_LOCAL },
    { "loop", 0x401200, 0, STT_NOTYPE, STB_LOCAL },
    { "last", 0x401300, 0, STT_NOTYPE, STB_LOCAL },
};

static const struct fake_seg prog_segs[] = {
    { 0x0000, 0x400000, 0x1000, false },
    { 0x1000, 0x401000, 0x2000, true },
    { 0x3000, 0x404000, 0x1000, false },
};

static struct fake_elf prog(int type, uint64_t shift)
{
    static struct fake_sym syms[sizeof(prog_syms) / sizeof(prog_syms[0])];
    static struct fake_seg segs[3];
    struct fake_elf fe = { ELFCLASS64, EM_X86_64, type, 0x401000 - shift,
                           0x2000, segs, 3, syms, 9, NULL, 0, 0, 0 };
    size_t i;

    for (i = 0; i < 9; i++) {
        syms[i] = prog_syms[i];
        syms[i].value -= shift;
    }
    for (i = 0; i < 3; i++) {
        segs[i] = prog_segs[i];
        segs[i].vaddr -= shift;
    }
    return fe;
}

static void expect_sym(const struct qtrace_symbols *s, uint64_t addr,
                       const char *name, uint64_t off)
{
    uint64_t got_off = UINT64_MAX;
    const char *got = qtrace_symbols_lookup(s, addr, &got_off);

    if (!name) {
        if (got) {
            fail_msg("0x%lx: expected nothing, got %s+0x%lx",
                     (unsigned long)addr, got, (unsigned long)got_off);
        }
        return;
    }
    if (!got) {
        fail_msg("0x%lx: expected %s, got nothing", (unsigned long)addr,
                 name);
    }
    assert_string_equal(got, name);
    assert_int_equal(got_off, off);
}

static void test_symbols_exec_at_link_address_resolves(void **state)
{
    struct fake_elf fe = prog(ET_EXEC, 0);
    const char *path = fake_elf_write(tmpdir, "exec", &fe);
    struct qtrace_symbols *s = qtrace_symbols_new();
    struct qtrace_err err = { "" };
    struct qtrace_image im;

    (void)state;
    assert_int_equal(qtrace_symbols_add_map(s, path, 0x401000, 0x403000,
                                            0x1000, &err), 0);
    assert_int_equal(qtrace_symbols_n_images(s), 1);
    qtrace_symbols_image(s, 0, &im);
    assert_int_equal(im.bias, 0);
    assert_int_equal(im.start, 0x400000);  /* the whole PT_LOAD extent */
    assert_int_equal(im.end, 0x405000);
    assert_true(im.loaded);
    assert_int_equal(im.n_syms, 6);   /* _start helper inner main loop last */
    expect_sym(s, 0x401000, "_start", 0);
    expect_sym(s, 0x40100f, "_start", 0xf);
    expect_sym(s, 0x401013, "helper", 3);
    expect_sym(s, 0x401014, "inner", 0);      /* a label inside helper */
    expect_sym(s, 0x40102f, "inner", 0x1b);   /* up to helper's end */
    expect_sym(s, 0x401030, NULL, 0);         /* past helper's size */
    expect_sym(s, 0x4010ff, NULL, 0);
    expect_sym(s, 0x401100, "main", 0);       /* not __main, not main_l */
    expect_sym(s, 0x4011ff, "main", 0xff);
    expect_sym(s, 0x401200, "loop", 0);       /* not $x */
    expect_sym(s, 0x4012ff, "loop", 0xff);    /* up to the next symbol */
    expect_sym(s, 0x402fff, "last", 0x1cff);  /* up to the section end */
    expect_sym(s, 0x403000, NULL, 0);
    expect_sym(s, 0x3fffff, NULL, 0);         /* below every image */
    expect_sym(s, 0x7f0000000000, NULL, 0);   /* above */
    qtrace_symbols_free(s);
}

/* A PIE (link base 0) mapped at 0x555555554000: bias is the base. */
static void test_symbols_pie_map_uses_load_bias(void **state)
{
    struct fake_elf fe = prog(ET_DYN, 0x400000);
    const char *path = fake_elf_write(tmpdir, "pie", &fe);
    struct qtrace_symbols *s = qtrace_symbols_new();
    struct qtrace_err err = { "" };
    const uint64_t base = 0x555555554000;
    struct qtrace_image im;

    (void)state;
    /* The code mapping alone (offset 0x1000 at base + 0x1000). */
    assert_int_equal(qtrace_symbols_add_map(s, path, base + 0x1000,
                                            base + 0x3000, 0x1000, &err), 0);
    qtrace_symbols_image(s, 0, &im);
    assert_int_equal(im.bias, base);
    assert_int_equal(im.start, base);
    assert_int_equal(im.end, base + 0x5000);
    expect_sym(s, base + 0x1100, "main", 0);
    expect_sym(s, base + 0x1010 + 3, "helper", 3);
    expect_sym(s, 0x1100, NULL, 0);           /* the unbiased address */
    /* Another mapping of the same file and bias merges: 1, one image. */
    assert_int_equal(qtrace_symbols_add_map(s, path, base, base + 0x1000,
                                            0, &err), 1);
    assert_int_equal(qtrace_symbols_n_images(s), 1);
    /* The same file loaded again elsewhere is a second image. */
    assert_int_equal(qtrace_symbols_add_map(s, path, 0x7f0000000000,
                                            0x7f0000005000, 0, &err), 0);
    assert_int_equal(qtrace_symbols_n_images(s), 2);
    qtrace_symbols_image(s, 1, &im);
    assert_int_equal(im.bias, 0x7f0000000000);
    expect_sym(s, 0x7f0000001000, "_start", 0);
    expect_sym(s, base + 0x1000, "_start", 0);
    qtrace_symbols_free(s);
}

/* Only the trace header: a PIE placed through QEMU's start_code. */
static void test_symbols_program_pie_from_start_code(void **state)
{
    struct fake_elf fe = prog(ET_DYN, 0x400000);
    const char *path = fake_elf_write(tmpdir, "pie-prog", &fe);
    struct qtrace_symbols *s = qtrace_symbols_new();
    struct qtrace_err err = { "" };
    struct qtrace_image im;

    (void)state;
    /* First executable segment at 0x1000: start_code = bias + 0x1000. */
    assert_int_equal(qtrace_symbols_add_program(s, path, 0x4000001000,
                                                &err), 0);
    qtrace_symbols_image(s, 0, &im);
    assert_int_equal(im.bias, 0x4000000000);
    expect_sym(s, 0x4000001104, "main", 4);
    /* An image_map of the same file first makes the header redundant. */
    qtrace_symbols_free(s);
    s = qtrace_symbols_new();
    assert_int_equal(qtrace_symbols_add_map(s, path, 0x5000000000,
                                            0x5000001000, 0, &err), 0);
    assert_int_equal(qtrace_symbols_add_program(s, path, 0x4000001000,
                                                &err), 1);
    assert_int_equal(qtrace_symbols_n_images(s), 1);
    expect_sym(s, 0x5000001100, "main", 0);
    expect_sym(s, 0x4000001100, NULL, 0);
    qtrace_symbols_free(s);
}

static void test_symbols_program_exec_ignores_start_code(void **state)
{
    struct fake_elf fe = prog(ET_EXEC, 0);
    const char *path = fake_elf_write(tmpdir, "exec-prog", &fe);
    struct qtrace_symbols *s = qtrace_symbols_new();
    struct qtrace_err err = { "" };

    (void)state;
    assert_int_equal(qtrace_symbols_add_program(s, path, 0x401000, &err),
                     0);
    expect_sym(s, 0x401100, "main", 0);
    qtrace_symbols_free(s);
}

/* Thumb functions have bit 0 set in st_value; the address has it clear. */
static void test_symbols_arm_thumb_bit_cleared(void **state)
{
    static const struct fake_sym syms[] = {
        { "thumb_fn", 0x10001, 0x20, STT_FUNC, STB_GLOBAL },
        { "arm_fn", 0x10040, 0x10, STT_FUNC, STB_GLOBAL },
    };
    static const struct fake_seg segs[] = { { 0, 0x10000, 0x1000, true } };
    struct fake_elf fe = { ELFCLASS32, EM_ARM, ET_EXEC, 0x10000, 0x1000,
                           segs, 1, syms, 2, NULL, 0, 0, 0 };
    const char *path = fake_elf_write(tmpdir, "arm", &fe);
    struct qtrace_symbols *s = qtrace_symbols_new();
    struct qtrace_err err = { "" };

    (void)state;
    assert_int_equal(qtrace_symbols_add_map(s, path, 0x10000, 0x11000, 0,
                                            &err), 0);
    expect_sym(s, 0x10000, "thumb_fn", 0);
    expect_sym(s, 0x1001f, "thumb_fn", 0x1f);
    expect_sym(s, 0x10020, NULL, 0);
    expect_sym(s, 0x10048, "arm_fn", 8);
    qtrace_symbols_free(s);
}

/*
 * PLT stubs of a dynamic program: "name@plt" after the relocation of the
 * GOT slot each stub jumps through (the slots run in the reverse order
 * of the relocations, so relocation order would swap the names).
 */
static void test_symbols_plt_stubs_named_by_slot(void **state)
{
    static const char *const plt[] = { "puts", "exit" };
    static const struct fake_sym syms[] = {
        { "main", 0x401000, 0x40, STT_FUNC, STB_GLOBAL },
    };
    static const struct fake_seg segs[] = { { 0, 0x400000, 0x2000, true } };
    struct fake_elf fe = { ELFCLASS64, EM_X86_64, ET_EXEC, 0x401000, 0x100,
                           segs, 1, syms, 1, plt, 2, 0x401800, 0 };
    const char *path = fake_elf_write(tmpdir, "plt", &fe);
    struct qtrace_symbols *s = qtrace_symbols_new();
    struct qtrace_err err = { "" };

    (void)state;
    assert_int_equal(qtrace_symbols_add_map(s, path, 0x400000, 0x402000, 0,
                                            &err), 0);
    expect_sym(s, 0x401800, NULL, 0);         /* the PLT header */
    expect_sym(s, 0x401810, "exit@plt", 0);
    expect_sym(s, 0x40181f, "exit@plt", 0xf);
    expect_sym(s, 0x401825, "puts@plt", 5);
    expect_sym(s, 0x401830, NULL, 0);
    expect_sym(s, 0x401000, "main", 0);
    qtrace_symbols_free(s);
    /* A stub through a slot without a relocation stays unnamed. */
    fe.plt_size = 0x40;
    path = fake_elf_write(tmpdir, "plt-more", &fe);
    s = qtrace_symbols_new();
    assert_int_equal(qtrace_symbols_add_map(s, path, 0x400000, 0x402000, 0,
                                            &err), 0);
    expect_sym(s, 0x401810, "exit@plt", 0);
    expect_sym(s, 0x401830, NULL, 0);
    qtrace_symbols_free(s);
}

/*
 * A PIE whose data segment starts in the page where its read-only data
 * ends (ld's usual layout): file offset 0x2000 is mapped twice, once as
 * rodata at 0x2000 and once as the data page at 0x3000. Both records
 * must give the bias of the offset-0 record: one image, main found.
 */
static void test_symbols_shared_page_keeps_one_bias(void **state)
{
    static const struct fake_sym syms[] = {
        { "main", 0x1100, 0x40, STT_FUNC, STB_GLOBAL },
    };
    static const struct fake_seg segs[] = {
        { 0x0000, 0x0000, 0x618, false },
        { 0x1000, 0x1000, 0x189, true },
        { 0x2000, 0x2000, 0x100, false },
        { 0x2dd0, 0x3dd0, 0x250, false },
    };
    struct fake_elf fe = { ELFCLASS64, EM_X86_64, ET_DYN, 0x1000, 0x189,
                           segs, 4, syms, 1, NULL, 0, 0, 0 };
    const char *path = fake_elf_write(tmpdir, "pie-shared", &fe);
    const uint64_t base = 0x4000000000;
    struct qtrace_symbols *s = qtrace_symbols_new();
    struct qtrace_err err = { "" };
    struct qtrace_image im;

    (void)state;
    /* Alone, the rodata record is explained by the segment holding it. */
    assert_int_equal(qtrace_symbols_add_map(s, path, base + 0x2000,
                                            base + 0x3000, 0x2000, &err), 0);
    qtrace_symbols_image(s, 0, &im);
    assert_int_equal(im.bias, base);
    qtrace_symbols_free(s);
    /* In QEMU's order, every record joins the first image. */
    s = qtrace_symbols_new();
    assert_int_equal(qtrace_symbols_add_map(s, path, base, base + 0x1000, 0,
                                            &err), 0);
    assert_int_equal(qtrace_symbols_add_map(s, path, base + 0x2000,
                                            base + 0x3000, 0x2000, &err), 1);
    assert_int_equal(qtrace_symbols_add_map(s, path, base + 0x3000,
                                            base + 0x5000, 0x2000, &err), 1);
    assert_int_equal(qtrace_symbols_n_images(s), 1);
    expect_sym(s, base + 0x1100, "main", 0);
    qtrace_symbols_free(s);
}

static void test_symbols_missing_file_warns_once(void **state)
{
    struct qtrace_symbols *s = qtrace_symbols_new();
    struct qtrace_err err = { "" };
    char path[600];

    (void)state;
    snprintf(path, sizeof(path), "%s/absent", tmpdir);
    assert_int_equal(qtrace_symbols_add_map(s, path, 0x1000, 0x2000, 0,
                                            &err), -ENOENT);
    assert_non_null(strstr(err.msg, path));
    assert_non_null(strstr(err.msg, "No such file"));
    err.msg[0] = '\0';
    assert_int_equal(qtrace_symbols_add_map(s, path, 0x3000, 0x4000,
                                            0x2000, &err), 1);
    assert_string_equal(err.msg, "");
    /* The image is there, with no names. */
    expect_sym(s, 0x1800, NULL, 0);
    assert_int_equal(qtrace_symbols_n_images(s), 1);
    qtrace_symbols_free(s);
}

static void test_symbols_text_file_is_not_elf(void **state)
{
    struct qtrace_symbols *s = qtrace_symbols_new();
    struct qtrace_err err = { "" };
    char path[600];
    FILE *f;

    (void)state;
    snprintf(path, sizeof(path), "%s/notes.txt", tmpdir);
    f = fopen(path, "w");
    assert_non_null(f);
    fputs("not an ELF file at all\n", f);
    fclose(f);
    assert_int_equal(qtrace_symbols_add_program(s, path, 0x1000, &err),
                     -ENOEXEC);
    assert_non_null(strstr(err.msg, "not an ELF file"));
    assert_int_equal(qtrace_symbols_add_program(s, path, 0x1000, &err), 1);
    assert_null(qtrace_symbols_lookup(s, 0x1000, NULL));
    assert_null(qtrace_symbols_lookup(NULL, 0x1000, NULL));
    qtrace_symbols_free(s);
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
        cmocka_unit_test(test_symbols_exec_at_link_address_resolves),
        cmocka_unit_test(test_symbols_pie_map_uses_load_bias),
        cmocka_unit_test(test_symbols_program_pie_from_start_code),
        cmocka_unit_test(test_symbols_program_exec_ignores_start_code),
        cmocka_unit_test(test_symbols_arm_thumb_bit_cleared),
        cmocka_unit_test(test_symbols_plt_stubs_named_by_slot),
        cmocka_unit_test(test_symbols_shared_page_keeps_one_bias),
        cmocka_unit_test(test_symbols_missing_file_warns_once),
        cmocka_unit_test(test_symbols_text_file_is_not_elf),
    };

    return cmocka_run_group_tests(tests, setup, teardown);
}
