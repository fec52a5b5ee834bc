/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for src/plugin/instrument/instr-events.c: the host's side
 * of a library's own events. The libraries are set up here as the
 * loader would leave them; records go to a fake emit_record.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "instrument/instr.h"
#include "instrument/instr-lib.h"

/* What instr-load.c defines in the plugin. */
struct instr_lib instr_libs[INSTR_MAX_LIBS];
size_t instr_n_libs;

static struct {
    unsigned int calls;
    unsigned int vcpu;
    uint16_t id, size;
    uint8_t payload[64];
    size_t len;
} seen;

static void fake_emit_record(unsigned int vcpu, uint16_t id, uint16_t size,
                             const void *payload, size_t len)
{
    seen.calls++;
    seen.vcpu = vcpu;
    seen.id = id;
    seen.size = size;
    seen.len = len;
    memcpy(seen.payload, payload, len < sizeof(seen.payload) ? len : 64);
}

static const uint16_t two_sizes[] = { 18, 0 };
static const struct qtrace_instr_events two = {
    "two", "two:ev(uint8_t a, uint64_t b, int16_t c) \"a %u\"\n"
           "two:none(void) \"none\"\n", 2, two_sizes,
};

/* Libraries 1..n loaded and inside their init; 15 built-in events. */
static int setup(void **state)
{
    struct instr_env env = { .builtin_events = 15,
                             .emit_record = fake_emit_record };
    size_t i;

    (void)state;
    memset(instr_libs, 0, sizeof(instr_libs));
    memset(&seen, 0, sizeof(seen));
    instr_events_reset();
    instr_n_libs = 3;
    for (i = 0; i < instr_n_libs; i++) {
        instr_libs[i].path = i == 0 ? "./a.so" : i == 1 ? "./b.so" : "./c.so";
        instr_libs[i].index = (uint32_t)i + 1;
        instr_libs[i].registering = true;
    }
    instr_events_setup(&env);
    return 0;
}

static int teardown(void **state)
{
    size_t i;

    (void)state;
    for (i = 0; i < instr_n_libs; i++) {
        instr_events_release(&instr_libs[i]);
    }
    return 0;
}

static const struct qtrace_instr_host *host_of(size_t i)
{
    return &instr_libs[i].host;
}

static void test_instr_events_ids_follow_builtin_in_load_order(void **state)
{
    static const uint16_t one_size[] = { 8 };
    static const struct qtrace_instr_events one = {
        "one", "one:ev(uint64_t x) \"x %\" PRIu64 \"\"\n", 1, one_size,
    };
    unsigned int first, n;
    const char *text;

    (void)state;
    assert_int_equal(instr_events_register(host_of(0), &one), 0);
    assert_int_equal(instr_events_register(host_of(1), &two), 0);
    assert_int_equal(instr_libs[0].ev_first, 16);
    assert_int_equal(instr_libs[1].ev_first, 17);
    text = instr_events_catalog(&first, &n);
    assert_int_equal(first, 16);
    assert_int_equal(n, 3);
    assert_string_equal(text, "one:ev(uint64_t x) \"x %\" PRIu64 \"\"\n"
                        "two:ev(uint8_t a, uint64_t b, int16_t c) \"a %u\"\n"
                        "two:none(void) \"none\"\n");
    /* Record sizes: 16 + 18 = 34 rounds up to 40; 16 stays 16. */
    assert_int_equal(instr_libs[1].ev_size[0], 40);
    assert_int_equal(instr_libs[1].ev_size[1], 16);
}

static void test_instr_events_emit_writes_id_size_payload(void **state)
{
    uint8_t payload[24] = { 0x11 };

    (void)state;
    assert_int_equal(instr_events_register(host_of(2), &two), 0);
    assert_int_equal(instr_events_emit(host_of(2), 5, 1, payload,
                                       sizeof(payload)), QTRACE_INSTR_OK);
    assert_int_equal(seen.calls, 1);
    assert_int_equal(seen.vcpu, 5);
    assert_int_equal(seen.id, 16);
    assert_int_equal(seen.size, 40);
    assert_int_equal(seen.len, 18);     /* the fixed part, not sizeof */
    assert_int_equal(seen.payload[0], 0x11);
    assert_int_equal(instr_events_emit(host_of(2), 0, 2, payload, 1),
                     QTRACE_INSTR_OK);
    assert_int_equal(seen.id, 17);
    assert_int_equal(seen.size, 16);
}

static void test_instr_events_emit_bad_arguments_refused(void **state)
{
    uint8_t payload[24] = { 0 };

    (void)state;
    assert_int_equal(instr_events_register(host_of(0), &two), 0);
    assert_int_equal(instr_events_emit(host_of(0), 0, 0, payload, 24),
                     QTRACE_INSTR_EINVAL);
    assert_int_equal(instr_events_emit(host_of(0), 0, 3, payload, 24),
                     QTRACE_INSTR_EINVAL);
    assert_int_equal(instr_events_emit(host_of(0), 0, 1, payload, 17),
                     QTRACE_INSTR_EINVAL);
    assert_int_equal(instr_events_emit(host_of(0), 0, 1, NULL, 24),
                     QTRACE_INSTR_EINVAL);
    /* A library that registered nothing has no events to write. */
    assert_int_equal(instr_events_emit(host_of(1), 0, 1, payload, 24),
                     QTRACE_INSTR_EINVAL);
    assert_int_equal(seen.calls, 0);
}

static void test_instr_events_not_recorded_is_enotsup(void **state)
{
    struct instr_env env = { .builtin_events = 15, .emit_record = NULL };
    uint8_t payload[24] = { 0 };

    (void)state;
    instr_events_setup(&env);
    assert_int_equal(instr_events_register(host_of(0), &two), 0);
    assert_int_equal(instr_events_emit(host_of(0), 0, 1, payload, 24),
                     QTRACE_INSTR_ENOTSUP);
}

/* Each refusal leaves why in ev_why, for the load error. */
static void test_instr_events_refusals_say_why(void **state)
{
    static const uint16_t bad_size[] = { 17, 0 };
    static const uint16_t str_size[] = { 2 };
    static const struct {
        struct qtrace_instr_events ev;
        const char *why;
    } cases[] = {
        { { "9x", "9x:a(void) \"\"\n", 1, two_sizes },
          "library name '9x' is not a C identifier of at most 31 "
          "characters" },
        { { "two", "two:ev(uint8_t a, uint64_t b, int16_t c) \"a %u\"\n"
                   "two:none(void) \"none\"\n", 2, bad_size },
          "two:ev: 17 argument bytes declared, the layout rule gives 18" },
        { { "two", "other:ev(void) \"\"\n", 1, two_sizes },
          "two: event 'other:ev' not named two:EVENT" },
        { { "two", "two:ev(void) \"\"\n", 2, two_sizes },
          "two: 1 events in its catalog, 2 declared" },
        { { "two", "two:ev(const char *s) \"%s\"\n", 1, str_size },
          "two:ev: argument 's' is not fixed-size" },
        { { "two", "two:ev(void \"\"\n", 1, two_sizes },
          "two: catalog line 1:" },
    };
    size_t i;

    (void)state;
    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        instr_libs[0].ev_why[0] = '\0';
        assert_int_equal(instr_events_register(host_of(0), &cases[i].ev),
                         QTRACE_INSTR_EINVAL);
        if (strncmp(instr_libs[0].ev_why, cases[i].why,
                    strlen(cases[i].why)) != 0) {
            fail_msg("case %zu: want '%s', got '%s'", i, cases[i].why,
                     instr_libs[0].ev_why);
        }
        assert_int_equal(instr_libs[0].ev_n, 0);
    }
}

static void test_instr_events_name_taken_or_twice_refused(void **state)
{
    (void)state;
    assert_int_equal(instr_events_register(host_of(0), &two), 0);
    assert_int_equal(instr_events_register(host_of(0), &two),
                     QTRACE_INSTR_EINVAL);
    assert_string_equal(instr_libs[0].ev_why, "two: registered twice");
    assert_int_equal(instr_events_register(host_of(1), &two),
                     QTRACE_INSTR_EINVAL);
    assert_string_equal(instr_libs[1].ev_why,
                        "two: library name already registered by "
                        "instr=./a.so");
    /* After init: refused without a word (the call is misplaced). */
    instr_libs[2].registering = false;
    assert_int_equal(instr_events_register(host_of(2), &two),
                     QTRACE_INSTR_EINVAL);
    assert_int_equal(instr_libs[2].ev_n, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(
            test_instr_events_ids_follow_builtin_in_load_order,
            setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_instr_events_emit_writes_id_size_payload, setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_instr_events_emit_bad_arguments_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_instr_events_not_recorded_is_enotsup, setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_instr_events_refusals_say_why, setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_instr_events_name_taken_or_twice_refused, setup, teardown),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
