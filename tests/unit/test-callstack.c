/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for src/format/callstack.c: balanced sequences, exits that
 * skip frames (longjmp), entries that resynchronise by depth, unknown
 * exits, closing at the end, and the child times used for self time.
 * Each test lists the events the stack must report, written by hand.
 */
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "qtrace/callstack.h"

/* What the stack reported, as "+pc@depth" and "-pc@depth:time[!]" words. */
struct log {
    char text[1024];
};

static void log_add(struct log *lg, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void log_add(struct log *lg, const char *fmt, ...)
{
    size_t len = strlen(lg->text);
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(lg->text + len, sizeof(lg->text) - len, fmt, ap);
    va_end(ap);
}

static void on_enter(void *arg, const struct qtrace_frame *f, uint32_t depth)
{
    log_add(arg, " +%" PRIx64 "@%u", f->pc, depth);
}

static void on_leave(void *arg, const struct qtrace_frame *f, uint32_t depth,
                     uint64_t time, bool forced)
{
    log_add(arg, " -%" PRIx64 "@%u:%" PRIu64 "%s", f->pc, depth,
            time - f->start, forced ? "!" : "");
}

static const struct qtrace_callstack_ops ops = { on_enter, on_leave };

static void test_callstack_balanced_nesting_reports_durations(void **state)
{
    struct qtrace_callstack cs;
    struct log lg = { "" };

    (void)state;
    qtrace_callstack_init(&cs);
    assert_int_equal(qtrace_callstack_enter(&cs, 0xa, 0, 1, 10, &ops, &lg),
                     0);
    assert_int_equal(qtrace_callstack_enter(&cs, 0xb, 0, 2, 12, &ops, &lg),
                     0);
    assert_true(qtrace_callstack_leave(&cs, 0xb, 20, &ops, &lg));
    assert_int_equal(cs.frames[0].child_time, 8);
    assert_true(qtrace_callstack_leave(&cs, 0xa, 30, &ops, &lg));
    assert_string_equal(lg.text, " +a@1 +b@2 -b@2:8 -a@1:20");
    assert_int_equal(cs.depth, 0);
    assert_int_equal(cs.forced, 0);
    qtrace_callstack_fini(&cs);
}

static void test_callstack_recursion_matches_innermost(void **state)
{
    struct qtrace_callstack cs;
    struct log lg = { "" };

    (void)state;
    qtrace_callstack_init(&cs);
    qtrace_callstack_enter(&cs, 0xf, 0, 1, 0, &ops, &lg);
    qtrace_callstack_enter(&cs, 0xf, 0, 2, 5, &ops, &lg);
    qtrace_callstack_leave(&cs, 0xf, 7, &ops, &lg);
    qtrace_callstack_leave(&cs, 0xf, 9, &ops, &lg);
    assert_string_equal(lg.text, " +f@1 +f@2 -f@2:2 -f@1:9");
    qtrace_callstack_fini(&cs);
}

/* longjmp: the exit of an outer frame closes the inner ones first. */
static void test_callstack_outer_exit_closes_inner_frames(void **state)
{
    struct qtrace_callstack cs;
    struct log lg = { "" };

    (void)state;
    qtrace_callstack_init(&cs);
    qtrace_callstack_enter(&cs, 0xa, 0, 1, 0, &ops, &lg);
    qtrace_callstack_enter(&cs, 0xb, 0, 2, 1, &ops, &lg);
    qtrace_callstack_enter(&cs, 0xc, 0, 3, 2, &ops, &lg);
    assert_true(qtrace_callstack_leave(&cs, 0xa, 10, &ops, &lg));
    assert_string_equal(lg.text,
                        " +a@1 +b@2 +c@3 -c@3:8! -b@2:9! -a@1:10");
    assert_int_equal(cs.forced, 2);
    qtrace_callstack_fini(&cs);
}

static void test_callstack_unknown_exit_is_counted(void **state)
{
    struct qtrace_callstack cs;
    struct log lg = { "" };

    (void)state;
    qtrace_callstack_init(&cs);
    qtrace_callstack_enter(&cs, 0xa, 0, 1, 0, &ops, &lg);
    assert_false(qtrace_callstack_leave(&cs, 0xb, 3, &ops, &lg));
    assert_int_equal(cs.unmatched, 1);
    assert_int_equal(cs.depth, 1);
    assert_string_equal(lg.text, " +a@1");
    qtrace_callstack_fini(&cs);
}

/* An entry at depth 2 while 3 frames are open: two of them were lost. */
static void test_callstack_entry_depth_resynchronises(void **state)
{
    struct qtrace_callstack cs;
    struct log lg = { "" };

    (void)state;
    qtrace_callstack_init(&cs);
    qtrace_callstack_enter(&cs, 0xa, 0, 1, 0, &ops, &lg);
    qtrace_callstack_enter(&cs, 0xb, 0, 2, 1, &ops, &lg);
    qtrace_callstack_enter(&cs, 0xc, 0, 3, 2, &ops, &lg);
    qtrace_callstack_enter(&cs, 0xd, 0, 2, 6, &ops, &lg);
    /* depth 0: no resynchronisation, a plain push. */
    qtrace_callstack_enter(&cs, 0xe, 0, 0, 7, &ops, &lg);
    assert_string_equal(lg.text,
                        " +a@1 +b@2 +c@3 -c@3:4! -b@2:5! +d@2 +e@3");
    assert_int_equal(cs.frames[0].child_time, 5);
    qtrace_callstack_fini(&cs);
}

static void test_callstack_close_ends_every_frame(void **state)
{
    struct qtrace_callstack cs;
    struct log lg = { "" };
    int i;

    (void)state;
    qtrace_callstack_init(&cs);
    /* Past the first allocation (64 frames). */
    for (i = 0; i < 100; i++) {
        assert_int_equal(qtrace_callstack_enter(&cs, (uint64_t)i, 0, 0,
                                                (uint64_t)i, NULL, NULL),
                         0);
    }
    assert_int_equal(cs.depth, 100);
    qtrace_callstack_close(&cs, 200, &ops, &lg);
    assert_int_equal(cs.depth, 0);
    assert_int_equal(cs.forced, 100);
    assert_non_null(strstr(lg.text, " -63@100:101! -62@99:102!"));
    qtrace_callstack_fini(&cs);
}

/*
 * System mode: two tasks' stacks on one stream, switched by func_stack.
 * Each keeps its frames and depths while the other runs (no frame is
 * closed by the other's entry at the same depth), and the end closes
 * both, the current one first.
 */
static void test_callstack_switch_keeps_each_task(void **state)
{
    struct qtrace_callstack cs;
    struct log lg = { "" };

    (void)state;
    qtrace_callstack_init(&cs);
    qtrace_callstack_enter(&cs, 0xa, 0, 1, 0, &ops, &lg);
    qtrace_callstack_enter(&cs, 0xb, 0, 2, 1, &ops, &lg);
    assert_int_equal(qtrace_callstack_switch(&cs, 7, false), 0);
    assert_int_equal(cs.depth, 0);
    qtrace_callstack_enter(&cs, 0xc, 0, 1, 5, &ops, &lg);
    qtrace_callstack_enter(&cs, 0xd, 0, 2, 6, &ops, &lg);
    assert_true(qtrace_callstack_leave(&cs, 0xd, 8, &ops, &lg));
    assert_int_equal(qtrace_callstack_switch(&cs, 0, false), 0);
    assert_int_equal(cs.depth, 2);
    assert_true(qtrace_callstack_leave(&cs, 0xb, 20, &ops, &lg));
    /* The user level of task 7 is a stack of its own. */
    assert_int_equal(qtrace_callstack_switch(&cs, 7, true), 0);
    assert_int_equal(cs.depth, 0);
    qtrace_callstack_close(&cs, 30, &ops, &lg);
    assert_string_equal(lg.text,
                        " +a@1 +b@2 +c@1 +d@2 -d@2:2 -b@2:19"
                        " -c@1:25! -a@1:30!");
    assert_int_equal(cs.forced, 2);
    assert_int_equal(cs.unmatched, 0);
    qtrace_callstack_fini(&cs);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_callstack_balanced_nesting_reports_durations),
        cmocka_unit_test(test_callstack_recursion_matches_innermost),
        cmocka_unit_test(test_callstack_outer_exit_closes_inner_frames),
        cmocka_unit_test(test_callstack_unknown_exit_is_counted),
        cmocka_unit_test(test_callstack_entry_depth_resynchronises),
        cmocka_unit_test(test_callstack_close_ends_every_frame),
        cmocka_unit_test(test_callstack_switch_keeps_each_task),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
