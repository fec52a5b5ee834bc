/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests of event selection (src/plugin/evsel.c): defaults, globs,
 * -patterns, separators, pattern files and the errors they give.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "evsel.h"

static const char catalog_text[] =
    "vcpu_init(uint32_t vcpu) \"vcpu %u\"\n"
    "exec_tb(uint64_t pc) \"pc 0x%\" PRIx64\n"
    "disable exec_insn(uint64_t pc) \"pc 0x%\" PRIx64\n"
    "disable mem_access(uint64_t vaddr) \"vaddr 0x%\" PRIx64\n"
    "disable mem_phys(uint64_t paddr) \"paddr 0x%\" PRIx64\n"
    "tb_trans(uint64_t pc) \"pc 0x%\" PRIx64\n"
    "disable func_entry(uint64_t pc) \"pc 0x%\" PRIx64\n"
    "disable func_exit(uint64_t pc) \"pc 0x%\" PRIx64\n"
    "disable image_map(uint64_t start) \"start 0x%\" PRIx64\n";

enum {
    VCPU_INIT = 1, EXEC_TB, EXEC_INSN, MEM_ACCESS, MEM_PHYS, TB_TRANS,
    FUNC_ENTRY, FUNC_EXIT, IMAGE_MAP
};

struct fixture {
    struct qtrace_catalog cat;
    struct evsel sel;
    struct qtrace_err err;
};

static int setup(void **state)
{
    struct fixture *fx = calloc(1, sizeof(*fx));

    assert_non_null(fx);
    assert_int_equal(qtrace_catalog_parse(&fx->cat, catalog_text, &fx->err),
                     0);
    evsel_init(&fx->sel, &fx->cat);
    *state = fx;
    return 0;
}

static int teardown(void **state)
{
    struct fixture *fx = *state;

    qtrace_catalog_fini(&fx->cat);
    free(fx);
    return 0;
}

static void test_evsel_defaults_skip_disabled_events(void **state)
{
    struct fixture *fx = *state;

    assert_true(evsel_is_enabled(&fx->sel, VCPU_INIT));
    assert_true(evsel_is_enabled(&fx->sel, EXEC_TB));
    assert_false(evsel_is_enabled(&fx->sel, EXEC_INSN));
    assert_false(evsel_is_enabled(&fx->sel, MEM_ACCESS));
}

static void test_evsel_positive_first_pattern_starts_empty(void **state)
{
    struct fixture *fx = *state;

    assert_int_equal(evsel_parse(&fx->sel, "mem_*", &fx->err), 0);
    assert_false(evsel_is_enabled(&fx->sel, VCPU_INIT));
    assert_false(evsel_is_enabled(&fx->sel, EXEC_TB));
    assert_true(evsel_is_enabled(&fx->sel, MEM_ACCESS));
    assert_true(evsel_is_enabled(&fx->sel, MEM_PHYS));
}

static void test_evsel_minus_pattern_disables_match(void **state)
{
    struct fixture *fx = *state;

    assert_int_equal(evsel_parse(&fx->sel, "mem_*,-mem_access", &fx->err),
                     0);
    assert_false(evsel_is_enabled(&fx->sel, MEM_ACCESS));
    assert_true(evsel_is_enabled(&fx->sel, MEM_PHYS));
}

static void test_evsel_negative_first_pattern_keeps_defaults(void **state)
{
    struct fixture *fx = *state;

    assert_int_equal(evsel_parse(&fx->sel, "-vcpu_init", &fx->err), 0);
    assert_false(evsel_is_enabled(&fx->sel, VCPU_INIT));
    assert_true(evsel_is_enabled(&fx->sel, EXEC_TB));
    assert_false(evsel_is_enabled(&fx->sel, EXEC_INSN));
}

static void test_evsel_semicolon_separates_like_comma(void **state)
{
    struct fixture *fx = *state;

    assert_int_equal(evsel_parse(&fx->sel, "exec_tb;exec_insn", &fx->err),
                     0);
    assert_true(evsel_is_enabled(&fx->sel, EXEC_TB));
    assert_true(evsel_is_enabled(&fx->sel, EXEC_INSN));
    assert_false(evsel_is_enabled(&fx->sel, VCPU_INIT));
}

static void test_evsel_unmatched_pattern_is_named(void **state)
{
    struct fixture *fx = *state;

    assert_int_equal(evsel_parse(&fx->sel, "exec_tb,mem_acess", &fx->err),
                     -EINVAL);
    assert_string_equal(fx->err.msg, "mem_acess: no event matches");
}

static void test_evsel_empty_spec_fails(void **state)
{
    struct fixture *fx = *state;

    assert_int_equal(evsel_parse(&fx->sel, " ,; ", &fx->err), -EINVAL);
    assert_non_null(strstr(fx->err.msg, "no pattern"));
}

static void test_evsel_bare_minus_fails(void **state)
{
    struct fixture *fx = *state;

    assert_int_equal(evsel_parse(&fx->sel, "exec_tb,-", &fx->err), -EINVAL);
    assert_non_null(strstr(fx->err.msg, "empty pattern"));
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");

    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void test_evsel_file_reads_patterns_and_comments(void **state)
{
    struct fixture *fx = *state;
    char path[] = "/tmp/qtrace-evsel-XXXXXX";
    char spec[64];
    int fd = mkstemp(path);

    assert_true(fd >= 0);
    close(fd);
    write_file(path, "# all execution\nexec_*\n\n-exec_insn  # not this\n"
               "mem_phys\n");
    snprintf(spec, sizeof(spec), "@%s", path);
    assert_int_equal(evsel_parse(&fx->sel, spec, &fx->err), 0);
    unlink(path);
    assert_true(evsel_is_enabled(&fx->sel, EXEC_TB));
    assert_false(evsel_is_enabled(&fx->sel, EXEC_INSN));
    assert_true(evsel_is_enabled(&fx->sel, MEM_PHYS));
    assert_false(evsel_is_enabled(&fx->sel, VCPU_INIT));
}

static void test_evsel_file_error_names_line(void **state)
{
    struct fixture *fx = *state;
    char path[] = "/tmp/qtrace-evsel-XXXXXX";
    char spec[64];
    int fd = mkstemp(path);

    assert_true(fd >= 0);
    close(fd);
    write_file(path, "exec_tb\n# fine\nnope\n");
    snprintf(spec, sizeof(spec), "@%s", path);
    assert_int_equal(evsel_parse(&fx->sel, spec, &fx->err), -EINVAL);
    unlink(path);
    assert_non_null(strstr(fx->err.msg, ": line 3: nope: no event matches"));
}

static void test_evsel_missing_file_gives_errno(void **state)
{
    struct fixture *fx = *state;

    assert_int_equal(evsel_parse(&fx->sel, "@/nonexistent/events",
                                 &fx->err), -ENOENT);
    assert_non_null(strstr(fx->err.msg, "No such file"));
}

static void test_evsel_fmt_lists_enabled_names(void **state)
{
    struct fixture *fx = *state;
    char buf[128];

    assert_int_equal(evsel_parse(&fx->sel, "exec_*", &fx->err), 0);
    evsel_fmt(&fx->sel, buf, sizeof(buf));
    assert_string_equal(buf, "exec_tb,exec_insn");
}

static void test_evsel_exec_insn_implies_tb_trans(void **state)
{
    struct fixture *fx = *state;

    assert_int_equal(evsel_parse(&fx->sel, "exec_insn", &fx->err), 0);
    assert_false(evsel_is_enabled(&fx->sel, TB_TRANS));
    evsel_apply_implications(&fx->sel);
    assert_true(evsel_is_enabled(&fx->sel, TB_TRANS));
    assert_false(evsel_is_enabled(&fx->sel, EXEC_TB));
}

static void test_evsel_exec_tb_implies_tb_trans(void **state)
{
    struct fixture *fx = *state;

    assert_int_equal(evsel_parse(&fx->sel, "exec_tb", &fx->err), 0);
    evsel_apply_implications(&fx->sel);
    assert_true(evsel_is_enabled(&fx->sel, TB_TRANS));
}

static void test_evsel_minus_tb_trans_beats_implication(void **state)
{
    struct fixture *fx = *state;

    assert_int_equal(evsel_parse(&fx->sel, "exec_*,-tb_*", &fx->err), 0);
    evsel_apply_implications(&fx->sel);
    assert_false(evsel_is_enabled(&fx->sel, TB_TRANS));
}

static void test_evsel_no_exec_implies_nothing(void **state)
{
    struct fixture *fx = *state;

    assert_int_equal(evsel_parse(&fx->sel, "mem_access", &fx->err), 0);
    evsel_apply_implications(&fx->sel);
    assert_false(evsel_is_enabled(&fx->sel, TB_TRANS));
}

static void test_evsel_func_events_bring_image_map(void **state)
{
    struct fixture *fx = *state;

    assert_int_equal(evsel_parse(&fx->sel, "func_*", &fx->err), 0);
    evsel_apply_implications(&fx->sel);
    assert_true(evsel_is_enabled(&fx->sel, FUNC_ENTRY));
    assert_true(evsel_is_enabled(&fx->sel, IMAGE_MAP));
    assert_false(evsel_is_enabled(&fx->sel, EXEC_TB));
}

static void test_evsel_minus_image_map_stays_removed(void **state)
{
    struct fixture *fx = *state;

    assert_int_equal(evsel_parse(&fx->sel, "func_exit,-image_map",
                                 &fx->err), 0);
    evsel_apply_implications(&fx->sel);
    assert_true(evsel_is_enabled(&fx->sel, FUNC_EXIT));
    assert_false(evsel_is_enabled(&fx->sel, IMAGE_MAP));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(
            test_evsel_defaults_skip_disabled_events, setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_evsel_positive_first_pattern_starts_empty, setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_evsel_minus_pattern_disables_match, setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_evsel_negative_first_pattern_keeps_defaults, setup,
            teardown),
        cmocka_unit_test_setup_teardown(
            test_evsel_semicolon_separates_like_comma, setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_evsel_unmatched_pattern_is_named, setup, teardown),
        cmocka_unit_test_setup_teardown(test_evsel_empty_spec_fails, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_evsel_bare_minus_fails, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(
            test_evsel_file_reads_patterns_and_comments, setup, teardown),
        cmocka_unit_test_setup_teardown(test_evsel_file_error_names_line,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_evsel_missing_file_gives_errno,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_evsel_fmt_lists_enabled_names,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_evsel_exec_insn_implies_tb_trans, setup, teardown),
        cmocka_unit_test_setup_teardown(test_evsel_exec_tb_implies_tb_trans,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_evsel_minus_tb_trans_beats_implication, setup, teardown),
        cmocka_unit_test_setup_teardown(test_evsel_no_exec_implies_nothing,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_evsel_func_events_bring_image_map, setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_evsel_minus_image_map_stays_removed, setup, teardown),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
