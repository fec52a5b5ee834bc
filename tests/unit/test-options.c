/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests of the plugin's option parsing (src/plugin/options.c): every
 * key, defaults, the one-line errors for bad keys and values, and how
 * instr-arg= binds to instr=.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "options.h"
#include "qtrace/trace-control.h"

static const char catalog_text[] =
    "exec_tb(uint64_t pc) \"pc 0x%\" PRIx64\n"
    "disable mem_access(uint64_t vaddr) \"vaddr 0x%\" PRIx64\n";

struct fixture {
    struct qtrace_catalog cat;
    struct options opts;
    struct qtrace_err err;
};

static int setup(void **state)
{
    struct fixture *fx = calloc(1, sizeof(*fx));

    assert_non_null(fx);
    assert_int_equal(qtrace_catalog_parse(&fx->cat, catalog_text, &fx->err),
                     0);
    options_init(&fx->opts, &fx->cat);
    *state = fx;
    return 0;
}

static int teardown(void **state)
{
    struct fixture *fx = *state;

    options_fini(&fx->opts);
    qtrace_catalog_fini(&fx->cat);
    free(fx);
    return 0;
}

/* Parse a NULL-terminated list of arguments. */
static int parse(struct fixture *fx, char **argv)
{
    int argc = 0;

    while (argv[argc]) {
        argc++;
    }
    return options_parse(&fx->opts, argc, argv, &fx->err);
}

static void test_options_defaults_without_arguments(void **state)
{
    struct fixture *fx = *state;
    char *argv[] = { NULL };

    assert_int_equal(parse(fx, argv), 0);
    assert_null(fx->opts.out);
    assert_null(fx->opts.log);
    assert_int_equal(fx->opts.chunk_bytes, 1 << 20);
    assert_int_equal(fx->opts.buffer_bytes, 64 << 20);
    assert_true(fx->opts.compress);
    assert_int_equal(fx->opts.zstd_level, 1);
    assert_true(evsel_is_enabled(&fx->opts.sel, 1));
    assert_false(evsel_is_enabled(&fx->opts.sel, 2));
}

static void test_options_all_keys_accepted(void **state)
{
    struct fixture *fx = *state;
    char *argv[] = { "out=t.qtr", "log=stderr", "events=mem_*",
                     "range=0x1000-0x2000", "range=4096-8192",
                     "ifilter=ldr", "afilter=0x400010", "chunk=128k",
                     "buffer=8M", NULL };

    assert_int_equal(parse(fx, argv), 0);
    assert_string_equal(fx->opts.out, "t.qtr");
    assert_string_equal(fx->opts.log, "stderr");
    assert_false(evsel_is_enabled(&fx->opts.sel, 1));
    assert_true(evsel_is_enabled(&fx->opts.sel, 2));
    assert_int_equal(fx->opts.filter.n_ranges, 2);
    assert_int_equal(fx->opts.filter.range_start[0], 0x1000);
    assert_int_equal(fx->opts.filter.range_end[1], 8192);
    assert_int_equal(fx->opts.filter.n_iprefix, 1);
    assert_int_equal(fx->opts.filter.addr[0], 0x400010);
    assert_int_equal(fx->opts.chunk_bytes, 128 << 10);
    assert_int_equal(fx->opts.buffer_bytes, 8 << 20);
}

static void test_options_unknown_key_is_named(void **state)
{
    struct fixture *fx = *state;
    char *argv[] = { "out=x", "bogus=1", NULL };

    assert_int_equal(parse(fx, argv), -EINVAL);
    assert_non_null(strstr(fx->err.msg, "bogus=1: unknown option (known: "
                           "out, events"));
}

static void test_options_missing_equals_is_refused(void **state)
{
    struct fixture *fx = *state;
    char *argv[] = { "verbose", NULL };

    assert_int_equal(parse(fx, argv), -EINVAL);
    assert_string_equal(fx->err.msg, "verbose: expected KEY=VALUE");
}

static void test_options_event_error_not_echoed_twice(void **state)
{
    struct fixture *fx = *state;
    char *argv[] = { "events=mem_acess", NULL };

    assert_int_equal(parse(fx, argv), -EINVAL);
    assert_string_equal(fx->err.msg, "events=mem_acess: no event matches");
}

static void test_options_event_error_in_list_names_pattern(void **state)
{
    struct fixture *fx = *state;
    char *argv[] = { "events=exec_tb;nope", NULL };

    assert_int_equal(parse(fx, argv), -EINVAL);
    assert_string_equal(fx->err.msg,
                        "events=exec_tb;nope: nope: no event matches");
}

static void test_options_bad_sizes_are_refused(void **state)
{
    struct fixture *fx = *state;
    char *small[] = { "chunk=1", NULL };
    char *suffix[] = { "chunk=12q", NULL };
    char *neg[] = { "buffer=-5M", NULL };
    char *tight[] = { "chunk=1M", "buffer=1M", NULL };

    assert_int_equal(parse(fx, small), -EINVAL);
    assert_non_null(strstr(fx->err.msg, "chunk=1: expected a size"));
    assert_int_equal(parse(fx, suffix), -EINVAL);
    assert_int_equal(parse(fx, neg), -EINVAL);
    assert_int_equal(parse(fx, tight), -EINVAL);
    assert_non_null(strstr(fx->err.msg, "at least two chunks"));
}

static void test_options_compress_levels(void **state)
{
    struct fixture *fx = *state;
    char *off[] = { "compress=off", NULL };
    char *fast[] = { "compress=zstd:-5", NULL };
    char *plain[] = { "compress=zstd", NULL };
    char *high[] = { "compress=zstd:99", NULL };
    char *junk[] = { "compress=zstd:3x", NULL };
    char *other[] = { "compress=lz4", NULL };
    char *prefix[] = { "compress=zstdx", NULL };

    assert_int_equal(parse(fx, off), 0);
    assert_false(fx->opts.compress);
    assert_int_equal(parse(fx, fast), 0);
    assert_true(fx->opts.compress);
    assert_int_equal(fx->opts.zstd_level, -5);
    assert_int_equal(parse(fx, plain), 0);
    assert_true(fx->opts.compress);
    assert_int_equal(fx->opts.zstd_level, -5);     /* level kept */
    assert_int_equal(parse(fx, high), -EINVAL);
    assert_non_null(strstr(fx->err.msg, "compress=zstd:99: expected a zstd "
                           "level from -"));
    assert_int_equal(parse(fx, junk), -EINVAL);
    assert_int_equal(parse(fx, other), -EINVAL);
    assert_string_equal(fx->err.msg, "compress=lz4: expected zstd, "
                        "zstd:LEVEL or off");
    assert_int_equal(parse(fx, prefix), -EINVAL);
}

static void test_options_empty_path_is_refused(void **state)
{
    struct fixture *fx = *state;
    char *argv[] = { "out=", NULL };

    assert_int_equal(parse(fx, argv), -EINVAL);
    assert_string_equal(fx->err.msg, "out=: empty value");
}

static void test_options_backends(void **state)
{
    struct fixture *fx = *state;
    char *both[] = { "backend=log;simple", "backend-file=t.st",
                     "backend-log=t.log", NULL };
    char *commas[] = { "backend=syslog,ftrace", "backend-log=stderr", NULL };
    char *ust[] = { "backend=log;ust", NULL };
    char *dtrace[] = { "backend=dtrace", NULL };
    char *typo[] = { "backend=simpel", NULL };
    char *empty[] = { "backend=log;", NULL };
    char *file_alone[] = { "backend=log", "backend-file=t.st", NULL };

    assert_int_equal(parse(fx, commas), 0);
    assert_int_equal(fx->opts.backends, QTRACE_TRACE_BACKEND_SYSLOG |
                                        QTRACE_TRACE_BACKEND_FTRACE);
    assert_null(fx->opts.backend_log);
    /* Before both: its backend-file= would stay and be refused. */
#if QTRACE_PLUGIN_HAVE_UST
    assert_int_equal(parse(fx, ust), 0);
    assert_int_equal(fx->opts.backends,
                     QTRACE_TRACE_BACKEND_LOG | QTRACE_TRACE_BACKEND_UST);
#else
    assert_int_equal(parse(fx, ust), -EINVAL);
    assert_string_equal(fx->err.msg, "backend=log;ust: ust: not in this "
                        "build of the plugin (liblttng-ust-dev was not "
                        "found when it was configured)");
#endif
#if QTRACE_PLUGIN_HAVE_DTRACE
    assert_int_equal(parse(fx, dtrace), 0);
    assert_int_equal(fx->opts.backends, QTRACE_TRACE_BACKEND_DTRACE);
#else
    assert_int_equal(parse(fx, dtrace), -EINVAL);
    assert_string_equal(fx->err.msg, "backend=dtrace: dtrace: not in this "
                        "build of the plugin (systemtap-sdt-dev was not "
                        "found when it was configured)");
#endif
    assert_int_equal(parse(fx, both), 0);
    assert_int_equal(fx->opts.backends,
                     QTRACE_TRACE_BACKEND_LOG | QTRACE_TRACE_BACKEND_SIMPLE);
    assert_string_equal(fx->opts.backend_file, "t.st");
    assert_string_equal(fx->opts.backend_log, "t.log");
    assert_int_equal(parse(fx, typo), -EINVAL);
    assert_string_equal(fx->err.msg, "backend=simpel: unknown backend "
                        "(known: log, simple, ftrace, syslog, ust, "
                        "dtrace)");
    assert_int_equal(parse(fx, empty), -EINVAL);
    assert_int_equal(parse(fx, file_alone), -EINVAL);
    assert_string_equal(fx->err.msg,
                        "backend-file=t.st: needs backend=simple");
}

/* Each instr-arg= belongs to the last instr= before it, in order. */
static void test_options_instr_args_bind_to_last_instr(void **state)
{
    struct fixture *fx = *state;
    char *argv[] = { "instr=a.so", "instr-arg=1", "instr-arg=2",
                     "instr=b.so", "instr=c.so", "instr-arg=3", NULL };
    const struct instr_spec *in;

    assert_int_equal(parse(fx, argv), 0);
    assert_int_equal(fx->opts.n_instr, 3);
    in = fx->opts.instr;
    assert_string_equal(in[0].path, "a.so");
    assert_int_equal(in[0].argc, 2);
    assert_string_equal(in[0].argv[0], "1");
    assert_string_equal(in[0].argv[1], "2");
    assert_null(in[0].argv[2]);
    assert_string_equal(in[1].path, "b.so");
    assert_int_equal(in[1].argc, 0);
    assert_string_equal(in[2].path, "c.so");
    assert_int_equal(in[2].argc, 1);
    assert_string_equal(in[2].argv[0], "3");
}

static void test_options_instr_arg_needs_instr(void **state)
{
    struct fixture *fx = *state;
    char *argv[] = { "instr-arg=x", "instr=a.so", NULL };

    assert_int_equal(parse(fx, argv), -EINVAL);
    assert_non_null(strstr(fx->err.msg, "instr-arg=x: no instr= before it"));
}

static void test_options_empty_instr_is_refused(void **state)
{
    struct fixture *fx = *state;
    char *argv[] = { "instr=", NULL };

    assert_int_equal(parse(fx, argv), -EINVAL);
    assert_non_null(strstr(fx->err.msg, "empty value"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(
            test_options_defaults_without_arguments, setup, teardown),
        cmocka_unit_test_setup_teardown(test_options_all_keys_accepted,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_options_unknown_key_is_named,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_options_missing_equals_is_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_options_event_error_not_echoed_twice, setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_options_event_error_in_list_names_pattern, setup, teardown),
        cmocka_unit_test_setup_teardown(test_options_bad_sizes_are_refused,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_options_compress_levels,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_options_empty_path_is_refused,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_options_backends, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(
            test_options_instr_args_bind_to_last_instr, setup, teardown),
        cmocka_unit_test_setup_teardown(test_options_instr_arg_needs_instr,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_options_empty_instr_is_refused,
                                        setup, teardown),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
