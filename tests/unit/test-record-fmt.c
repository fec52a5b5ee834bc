/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for src/format/record-fmt.c (qtrace_record_fmt). Event
 * descriptions and records are built by hand here, by the layout rule of
 * docs/format.md, so these tests do not depend on the catalog parser.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "chunk.h"
#include "qtrace/reader.h"

/* An event and one record of it, built argument by argument. */
struct build {
    struct qtrace_event_desc ev;
    uint8_t fixed[256];             /* header and fixed arguments */
    uint8_t var[256];               /* variable bytes, in order */
    size_t var_len;
    uint8_t *rec;                   /* malloc'ed, exactly rec_size bytes */
    struct qtrace_record r;
};

static void build_init(struct build *b, const char *fmt)
{
    memset(b, 0, sizeof(*b));
    b->ev.id = 1;
    strcpy(b->ev.name, "ev");
    b->ev.fmt = (char *)fmt;
    b->ev.fixed_size = 16;
}

/* Add an argument of size bytes at its natural alignment. */
static uint8_t *add_arg(struct build *b, enum qtrace_arg_type type,
                        uint16_t size)
{
    struct qtrace_arg_desc *a = &b->ev.args[b->ev.n_args];
    uint16_t off = (uint16_t)((b->ev.fixed_size + size - 1) & ~(size - 1));

    assert_true(b->ev.n_args < QTRACE_MAX_ARGS);
    snprintf(a->name, sizeof(a->name), "a%u", b->ev.n_args);
    a->type = type;
    a->offset = off;
    a->size = size;
    b->ev.n_args++;
    b->ev.fixed_size = (uint16_t)(off + size);
    return b->fixed + off;
}

static void add_int(struct build *b, enum qtrace_arg_type type,
                    uint16_t size, uint64_t v)
{
    uint8_t *p = add_arg(b, type, size);
    uint16_t i;

    for (i = 0; i < size; i++) {
        p[i] = (uint8_t)(v >> (8 * i));
    }
}

static void add_var(struct build *b, enum qtrace_arg_type type,
                    const void *bytes, size_t len)
{
    uint8_t *p = add_arg(b, type, 2);

    p[0] = (uint8_t)len;
    p[1] = (uint8_t)(len >> 8);
    memcpy(b->var + b->var_len, bytes, len);
    b->var_len += len;
    b->ev.has_var = true;
}

/* Lay out the record in a buffer of exactly its size (for ASan). */
static const struct qtrace_record *build_rec(struct build *b)
{
    uint32_t size = qtrace_rec_size(b->ev.fixed_size,
                                    (uint32_t)b->var_len);

    b->rec = calloc(1, size);
    assert_non_null(b->rec);
    memcpy(b->rec, b->fixed, b->ev.fixed_size);
    memcpy(b->rec + b->ev.fixed_size, b->var, b->var_len);
    b->rec[0] = 1;
    b->rec[2] = (uint8_t)size;
    b->r.ev = &b->ev;
    b->r.data = b->rec;
    b->r.size = size;
    return &b->r;
}

/*
 * Format rec into a roomy buffer, check the text and the return value;
 * the same through the event's parsed format.
 */
static void check_fmt(const struct qtrace_record *rec, const char *want)
{
    struct qtrace_fmt *fmt = qtrace_fmt_new(rec->ev);
    char buf[2048];

    assert_int_equal(qtrace_record_fmt(rec, buf, sizeof(buf)),
                     (int)strlen(want));
    assert_string_equal(buf, want);
    assert_non_null(fmt);
    memset(buf, 'X', sizeof(buf));
    assert_int_equal(qtrace_fmt_record(fmt, rec, buf, sizeof(buf)),
                     (int)strlen(want));
    assert_string_equal(buf, want);
    qtrace_fmt_free(fmt);
}

static void test_record_fmt_unsigned_types_print_by_conversion(void **st)
{
    struct build b;

    (void)st;
    build_init(&b, "%u %x %X %o %d|%u %llx|%hhu %u");
    add_int(&b, QTRACE_ARG_U32, 4, 0xbeef);
    add_int(&b, QTRACE_ARG_U32, 4, 0xbeef);
    add_int(&b, QTRACE_ARG_U32, 4, 0xbeef);
    add_int(&b, QTRACE_ARG_U32, 4, 8);
    add_int(&b, QTRACE_ARG_U32, 4, 0xffffffffu);  /* %d: type decides */
    add_int(&b, QTRACE_ARG_U64, 8, UINT64_MAX);
    add_int(&b, QTRACE_ARG_U64, 8, 0x400080);
    add_int(&b, QTRACE_ARG_U16, 2, 0x1234);       /* %hhu: not cut */
    add_int(&b, QTRACE_ARG_U8, 1, 200);
    check_fmt(build_rec(&b), "48879 beef BEEF 10 4294967295|"
              "18446744073709551615 400080|4660 200");
    free(b.rec);
}

static void test_record_fmt_signed_types_print_signed(void **st)
{
    struct build b;

    (void)st;
    build_init(&b, "%d %i %lld %d %u|%x %x");
    add_int(&b, QTRACE_ARG_I8, 1, (uint8_t)-5);
    add_int(&b, QTRACE_ARG_I16, 2, (uint16_t)-300);
    add_int(&b, QTRACE_ARG_I64, 8, (uint64_t)INT64_MIN);
    add_int(&b, QTRACE_ARG_I32, 4, 7);
    add_int(&b, QTRACE_ARG_I32, 4, (uint32_t)-1);
    add_int(&b, QTRACE_ARG_I8, 1, (uint8_t)-5);   /* bits of the width */
    add_int(&b, QTRACE_ARG_I32, 4, (uint32_t)-1);
    check_fmt(build_rec(&b), "-5 -300 -9223372036854775808 7 -1|"
              "fb ffffffff");
    free(b.rec);
}

static void test_record_fmt_flags_width_precision_apply(void **st)
{
    struct build b;

    (void)st;
    build_init(&b, "[%08x][%-6u][%+d][%5d][%.3u][%#x][%*u][%-*u]");
    add_int(&b, QTRACE_ARG_U32, 4, 0xbeef);
    add_int(&b, QTRACE_ARG_U32, 4, 42);
    add_int(&b, QTRACE_ARG_I32, 4, 5);
    add_int(&b, QTRACE_ARG_I16, 2, (uint16_t)-12);
    add_int(&b, QTRACE_ARG_U8, 1, 7);
    add_int(&b, QTRACE_ARG_U32, 4, 255);
    add_int(&b, QTRACE_ARG_I32, 4, 4);            /* '*' width */
    add_int(&b, QTRACE_ARG_U32, 4, 9);
    add_int(&b, QTRACE_ARG_I32, 4, 3);
    add_int(&b, QTRACE_ARG_U32, 4, 1);
    check_fmt(build_rec(&b), "[0000beef][42    ][+5][  -12][007][0xff]"
              "[   9][1  ]");
    free(b.rec);
}

/* As printf: a negative '*' width left-justifies, '*' precision cuts. */
static void test_record_fmt_star_arguments_from_the_record(void **st)
{
    struct build b;

    (void)st;
    build_init(&b, "[%*u][%.*s][%*d]");
    add_int(&b, QTRACE_ARG_I32, 4, (uint32_t)-4);
    add_int(&b, QTRACE_ARG_U32, 4, 9);
    add_int(&b, QTRACE_ARG_I32, 4, 2);
    add_var(&b, QTRACE_ARG_STR, "abc", 3);
    add_int(&b, QTRACE_ARG_I32, 4, 3);
    add_int(&b, QTRACE_ARG_I32, 4, (uint32_t)-5);
    check_fmt(build_rec(&b), "[9   ][ab][ -5]");
    free(b.rec);
}

static void test_record_fmt_bool_char_pointer(void **st)
{
    struct build b;

    (void)st;
    build_init(&b, "%d %s %s %c%c %p %10p|");
    add_int(&b, QTRACE_ARG_BOOL, 1, 1);
    add_int(&b, QTRACE_ARG_BOOL, 1, 1);
    add_int(&b, QTRACE_ARG_BOOL, 1, 0);
    add_int(&b, QTRACE_ARG_U8, 1, 'A');
    add_int(&b, QTRACE_ARG_U8, 1, 0);
    add_int(&b, QTRACE_ARG_U64, 8, 0x400080);
    add_int(&b, QTRACE_ARG_U64, 8, 0x10);
    check_fmt(build_rec(&b), "1 true false A\\x00 0x400080       0x10|");
    free(b.rec);
}

static void test_record_fmt_str_escapes_and_pads(void **st)
{
    static const char raw[] = "a\nb\x01\\c\t\x7f\xff";
    struct build b;

    (void)st;
    build_init(&b, "<%s> [%6s] [%-6s] [%.2s] [%s] %d");
    add_var(&b, QTRACE_ARG_STR, raw, sizeof(raw) - 1);
    add_var(&b, QTRACE_ARG_STR, "abc", 3);
    add_var(&b, QTRACE_ARG_STR, "abc", 3);
    add_var(&b, QTRACE_ARG_STR, "abc", 3);
    add_var(&b, QTRACE_ARG_STR, "", 0);
    add_int(&b, QTRACE_ARG_I32, 4, (uint32_t)-3);
    check_fmt(build_rec(&b), "<a\\nb\\x01\\\\c\\t\\x7f\\xff> [   abc] "
              "[abc   ] [ab] [] -3");
    free(b.rec);
}

static void test_record_fmt_bytes_print_as_hex(void **st)
{
    static const uint8_t code[] = { 0xde, 0xad, 0xbe, 0xef, 0x00, 0x01 };
    struct build b;

    (void)st;
    build_init(&b, "tb %u code %s pc 0x%x tag %s");
    add_int(&b, QTRACE_ARG_U32, 4, 3);
    add_var(&b, QTRACE_ARG_BYTES, code, sizeof(code));
    add_int(&b, QTRACE_ARG_U64, 8, 0x400080);
    add_var(&b, QTRACE_ARG_STR, "t", 1);
    check_fmt(build_rec(&b), "tb 3 code deadbeef0001 pc 0x400080 tag t");
    free(b.rec);
}

static void test_record_fmt_percent_and_unknown_conversions(void **st)
{
    struct build b;

    (void)st;
    build_init(&b, "100%% %f %n %u%");
    add_int(&b, QTRACE_ARG_U32, 4, 5);
    check_fmt(build_rec(&b), "100% %f %n 5%");
    free(b.rec);
}

static void test_record_fmt_too_few_args_print_question_mark(void **st)
{
    struct build b;

    (void)st;
    build_init(&b, "a %u b %s c %x");
    add_int(&b, QTRACE_ARG_U32, 4, 1);
    check_fmt(build_rec(&b), "a 1 b ? c ?");
    free(b.rec);

    build_init(&b, "no args %d");
    check_fmt(build_rec(&b), "no args ?");
    free(b.rec);
}

static void test_record_fmt_small_buffer_truncates_like_snprintf(void **st)
{
    struct build b;
    char buf[8];
    const struct qtrace_record *rec;

    (void)st;
    build_init(&b, "pc 0x%llx name %s");
    add_int(&b, QTRACE_ARG_U64, 8, 0x400080);
    add_var(&b, QTRACE_ARG_STR, "main", 4);
    rec = build_rec(&b);
    assert_int_equal(qtrace_record_fmt(rec, NULL, 0), 21);
    memset(buf, 'X', sizeof(buf));
    assert_int_equal(qtrace_record_fmt(rec, buf, 1), 21);
    assert_string_equal(buf, "");
    assert_int_equal(qtrace_record_fmt(rec, buf, 5), 21);
    assert_string_equal(buf, "pc 0");
    assert_int_equal(buf[5], 'X');                  /* nothing past len */
    assert_int_equal(qtrace_record_fmt(rec, buf, sizeof(buf)), 21);
    assert_string_equal(buf, "pc 0x40");
    free(b.rec);
}

static void test_record_fmt_huge_width_is_clamped(void **st)
{
    struct build b;

    (void)st;
    build_init(&b, "%99999999999u");
    add_int(&b, QTRACE_ARG_U32, 4, 1);
    assert_int_equal(qtrace_record_fmt(build_rec(&b), NULL, 0), 1024);
    free(b.rec);
}

/* Lengths that point outside the record print "?", nothing is read. */
static void test_record_fmt_never_reads_outside_record(void **st)
{
    struct build b;
    const struct qtrace_record *rec;

    (void)st;
    build_init(&b, "%s|%s|%u");
    add_var(&b, QTRACE_ARG_STR, "abcdef", 6);
    add_var(&b, QTRACE_ARG_STR, "xy", 2);
    add_int(&b, QTRACE_ARG_U64, 8, 77);
    rec = build_rec(&b);
    check_fmt(rec, "abcdef|xy|77");
    b.rec[18] = 200;                        /* second length: too long */
    check_fmt(rec, "abcdef|?|77");
    b.r.size = 16;                          /* fixed part cut off */
    check_fmt(rec, "?|?|0");
    free(b.rec);
}

static void test_record_fmt_empty_or_missing_format(void **st)
{
    struct build b;
    char buf[4] = "XXX";

    (void)st;
    build_init(&b, "");
    check_fmt(build_rec(&b), "");
    free(b.rec);
    build_init(&b, NULL);
    assert_int_equal(qtrace_record_fmt(build_rec(&b), buf, sizeof(buf)), 0);
    assert_string_equal(buf, "");
    free(b.rec);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_record_fmt_unsigned_types_print_by_conversion),
        cmocka_unit_test(test_record_fmt_signed_types_print_signed),
        cmocka_unit_test(test_record_fmt_flags_width_precision_apply),
        cmocka_unit_test(test_record_fmt_star_arguments_from_the_record),
        cmocka_unit_test(test_record_fmt_bool_char_pointer),
        cmocka_unit_test(test_record_fmt_str_escapes_and_pads),
        cmocka_unit_test(test_record_fmt_bytes_print_as_hex),
        cmocka_unit_test(test_record_fmt_percent_and_unknown_conversions),
        cmocka_unit_test(test_record_fmt_too_few_args_print_question_mark),
        cmocka_unit_test(test_record_fmt_small_buffer_truncates_like_snprintf),
        cmocka_unit_test(test_record_fmt_huge_width_is_clamped),
        cmocka_unit_test(test_record_fmt_never_reads_outside_record),
        cmocka_unit_test(test_record_fmt_empty_or_missing_format),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
