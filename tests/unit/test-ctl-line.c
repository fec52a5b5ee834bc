/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests of the control protocol's line reader and word splitter
 * (src/plugin/ctl/ctl-line.c): lines cut anywhere, "\r\n", the length
 * bound, quotes, and the errors they give.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ctl/ctl-line.h"

/* Feed all of text; the lines completed, joined by '|', into out. */
static void feed_all(struct ctl_line *lb, const char *text, char *out,
                     size_t out_len, int *too_long)
{
    size_t len = strlen(text), off = 0;

    out[0] = '\0';
    while (off < len) {
        enum ctl_line_status st;

        off += ctl_line_feed(lb, text + off, len - off, &st);
        if (st == CTL_LINE_READY) {
            strncat(out, lb->buf, out_len - strlen(out) - 2);
            strcat(out, "|");
        } else if (st == CTL_LINE_TOO_LONG) {
            (*too_long)++;
        }
    }
}

static void test_ctl_line_two_lines_in_one_read_split(void **state)
{
    struct ctl_line lb;
    char out[256];
    int too_long = 0;

    (void)state;
    ctl_line_init(&lb);
    feed_all(&lb, "stats\ninfo trace-events\n", out, sizeof(out), &too_long);
    assert_string_equal(out, "stats|info trace-events|");
    assert_int_equal(too_long, 0);
}

static void test_ctl_line_cut_anywhere_joined(void **state)
{
    struct ctl_line lb;
    char out[256];
    int too_long = 0;

    (void)state;
    ctl_line_init(&lb);
    feed_all(&lb, "trace-fi", out, sizeof(out), &too_long);
    assert_string_equal(out, "");
    feed_all(&lb, "le flu", out, sizeof(out), &too_long);
    assert_string_equal(out, "");
    feed_all(&lb, "sh\r\nhel", out, sizeof(out), &too_long);
    assert_string_equal(out, "trace-file flush|");
    feed_all(&lb, "p\n", out, sizeof(out), &too_long);
    assert_string_equal(out, "help|");
}

static void test_ctl_line_overlong_reported_once_then_next_line(void **state)
{
    struct ctl_line lb;
    char *big = malloc(3 * CTL_LINE_MAX + 1);
    char out[256];
    int too_long = 0;

    (void)state;
    memset(big, 'x', 3 * CTL_LINE_MAX);
    big[3 * CTL_LINE_MAX] = '\0';
    ctl_line_init(&lb);
    /* In pieces, as a socket gives it: one report, before the newline. */
    feed_all(&lb, big, out, sizeof(out), &too_long);
    assert_int_equal(too_long, 1);
    feed_all(&lb, big, out, sizeof(out), &too_long);
    assert_int_equal(too_long, 1);
    feed_all(&lb, "tail\nstats\n", out, sizeof(out), &too_long);
    assert_int_equal(too_long, 1);
    assert_string_equal(out, "stats|");
    free(big);
}

static void test_ctl_line_exact_bound_accepted(void **state)
{
    struct ctl_line lb;
    char *line = malloc(CTL_LINE_MAX + 2);
    char out[16];
    int too_long = 0;
    enum ctl_line_status st;

    (void)state;
    memset(line, 'a', CTL_LINE_MAX);
    line[CTL_LINE_MAX] = '\n';
    line[CTL_LINE_MAX + 1] = '\0';
    ctl_line_init(&lb);
    assert_int_equal(ctl_line_feed(&lb, line, CTL_LINE_MAX + 1, &st),
                     CTL_LINE_MAX + 1);
    assert_int_equal(st, CTL_LINE_READY);
    assert_int_equal(strlen(lb.buf), CTL_LINE_MAX);
    /* One byte more is too long. */
    line[CTL_LINE_MAX] = 'a';
    ctl_line_init(&lb);
    feed_all(&lb, line, out, sizeof(out), &too_long);
    feed_all(&lb, "a\n", out, sizeof(out), &too_long);
    assert_int_equal(too_long, 1);
    free(line);
}

static void test_ctl_line_split_words_and_quotes(void **state)
{
    char line[] = "  trace-file\tset \"/tmp/a b.qtr\"  ";
    char *words[CTL_MAX_WORDS];
    const char *why = NULL;

    (void)state;
    assert_int_equal(ctl_line_split(line, words, CTL_MAX_WORDS, &why), 3);
    assert_string_equal(words[0], "trace-file");
    assert_string_equal(words[1], "set");
    assert_string_equal(words[2], "/tmp/a b.qtr");
}

static void test_ctl_line_split_empty_is_zero_words(void **state)
{
    char line[] = " \t ";
    char *words[CTL_MAX_WORDS];
    const char *why = NULL;

    (void)state;
    assert_int_equal(ctl_line_split(line, words, CTL_MAX_WORDS, &why), 0);
}

static void test_ctl_line_split_unclosed_quote_fails(void **state)
{
    char line[] = "trace-file set \"/tmp/a";
    char *words[CTL_MAX_WORDS];
    const char *why = NULL;

    (void)state;
    assert_int_equal(ctl_line_split(line, words, CTL_MAX_WORDS, &why), -1);
    assert_string_equal(why, "unterminated quote");
}

static void test_ctl_line_split_too_many_words_fails(void **state)
{
    char line[] = "a b c d";
    char *words[3];
    const char *why = NULL;

    (void)state;
    assert_int_equal(ctl_line_split(line, words, 3, &why), -1);
    assert_string_equal(why, "too many words");
}

static void test_ctl_line_garbage_bytes_kept_as_a_line(void **state)
{
    static const char bytes[] = "\x01\xff\x7f garbage\n";
    struct ctl_line lb;
    enum ctl_line_status st;

    (void)state;
    ctl_line_init(&lb);
    assert_int_equal(ctl_line_feed(&lb, bytes, sizeof(bytes) - 1, &st),
                     sizeof(bytes) - 1);
    assert_int_equal(st, CTL_LINE_READY);
    assert_string_equal(lb.buf, "\x01\xff\x7f garbage");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ctl_line_two_lines_in_one_read_split),
        cmocka_unit_test(test_ctl_line_cut_anywhere_joined),
        cmocka_unit_test(test_ctl_line_overlong_reported_once_then_next_line),
        cmocka_unit_test(test_ctl_line_exact_bound_accepted),
        cmocka_unit_test(test_ctl_line_split_words_and_quotes),
        cmocka_unit_test(test_ctl_line_split_empty_is_zero_words),
        cmocka_unit_test(test_ctl_line_split_unclosed_quote_fails),
        cmocka_unit_test(test_ctl_line_split_too_many_words_fails),
        cmocka_unit_test(test_ctl_line_garbage_bytes_kept_as_a_line),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
