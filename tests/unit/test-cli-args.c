/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests of the qtrace command's argument logic: the -plugin value
 * record gives QEMU (src/cli/plugin-args.c) and the -e event filter of
 * the reading commands (src/cli/event-filter.c) with its "did you mean"
 * (src/cli/did-you-mean.c).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "did-you-mean.h"
#include "event-filter.h"
#include "plugin-args.h"

static const char catalog_text[] =
    "vcpu_init(uint32_t vcpu) \"vcpu %u\"\n"
    "exec_tb(uint64_t pc, uint32_t tb) \"pc 0x%\" PRIx64 \" tb %u\"\n"
    "disable exec_insn(uint64_t pc, uint32_t tb, uint16_t idx) "
    "\"pc 0x%\" PRIx64 \" tb %u insn %u\"\n"
    "disable mem_access(uint64_t pc, uint8_t size) "
    "\"pc 0x%\" PRIx64 \" size %u\"\n";

/* plugin_args_join() with the fields given, the result checked. */
static void check_join(const char *plugin, const char *out,
                       const char *events, char *const *opts, size_t n,
                       const char *want)
{
    struct plugin_args pa = { plugin, out, events, opts, n };
    char *got = plugin_args_join(&pa);

    assert_non_null(got);
    assert_string_equal(got, want);
    free(got);
}

static void test_plugin_args_plain_paths_pass_unchanged(void **state)
{
    (void)state;
    check_join("/opt/lib/libqtrace.so", "run.qtr", NULL, NULL, 0,
               "file=/opt/lib/libqtrace.so,out=run.qtr");
}

static void test_plugin_args_commas_in_paths_are_doubled(void **state)
{
    (void)state;
    check_join("/a,b/libqtrace.so", "x,y,z.qtr", NULL, NULL, 0,
               "file=/a,,b/libqtrace.so,out=x,,y,,z.qtr");
}

static void test_plugin_args_event_commas_become_semicolons(void **state)
{
    (void)state;
    check_join("p.so", "t.qtr", "exec_tb,mem_*,-mem_access", NULL, 0,
               "file=p.so,out=t.qtr,events=exec_tb;mem_*;-mem_access");
}

static void test_plugin_args_event_file_keeps_its_commas(void **state)
{
    (void)state;
    check_join("p.so", "t.qtr", "@ev,1.txt", NULL, 0,
               "file=p.so,out=t.qtr,events=@ev,,1.txt");
}

static void test_plugin_args_option_values_are_escaped(void **state)
{
    char *opts[] = { "chunk=64k", "log=a,b.txt", "empty=" };

    (void)state;
    check_join("p.so", "t.qtr", "exec_tb", opts, 3,
               "file=p.so,out=t.qtr,events=exec_tb,chunk=64k,"
               "log=a,,b.txt,empty=");
}

static void test_plugin_args_check_opt_accepts_key_value(void **state)
{
    (void)state;
    assert_null(plugin_args_check_opt("chunk=64k"));
    assert_null(plugin_args_check_opt("time.ns=on"));
    assert_null(plugin_args_check_opt("log=a=b"));
}

static void test_plugin_args_check_opt_rejects_bad_keys(void **state)
{
    (void)state;
    assert_non_null(plugin_args_check_opt("novalue"));
    assert_non_null(plugin_args_check_opt("=value"));
    assert_non_null(plugin_args_check_opt("a,b=1"));
    assert_non_null(plugin_args_check_opt("file=x.so"));
    assert_string_equal(plugin_args_check_opt("out=x"), "use -o FILE");
    assert_string_equal(plugin_args_check_opt("events=x"),
                        "use -e PATTERNS");
}

static int setup_catalog(void **state)
{
    struct qtrace_catalog *cat = calloc(1, sizeof(*cat));
    struct qtrace_err err;

    if (!cat || qtrace_catalog_parse(cat, catalog_text, &err) < 0) {
        free(cat);
        return -1;
    }
    *state = cat;
    return 0;
}

static int teardown_catalog(void **state)
{
    qtrace_catalog_fini(*state);
    free(*state);
    return 0;
}

/* Whether the filter shows the event called name. */
static bool shows(const struct event_filter *f,
                  const struct qtrace_catalog *cat, const char *name)
{
    const struct qtrace_event_desc *ev = qtrace_catalog_find(cat, name);

    assert_non_null(ev);
    return event_filter_has(f, ev->id);
}

static void test_event_filter_null_shows_every_event(void **state)
{
    const struct qtrace_catalog *cat = *state;
    struct event_filter f;

    assert_int_equal(event_filter_parse(&f, cat, NULL, NULL), 0);
    assert_true(shows(&f, cat, "vcpu_init"));
    /* Events the catalog disables by default are in the trace if shown. */
    assert_true(shows(&f, cat, "exec_insn"));
    assert_true(shows(&f, cat, "mem_access"));
}

static void test_event_filter_glob_first_shows_only_matches(void **state)
{
    const struct qtrace_catalog *cat = *state;
    struct event_filter f;

    assert_int_equal(event_filter_parse(&f, cat, "exec_*", NULL), 0);
    assert_true(shows(&f, cat, "exec_tb"));
    assert_true(shows(&f, cat, "exec_insn"));
    assert_false(shows(&f, cat, "vcpu_init"));
    assert_false(shows(&f, cat, "mem_access"));
}

static void test_event_filter_minus_first_hides_from_all(void **state)
{
    const struct qtrace_catalog *cat = *state;
    struct event_filter f;

    assert_int_equal(event_filter_parse(&f, cat, "-exec_insn", NULL), 0);
    assert_false(shows(&f, cat, "exec_insn"));
    assert_true(shows(&f, cat, "exec_tb"));
    assert_true(shows(&f, cat, "mem_access"));
}

static void test_event_filter_later_pattern_wins(void **state)
{
    const struct qtrace_catalog *cat = *state;
    struct event_filter f;

    assert_int_equal(event_filter_parse(&f, cat, "exec_*;-exec_tb, vcpu_*",
                                        NULL), 0);
    assert_false(shows(&f, cat, "exec_tb"));
    assert_true(shows(&f, cat, "exec_insn"));
    assert_true(shows(&f, cat, "vcpu_init"));
}

static void test_event_filter_typo_is_an_error(void **state)
{
    const struct qtrace_catalog *cat = *state;
    struct event_filter f;
    struct qtrace_err err;

    assert_int_equal(event_filter_parse(&f, cat, "exec_tb,mem_acess", &err),
                     -EINVAL);
    assert_string_equal(err.msg, "mem_acess: no event matches; did you "
                        "mean 'mem_access'?");
}

static void test_event_filter_far_word_gets_no_suggestion(void **state)
{
    const struct qtrace_catalog *cat = *state;
    struct event_filter f;
    struct qtrace_err err;

    assert_int_equal(event_filter_parse(&f, cat, "syscall", &err), -EINVAL);
    assert_string_equal(err.msg, "syscall: no event matches");
}

static void test_did_you_mean_distance_counts_edits(void **state)
{
    (void)state;
    assert_int_equal(did_you_mean_distance("mem_access", "mem_access"), 0);
    assert_int_equal(did_you_mean_distance("mem_acess", "mem_access"), 1);
    /* A swap of neighbours is one edit; case does not count. */
    assert_int_equal(did_you_mean_distance("mem_accses", "mem_access"), 1);
    assert_int_equal(did_you_mean_distance("MEM_ACCESS", "mem_access"), 0);
    assert_int_equal(did_you_mean_distance("", "abc"), 3);
    assert_int_equal(did_you_mean_distance("kitten", "sitting"), 3);
}

static void test_did_you_mean_picks_closest_within_limit(void **state)
{
    static const char *const names[] = { "exec_tb", "exec_insn", "list" };
    struct did_you_mean dym;
    size_t i;

    (void)state;
    did_you_mean_init(&dym, "exec_ins");
    for (i = 0; i < 3; i++) {
        did_you_mean_consider(&dym, names[i]);
    }
    assert_string_equal(did_you_mean_result(&dym), "exec_insn");
    /* "lst" is one edit from "list"; "xyz" three from all: too far. */
    did_you_mean_init(&dym, "lst");
    did_you_mean_consider(&dym, "list");
    assert_string_equal(did_you_mean_result(&dym), "list");
    did_you_mean_init(&dym, "xyz");
    did_you_mean_consider(&dym, "list");
    assert_null(did_you_mean_result(&dym));
}

static void test_event_filter_empty_list_is_an_error(void **state)
{
    const struct qtrace_catalog *cat = *state;
    struct event_filter f;
    struct qtrace_err err;

    assert_int_equal(event_filter_parse(&f, cat, " , ", &err), -EINVAL);
    assert_string_equal(err.msg, "' , ': no pattern given");
    assert_int_equal(event_filter_parse(&f, cat, "exec_tb,-", &err),
                     -EINVAL);
}

int main(void)
{
    const struct CMUnitTest plugin_args[] = {
        cmocka_unit_test(test_plugin_args_plain_paths_pass_unchanged),
        cmocka_unit_test(test_plugin_args_commas_in_paths_are_doubled),
        cmocka_unit_test(test_plugin_args_event_commas_become_semicolons),
        cmocka_unit_test(test_plugin_args_event_file_keeps_its_commas),
        cmocka_unit_test(test_plugin_args_option_values_are_escaped),
        cmocka_unit_test(test_plugin_args_check_opt_accepts_key_value),
        cmocka_unit_test(test_plugin_args_check_opt_rejects_bad_keys),
    };
    const struct CMUnitTest event_filter[] = {
        cmocka_unit_test(test_event_filter_null_shows_every_event),
        cmocka_unit_test(test_event_filter_glob_first_shows_only_matches),
        cmocka_unit_test(test_event_filter_minus_first_hides_from_all),
        cmocka_unit_test(test_event_filter_later_pattern_wins),
        cmocka_unit_test(test_event_filter_typo_is_an_error),
        cmocka_unit_test(test_event_filter_far_word_gets_no_suggestion),
        cmocka_unit_test(test_did_you_mean_distance_counts_edits),
        cmocka_unit_test(test_did_you_mean_picks_closest_within_limit),
        cmocka_unit_test(test_event_filter_empty_list_is_an_error),
    };
    int failed = cmocka_run_group_tests(plugin_args, NULL, NULL);

    failed += cmocka_run_group_tests(event_filter, setup_catalog,
                                     teardown_catalog);
    return failed ? 1 : 0;
}
