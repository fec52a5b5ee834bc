/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for src/tracetool/catalog.c: trace-events syntax, the record
 * layout rule (offsets written out by hand here), PRI expansion, every
 * error and its line number, and garbage input that must not crash.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "qtrace/catalog.h"

/* Parse text that must be valid; fails the test otherwise. */
static void parse_ok(struct qtrace_catalog *cat, const char *text)
{
    struct qtrace_err err = { .msg = "" };
    int ret = qtrace_catalog_parse(cat, text, &err);

    if (ret != 0) {
        fail_msg("parse failed: %s", err.msg);
    }
}

static const struct qtrace_event_desc *
find_ok(const struct qtrace_catalog *cat, const char *name)
{
    const struct qtrace_event_desc *ev = qtrace_catalog_find(cat, name);

    assert_non_null(ev);
    return ev;
}

static void check_arg(const struct qtrace_arg_desc *a, const char *name,
                      const char *ctype, enum qtrace_arg_type type,
                      unsigned int offset, unsigned int size)
{
    assert_string_equal(a->name, name);
    assert_string_equal(a->ctype, ctype);
    assert_int_equal(a->type, type);
    assert_int_equal(a->offset, offset);
    assert_int_equal(a->size, size);
}

static void test_catalog_every_type_parses_with_its_size(void **state)
{
    struct qtrace_catalog cat;
    const struct qtrace_event_desc *ev;

    (void)state;
    parse_ok(&cat,
             "a(uint8_t u8, uint16_t u16, uint32_t u32, uint64_t u64, "
             "int8_t i8, int16_t i16, int32_t i32, int64_t i64) \"x\"\n"
             "b(int i, unsigned u, unsigned int ui, size_t sz, bool b, "
             "const char *s, const uint8_t *p, const void *v) \"y\"\n");
    ev = find_ok(&cat, "a");
    assert_int_equal(ev->n_args, 8);
    check_arg(&ev->args[0], "u8", "uint8_t", QTRACE_ARG_U8, 16, 1);
    check_arg(&ev->args[1], "u16", "uint16_t", QTRACE_ARG_U16, 18, 2);
    check_arg(&ev->args[2], "u32", "uint32_t", QTRACE_ARG_U32, 20, 4);
    check_arg(&ev->args[3], "u64", "uint64_t", QTRACE_ARG_U64, 24, 8);
    check_arg(&ev->args[4], "i8", "int8_t", QTRACE_ARG_I8, 32, 1);
    check_arg(&ev->args[5], "i16", "int16_t", QTRACE_ARG_I16, 34, 2);
    check_arg(&ev->args[6], "i32", "int32_t", QTRACE_ARG_I32, 36, 4);
    check_arg(&ev->args[7], "i64", "int64_t", QTRACE_ARG_I64, 40, 8);
    assert_int_equal(ev->fixed_size, 48);
    assert_false(ev->has_var);

    ev = find_ok(&cat, "b");
    assert_int_equal(ev->n_args, 8);
    check_arg(&ev->args[0], "i", "int", QTRACE_ARG_I32, 16, 4);
    check_arg(&ev->args[1], "u", "unsigned", QTRACE_ARG_U32, 20, 4);
    check_arg(&ev->args[2], "ui", "unsigned int", QTRACE_ARG_U32, 24, 4);
    check_arg(&ev->args[3], "sz", "size_t", QTRACE_ARG_U64, 32, 8);
    check_arg(&ev->args[4], "b", "bool", QTRACE_ARG_BOOL, 40, 1);
    check_arg(&ev->args[5], "s", "const char *", QTRACE_ARG_STR, 42, 2);
    check_arg(&ev->args[6], "p", "const uint8_t *", QTRACE_ARG_BYTES, 44, 2);
    check_arg(&ev->args[7], "v", "const void *", QTRACE_ARG_BYTES, 46, 2);
    assert_int_equal(ev->fixed_size, 48);
    assert_true(ev->has_var);
    qtrace_catalog_fini(&cat);
}

static void test_catalog_mixed_args_offsets_follow_rule(void **state)
{
    struct qtrace_catalog cat;
    const struct qtrace_event_desc *ev;

    (void)state;
    parse_ok(&cat, "x(uint8_t a, uint64_t b, const char *s, uint16_t c) "
             "\"%u %llu %s %u\"\n");
    ev = find_ok(&cat, "x");
    assert_int_equal(ev->args[0].offset, 16);
    assert_int_equal(ev->args[1].offset, 24);
    assert_int_equal(ev->args[2].offset, 32);       /* s_len */
    assert_int_equal(ev->args[3].offset, 34);
    assert_int_equal(ev->fixed_size, 36);           /* unpadded */
    assert_true(ev->has_var);
    qtrace_catalog_fini(&cat);
}

static void test_catalog_padding_before_wide_args_follows_rule(void **state)
{
    struct qtrace_catalog cat;
    const struct qtrace_event_desc *ev;

    (void)state;
    parse_ok(&cat, "y(bool f, int32_t i, uint16_t h, int8_t c, int64_t q, "
             "const void *p, unsigned int u) \"f\"\n");
    ev = find_ok(&cat, "y");
    assert_int_equal(ev->args[0].offset, 16);       /* f: 16..17 */
    assert_int_equal(ev->args[1].offset, 20);       /* i: aligned to 4 */
    assert_int_equal(ev->args[2].offset, 24);
    assert_int_equal(ev->args[3].offset, 26);
    assert_int_equal(ev->args[4].offset, 32);       /* q: aligned to 8 */
    assert_int_equal(ev->args[5].offset, 40);       /* p_len */
    assert_int_equal(ev->args[6].offset, 44);       /* u: aligned to 4 */
    assert_int_equal(ev->fixed_size, 48);
    qtrace_catalog_fini(&cat);
}

static void test_catalog_twelve_u64_args_fit_fixed_part(void **state)
{
    struct qtrace_catalog cat;
    const struct qtrace_event_desc *ev;

    (void)state;
    parse_ok(&cat, "m(uint64_t a, uint64_t b, uint64_t c, uint64_t d, "
             "uint64_t e, uint64_t f, uint64_t g, uint64_t h, uint64_t i, "
             "uint64_t j, uint64_t k, uint64_t l) \"m\"\n");
    ev = find_ok(&cat, "m");
    assert_int_equal(ev->n_args, QTRACE_MAX_ARGS);
    assert_int_equal(ev->args[11].offset, 16 + 11 * 8);
    assert_int_equal(ev->fixed_size, 16 + 12 * 8);
    qtrace_catalog_fini(&cat);
}

static void test_catalog_void_event_has_header_only(void **state)
{
    struct qtrace_catalog cat;
    const struct qtrace_event_desc *ev;

    (void)state;
    parse_ok(&cat, "tick(void) \"tick\"\n");
    ev = find_ok(&cat, "tick");
    assert_int_equal(ev->n_args, 0);
    assert_int_equal(ev->fixed_size, 16);
    assert_false(ev->has_var);
    assert_string_equal(ev->fmt, "tick");
    qtrace_catalog_fini(&cat);
}

static void test_catalog_spacing_variants_give_same_types(void **state)
{
    struct qtrace_catalog cat;
    const struct qtrace_event_desc *ev;

    (void)state;
    parse_ok(&cat, "  sp ( const char* a ,const   uint8_t*b,\tunsigned"
             "   int c )\t\"%s\"   \r\n");
    ev = find_ok(&cat, "sp");
    assert_int_equal(ev->n_args, 3);
    assert_string_equal(ev->args[0].ctype, "const char *");
    assert_string_equal(ev->args[1].ctype, "const uint8_t *");
    assert_string_equal(ev->args[1].name, "b");
    assert_string_equal(ev->args[2].ctype, "unsigned int");
    assert_string_equal(ev->fmt, "%s");
    qtrace_catalog_fini(&cat);
}

static void test_catalog_pri_macros_expand_to_plain_format(void **state)
{
    struct qtrace_catalog cat;
    const struct qtrace_event_desc *ev;

    (void)state;
    parse_ok(&cat, "p(void) \"a %\" PRIx64 \" b %\" PRId64 \" c %\" PRIu32 "
             "\" d %\" PRIX16 \" e %\" PRIo8 \" f %\"PRIi64\" g %\" PRIu64"
             "\n");
    ev = find_ok(&cat, "p");
    assert_string_equal(ev->fmt, "a %llx b %lld c %u d %X e %o f %lli "
                        "g %llu");
    qtrace_catalog_fini(&cat);
}

static void test_catalog_escapes_in_format_are_decoded(void **state)
{
    struct qtrace_catalog cat;
    const struct qtrace_event_desc *ev;

    (void)state;
    parse_ok(&cat, "e(void) \"q\\\"x\\\" b\\\\ t\\t\" \"n\\n\"\n");
    ev = find_ok(&cat, "e");
    assert_string_equal(ev->fmt, "q\"x\" b\\ t\tn\n");
    qtrace_catalog_fini(&cat);
}

/* QEMU's host-sized types and plain pointers are 8 bytes in a record. */
static void test_catalog_qemu_types_have_fixed_sizes(void **state)
{
    struct qtrace_catalog cat;
    const struct qtrace_event_desc *ev;

    (void)state;
    parse_ok(&cat, "t(long l, unsigned long ul, short s, char c, "
             "ssize_t ss, void *p, const int *ip, char *str) "
             "\"%ld %lu %d %c %zd %p %p %s\"\n");
    ev = find_ok(&cat, "t");
    assert_int_equal(ev->n_args, 8);
    assert_int_equal(ev->args[0].type, QTRACE_ARG_I64);
    assert_int_equal(ev->args[1].type, QTRACE_ARG_U64);
    assert_int_equal(ev->args[2].type, QTRACE_ARG_I16);
    assert_int_equal(ev->args[3].type, QTRACE_ARG_I8);
    assert_int_equal(ev->args[4].size, 8);
    assert_int_equal(ev->args[5].type, QTRACE_ARG_U64);
    assert_string_equal(ev->args[5].ctype, "void *");
    assert_string_equal(ev->args[6].ctype, "const int *");
    assert_int_equal(ev->args[7].type, QTRACE_ARG_STR);
    qtrace_catalog_fini(&cat);
}

/* vcpu adds QEMU's implicit first argument and "cpu=%p " in front. */
static void test_catalog_vcpu_adds_cpu_argument(void **state)
{
    struct qtrace_catalog cat;
    const struct qtrace_event_desc *ev;

    (void)state;
    parse_ok(&cat, "disable vcpu v(uint32_t a) \"a %u\"\n"
             "vcpu w(void) \"w\"\n");
    ev = find_ok(&cat, "v");
    assert_true(ev->disabled);
    assert_true(ev->vcpu);
    assert_int_equal(ev->n_args, 2);
    assert_string_equal(ev->args[0].name, "__cpu");
    assert_string_equal(ev->args[0].ctype, "void *");
    assert_string_equal(ev->fmt, "cpu=%p a %u");
    assert_string_equal(ev->fmt_src, "\"cpu=%p \" \"a %u\"");
    assert_int_equal(find_ok(&cat, "w")->n_args, 1);
    qtrace_catalog_fini(&cat);
}

/* The format as written is kept, PRI macros and all, for generated C. */
static void test_catalog_format_source_kept_verbatim(void **state)
{
    struct qtrace_catalog cat;
    const struct qtrace_event_desc *ev;

    (void)state;
    parse_ok(&cat, "f(uint64_t a)   \"a 0x%\" PRIx64 \" \\\"q\\\"\"  \n");
    ev = find_ok(&cat, "f");
    assert_string_equal(ev->fmt_src, "\"a 0x%\" PRIx64 \" \\\"q\\\"\"");
    assert_string_equal(ev->fmt, "a 0x%llx \"q\"");
    assert_int_equal(ev->fmt_col, 17);
    qtrace_catalog_fini(&cat);
}

static void test_catalog_disable_keyword_sets_disabled(void **state)
{
    struct qtrace_catalog cat;

    (void)state;
    parse_ok(&cat, "disable d1(void) \"a\"\n"
             "d2(void) \"b\"\n"
             "disable_me(void) \"c\"\n"
             "disable\tdisable(void) \"d\"\n");
    assert_int_equal(cat.n_events, 4);
    assert_true(find_ok(&cat, "d1")->disabled);
    assert_false(find_ok(&cat, "d2")->disabled);
    assert_false(find_ok(&cat, "disable_me")->disabled);
    assert_true(find_ok(&cat, "disable")->disabled);
    qtrace_catalog_fini(&cat);
}

static void test_catalog_comments_and_blank_lines_skipped(void **state)
{
    struct qtrace_catalog cat;
    const struct qtrace_event_desc *ev;

    (void)state;
    parse_ok(&cat, "# header comment\n"
             "\n"
             "   \t\n"
             "first(uint32_t v) \"v %u\"\n"
             "  # indented comment with (parens) \"quotes\"\n"
             "second(void) \"s\"");          /* no final newline */
    assert_int_equal(cat.n_events, 2);
    ev = qtrace_catalog_get(&cat, 1);
    assert_non_null(ev);
    assert_string_equal(ev->name, "first");
    assert_int_equal(ev->id, 1);
    assert_int_equal(ev->line, 4);
    ev = qtrace_catalog_get(&cat, 2);
    assert_non_null(ev);
    assert_string_equal(ev->name, "second");
    assert_int_equal(ev->id, 2);
    assert_int_equal(ev->line, 6);
    qtrace_catalog_fini(&cat);
}

/*
 * A library's events in a trace's catalog are LIB:EVENT: two libraries
 * may each have an event of the same name (docs/format.md).
 */
static void test_catalog_library_event_names_parse(void **state)
{
    struct qtrace_catalog cat;
    const struct qtrace_event_desc *ev;

    (void)state;
    parse_ok(&cat, "sample(uint8_t a) \"a %u\"\n"
             "one:sample(uint64_t pc) \"pc 0x%\" PRIx64 \"\"\n"
             "disable two:sample(uint16_t k) \"k %u\"\n");
    assert_int_equal(cat.n_events, 3);
    ev = qtrace_catalog_find(&cat, "one:sample");
    assert_non_null(ev);
    assert_int_equal(ev->id, 2);
    assert_int_equal(ev->args[0].offset, 16);
    ev = qtrace_catalog_find(&cat, "two:sample");
    assert_non_null(ev);
    assert_int_equal(ev->id, 3);
    assert_true(ev->disabled);
    qtrace_catalog_fini(&cat);
}

static void test_catalog_lookup_out_of_range_returns_null(void **state)
{
    struct qtrace_catalog cat;

    (void)state;
    parse_ok(&cat, "only(void) \"o\"\n");
    assert_null(qtrace_catalog_get(&cat, 0));
    assert_null(qtrace_catalog_get(&cat, 2));
    assert_null(qtrace_catalog_get(&cat, 0xffffffffu));
    assert_null(qtrace_catalog_find(&cat, "other"));
    assert_null(qtrace_catalog_find(&cat, "ONLY"));
    assert_null(qtrace_catalog_find(&cat, NULL));
    assert_ptr_equal(qtrace_catalog_find(&cat, "only"),
                     qtrace_catalog_get(&cat, 1));
    qtrace_catalog_fini(&cat);
    assert_null(qtrace_catalog_get(&cat, 1));
    assert_null(qtrace_catalog_find(&cat, "only"));
}

static void test_catalog_text_is_copied(void **state)
{
    struct qtrace_catalog cat;
    char text[] = "c(void) \"c\"\n";

    (void)state;
    parse_ok(&cat, text);
    text[0] = 'z';
    assert_string_equal(cat.text, "c(void) \"c\"\n");
    qtrace_catalog_fini(&cat);
    assert_null(cat.text);
    assert_null(cat.events);
    qtrace_catalog_fini(&cat);          /* a second fini is harmless */
}

static void test_catalog_empty_text_has_no_events(void **state)
{
    struct qtrace_catalog cat;

    (void)state;
    parse_ok(&cat, "");
    assert_int_equal(cat.n_events, 0);
    assert_non_null(cat.events);
    assert_null(qtrace_catalog_get(&cat, 1));
    qtrace_catalog_fini(&cat);
}

/* Read the project's trace-events (path from the build) or skip. */
static char *read_project_catalog(void)
{
    const char *path = getenv("TRACE_EVENTS");
    char *buf;
    long len;
    FILE *f;

    if (!path) {
        return NULL;
    }
    f = fopen(path, "rb");
    assert_non_null(f);
    assert_int_equal(fseek(f, 0, SEEK_END), 0);
    len = ftell(f);
    assert_true(len > 0);
    rewind(f);
    buf = malloc((size_t)len + 1);
    assert_non_null(buf);
    assert_int_equal(fread(buf, 1, (size_t)len, f), (size_t)len);
    buf[len] = '\0';
    fclose(f);
    return buf;
}

static void test_catalog_project_file_parses(void **state)
{
    struct qtrace_catalog cat;
    const struct qtrace_event_desc *ev;
    char *text = read_project_catalog();

    (void)state;
    if (!text) {
        skip();
    }
    parse_ok(&cat, text);
    assert_string_equal(cat.text, text);
    ev = find_ok(&cat, "exec_tb");
    assert_string_equal(ev->fmt, "pc 0x%llx tb %u");
    assert_int_equal(ev->args[0].offset, 16);
    assert_int_equal(ev->args[1].offset, 24);
    assert_int_equal(ev->fixed_size, 28);
    ev = find_ok(&cat, "mem_access");
    assert_true(ev->disabled);
    assert_true(ev->has_var);
    free(text);
    qtrace_catalog_fini(&cat);
}

/* One invalid catalog and what its error must say. */
struct bad_case {
    const char *text;
    const char *msg;                /* exact error message */
};

static const struct bad_case bad_cases[] = {
    { "a(void) \"a\"\n\n#\nb(uint32_t a) \"b\"\n\n\n"
      "c(uint128_t x) \"c\"\n",
      "7:3: unknown type 'uint128_t' for argument 'x' (standard C and "
      "fixed-size integer types only; other pointers are 'void *')" },
    { "# c\nexec_tb(void) \"a\"\nexec_tb(void) \"b\"\n",
      "3:1: duplicate event 'exec_tb'" },
    { "ab(void) \"a\"\nAB(void) \"b\"\n",
      "2:1: duplicate event 'AB'" },
    { "\n\n\nnofmt(uint32_t a)\n",
      "4:18: missing format string" },
    { "nofmt(uint32_t a) PRIx64\n",
      "1:19: missing format string" },
    { "many(uint8_t a, uint8_t b, uint8_t c, uint8_t d, uint8_t e, "
      "uint8_t f, uint8_t g, uint8_t h, uint8_t i, uint8_t j, uint8_t k, "
      "uint8_t l, uint8_t m) \"x\"\n",
      "1:138: too many arguments (max 12)" },
    { "\nthis_event_name_is_far_too_long_to_be_accepted_by_qtrace_at_all_"
      "really(void) \"x\"\n",
      "2:1: event name 'this_event_name_...' too long "
      "(max 63 characters)" },
    { "a(uint32_t an_argument_name_longer_than_thirty_one) \"x\"\n",
      "1:12: argument name 'an_argument_name...' too long "
      "(max 31 characters)" },
    { "a(uint32_t x\n", "1:13: unterminated argument list" },
    { "a(void) \"abc\n", "1:9: unterminated format string" },
    { "a(void) \"a\\q\"\n", "1:11: unsupported escape in format string" },
    { "a(void) \"%\" PRIxPTR\n",
      "1:13: unknown macro 'PRIxPTR' in format string" },
    { "a(void) \"a\" ;\n", "1:13: unexpected ';' after format string" },
    { "a() \"a\"\n", "1:3: missing argument 1 (write 'void' for none)" },
    { "a(uint32_t x,) \"a\"\n",
      "1:14: missing argument 2 (write 'void' for none)" },
    { "a(uint32_t) \"a\"\n", "1:3: argument 1 needs a type and a name" },
    { "a(const char *) \"a\"\n",
      "1:3: argument 1 needs a type and a name" },
    { "a(void, uint32_t x) \"a\"\n",
      "1:3: argument 1 needs a type and a name" },
    { "a(struct foo *s) \"a\"\n",
      "1:3: unknown type 'struct foo *' for argument 's' (standard C and "
      "fixed-size integer types only; other pointers are 'void *')" },
    { "a(uint32_t hdr) \"a\"\n", "1:12: argument name 'hdr' is reserved" },
    { "a(uint32_t x, uint64_t x) \"a\"\n",
      "1:24: duplicate argument 'x'" },
    { "a(const char *s, uint16_t s_len) \"a\"\n",
      "1:27: duplicate argument 's_len'" },
    { "a(uint32_t x[4]) \"a\"\n",
      "1:13: unexpected '[' in argument list" },
    { "foo a(void) \"a\"\n",
      "1:1: unknown property 'foo' (known: disable, vcpu)" },
    { "disable tcg a(void) \"a\", \"b\"\n",
      "1:9: property 'tcg' needs QEMU's code generator: outside QEMU, "
      "trace at run time with a plain event" },
    { "a \"a\"\n", "1:3: expected '(' after 'a'" },
    { "_a(void) \"a\"\n", "1:1: expected an event name, found '_'" },
    { "(void) \"a\"\n", "1:1: expected an event name, found '('" },
    { "disable \n", "1:9: expected '(' after 'disable'" },
    { "\x01(void)\n", "1:1: expected an event name, found 0x01" },
    { "lib:(void) \"a\"\n", "1:4: expected '(' after 'lib'" },
    { "lib:_a(void) \"a\"\n", "1:4: expected '(' after 'lib'" },
    { "a:b:c(void) \"a\"\n", "1:4: expected '(' after 'a:b'" },
    { "a:b(void) \"a\"\nA:B(void) \"b\"\n", "2:1: duplicate event 'A:B'" },
};

static void test_catalog_bad_input_error_names_line(void **state)
{
    size_t i;

    (void)state;
    for (i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++) {
        struct qtrace_catalog cat;
        struct qtrace_err err = { .msg = "" };
        int ret = qtrace_catalog_parse(&cat, bad_cases[i].text, &err);

        if (ret != -EINVAL || strcmp(err.msg, bad_cases[i].msg) != 0) {
            fail_msg("case %zu: ret %d msg '%s', expected '%s'", i, ret,
                     err.msg, bad_cases[i].msg);
        }
        /* A failed parse leaves nothing to free. */
        assert_null(cat.events);
        assert_null(cat.text);
        assert_int_equal(cat.n_events, 0);
    }
}

static void test_catalog_too_many_events_fails_on_line(void **state)
{
    struct qtrace_catalog cat;
    struct qtrace_err err;
    size_t cap = QTRACE_MAX_EVENTS * 24;
    size_t len = 0;
    char *text = malloc(cap);
    unsigned int i;

    (void)state;
    assert_non_null(text);
    for (i = 1; i < QTRACE_MAX_EVENTS; i++) {
        len += (size_t)snprintf(text + len, cap - len, "e%u(void) \"\"\n",
                                i);
    }
    parse_ok(&cat, text);               /* ids 1..1023 fit */
    assert_int_equal(cat.n_events, QTRACE_MAX_EVENTS - 1);
    assert_string_equal(qtrace_catalog_get(&cat, 1023)->name, "e1023");
    qtrace_catalog_fini(&cat);

    snprintf(text + len, cap - len, "one_more(void) \"\"\n");
    assert_int_equal(qtrace_catalog_parse(&cat, text, &err), -EINVAL);
    assert_string_equal(err.msg, "1024:1: too many events (max 1023)");
    free(text);
}

static void test_catalog_null_arguments_fail(void **state)
{
    struct qtrace_catalog cat;
    struct qtrace_err err;

    (void)state;
    assert_int_equal(qtrace_catalog_parse(&cat, NULL, &err), -EINVAL);
    assert_int_equal(qtrace_catalog_parse(NULL, "a(void) \"\"", NULL),
                     -EINVAL);
    /* err may be NULL: the parse still fails cleanly. */
    assert_int_equal(qtrace_catalog_parse(&cat, "bad", NULL), -EINVAL);
}

/* Either outcome is fine; a failure must name a line. */
static void parse_any(const char *text)
{
    struct qtrace_catalog cat;
    struct qtrace_err err = { .msg = "" };
    int ret = qtrace_catalog_parse(&cat, text, &err);

    if (ret == 0) {
        qtrace_catalog_fini(&cat);
    } else {
        assert_int_equal(ret, -EINVAL);
        /* "LINE:COLUMN: ", both numbers from 1 */
        assert_true(err.msg[0] >= '1' && err.msg[0] <= '9');
        assert_non_null(strstr(err.msg, ": "));
        assert_true(strspn(err.msg, "0123456789:") ==
                    (size_t)(strstr(err.msg, ": ") - err.msg) + 1);
    }
}

static const char sample[] =
    "# sample\n"
    "disable tb_trans(uint64_t pc, uint32_t tb, const uint8_t *code) "
    "\"tb %u pc 0x%\" PRIx64 \" \\\"q\\\"\"\n"
    "s(int64_t n, const char *d, bool b) \"n %\" PRId64 \" %s %u\"\n";

static void test_catalog_truncated_input_never_crashes(void **state)
{
    char *project = read_project_catalog();
    const char *texts[2] = { sample, project };
    size_t t;
    size_t cut;

    (void)state;
    for (t = 0; t < 2 && texts[t]; t++) {
        size_t len = strlen(texts[t]);

        for (cut = 0; cut <= len; cut++) {
            char *copy = strndup(texts[t], cut);

            assert_non_null(copy);
            parse_any(copy);
            free(copy);
        }
    }
    free(project);
}

static void test_catalog_garbage_input_never_crashes(void **state)
{
    static const char alphabet[] = "abz_09 \t\n\r#\"\\(),*%PRIx64dsable"
                                   "void const char uint8_t\x01\xff";
    uint32_t seed = 12345;
    char buf[200];
    size_t round;
    size_t i;

    (void)state;
    for (round = 0; round < 5000; round++) {
        size_t len;

        seed = seed * 1103515245u + 12345u;
        len = (seed >> 16) % (sizeof(buf) - 1);
        for (i = 0; i < len; i++) {
            seed = seed * 1103515245u + 12345u;
            buf[i] = alphabet[(seed >> 16) % (sizeof(alphabet) - 1)];
        }
        buf[len] = '\0';
        parse_any(buf);
    }
    /* Single byte flips of a valid catalog. */
    for (i = 0; i < sizeof(sample) - 1; i++) {
        char copy[sizeof(sample)];
        size_t k;

        for (k = 0; k < sizeof(alphabet) - 1; k++) {
            memcpy(copy, sample, sizeof(sample));
            copy[i] = alphabet[k];
            parse_any(copy);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_catalog_every_type_parses_with_its_size),
        cmocka_unit_test(test_catalog_mixed_args_offsets_follow_rule),
        cmocka_unit_test(test_catalog_padding_before_wide_args_follows_rule),
        cmocka_unit_test(test_catalog_twelve_u64_args_fit_fixed_part),
        cmocka_unit_test(test_catalog_void_event_has_header_only),
        cmocka_unit_test(test_catalog_spacing_variants_give_same_types),
        cmocka_unit_test(test_catalog_pri_macros_expand_to_plain_format),
        cmocka_unit_test(test_catalog_escapes_in_format_are_decoded),
        cmocka_unit_test(test_catalog_disable_keyword_sets_disabled),
        cmocka_unit_test(test_catalog_qemu_types_have_fixed_sizes),
        cmocka_unit_test(test_catalog_vcpu_adds_cpu_argument),
        cmocka_unit_test(test_catalog_format_source_kept_verbatim),
        cmocka_unit_test(test_catalog_comments_and_blank_lines_skipped),
        cmocka_unit_test(test_catalog_lookup_out_of_range_returns_null),
        cmocka_unit_test(test_catalog_text_is_copied),
        cmocka_unit_test(test_catalog_empty_text_has_no_events),
        cmocka_unit_test(test_catalog_project_file_parses),
        cmocka_unit_test(test_catalog_bad_input_error_names_line),
        cmocka_unit_test(test_catalog_too_many_events_fails_on_line),
        cmocka_unit_test(test_catalog_library_event_names_parse),
        cmocka_unit_test(test_catalog_null_arguments_fail),
        cmocka_unit_test(test_catalog_truncated_input_never_crashes),
        cmocka_unit_test(test_catalog_garbage_input_never_crashes),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
