/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for src/format/catalog-check.c: catalogs whose layouts the
 * reader may rely on pass, those declaring a field it loads or stores
 * with another width are refused with the event, field, type and offset.
 * Offsets in the expected messages follow the layout rule of
 * docs/format.md, worked out by hand in the comments.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "catalog-check.h"

/* 0 or -EBADMSG for a catalog text; the message in err. */
static int check(const char *text, struct qtrace_err *err)
{
    struct qtrace_catalog cat;
    int ret;

    memset(err, 0, sizeof(*err));
    assert_int_equal(qtrace_catalog_parse(&cat, text, err), 0);
    ret = catalog_check_reader_needs(&cat, err);
    qtrace_catalog_fini(&cat);
    return ret;
}

static void test_catalog_check_plugin_layouts_pass(void **state)
{
    struct qtrace_err err;

    (void)state;
    assert_int_equal(check(
        "tb_trans(uint64_t pc, uint32_t tb, uint32_t size, uint32_t n_insns,"
        " const uint8_t *code) \"x\"\n"
        "exec_tb(uint64_t pc, uint32_t tb) \"x\"\n"
        "mem_access(uint64_t pc, uint64_t vaddr, uint64_t paddr, uint8_t size,"
        " uint8_t flags, const char *device, uint64_t value) \"x\"\n"
        "func_entry(uint64_t pc, uint64_t from, uint32_t depth,"
        " uint8_t kind) \"x\"\n"
        "lost(uint64_t records, uint32_t block_insns) \"x\"\n", &err), 0);
}

static void test_catalog_check_u8_pc_at_63_refused(void **state)
{
    struct qtrace_err err;

    (void)state;
    /* 16 + 5 * 8 = 56: tb 56..59, f 60..61, g 62, pc 63. */
    assert_int_equal(check(
        "exec_tb(uint64_t a, uint64_t b, uint64_t c, uint64_t d, uint64_t e,"
        " uint32_t tb, uint16_t f, uint8_t g, uint8_t pc) \"x\"\n", &err),
        -EBADMSG);
    assert_string_equal(err.msg, "catalog: event exec_tb field pc is uint8_t "
                        "at offset 63, the reader needs a 64-bit field "
                        "inside the record");
}

static void test_catalog_check_narrow_tb_trans_tb_refused(void **state)
{
    struct qtrace_err err;

    (void)state;
    /* pc 16, n_insns 24, size 28, code length 32, tb 34. */
    assert_int_equal(check(
        "tb_trans(uint64_t pc, uint32_t n_insns, uint32_t size,"
        " const uint8_t *code, uint8_t tb) \"x\"\n", &err), -EBADMSG);
    assert_string_equal(err.msg, "catalog: event tb_trans field tb is uint8_t "
                        "at offset 34, the reader needs a 32-bit field "
                        "inside the record");
}

static void test_catalog_check_string_for_bytes_refused(void **state)
{
    struct qtrace_err err;

    (void)state;
    /* pc 16, tb 24, size 28, n_insns 32, code length 36. */
    assert_int_equal(check(
        "tb_trans(uint64_t pc, uint32_t tb, uint32_t size, uint32_t n_insns,"
        " const char *code) \"x\"\n", &err), -EBADMSG);
    assert_non_null(strstr(err.msg, "field code is const char * at offset "
                           "36, the reader needs a bytes"));
}

static void test_catalog_check_signed_and_missing_fields_pass(void **state)
{
    struct qtrace_err err;

    (void)state;
    /* Same widths, other signedness; lost without block_insns. */
    assert_int_equal(check(
        "exec_tb(int64_t pc, int32_t tb) \"x\"\n"
        "lost(uint64_t records) \"x\"\n"
        "func_exit(uint64_t pc, uint64_t to, int32_t depth, bool kind) "
        "\"x\"\n", &err), 0);
}

static void test_catalog_check_wide_depth_refused(void **state)
{
    struct qtrace_err err;

    (void)state;
    /* A wider field would be written short: refused as well. */
    assert_int_equal(check(
        "func_exit(uint64_t pc, uint64_t to, uint64_t depth, uint8_t kind) "
        "\"x\"\n", &err), -EBADMSG);
    assert_string_equal(err.msg, "catalog: event func_exit field depth is "
                        "uint64_t at offset 32, the reader needs a 32-bit "
                        "field inside the record");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_catalog_check_plugin_layouts_pass),
        cmocka_unit_test(test_catalog_check_u8_pc_at_63_refused),
        cmocka_unit_test(test_catalog_check_narrow_tb_trans_tb_refused),
        cmocka_unit_test(test_catalog_check_string_for_bytes_refused),
        cmocka_unit_test(test_catalog_check_signed_and_missing_fields_pass),
        cmocka_unit_test(test_catalog_check_wide_depth_refused),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
