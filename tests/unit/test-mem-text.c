/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for src/cli/mem-text.c: the text of mem_access records in
 * qtrace dump. Records are laid out here by the rule of docs/format.md
 * from the catalog's argument offsets, with the flag bits of its table
 * (1 store, 2 sext, 4 be, 8 paddr, 16 io, 32 value).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "mem-text.h"
#include "qtrace/catalog.h"

/* The event as trace-events declares it. */
static const char catalog_text[] =
    "disable mem_access(uint64_t pc, uint64_t vaddr, uint64_t paddr, "
    "uint8_t size, uint8_t flags, const char *device, uint64_t value) "
    "\"pc 0x%\" PRIx64 \" vaddr 0x%\" PRIx64 \" paddr 0x%\" PRIx64 "
    "\" size %u flags 0x%x dev '%s' value 0x%\" PRIx64\n";

struct fixture {
    struct qtrace_catalog cat;
    struct mem_text m;
    uint8_t rec[256];
    struct qtrace_record r;
    char buf[256];
};

static int setup(void **state)
{
    struct fixture *fx = calloc(1, sizeof(*fx));
    struct qtrace_err err;

    assert_non_null(fx);
    assert_int_equal(qtrace_catalog_parse(&fx->cat, catalog_text, &err), 0);
    mem_text_map(&fx->m, &fx->cat);
    assert_non_null(fx->m.ev);
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

static void put(struct fixture *fx, int arg, uint64_t v)
{
    const struct qtrace_arg_desc *a = &fx->m.ev->args[arg];
    unsigned int i;

    for (i = 0; i < a->size; i++) {
        fx->rec[a->offset + i] = (uint8_t)(v >> (8 * i));
    }
}

/* A record of every field, value 0x2a, the device dev ("" for none). */
static const char *fmt_access(struct fixture *fx, unsigned int flags,
                              const char *dev)
{
    const struct qtrace_event_desc *ev = fx->m.ev;
    size_t dev_len = strlen(dev);
    uint32_t size = (uint32_t)((ev->fixed_size + dev_len + 7) & ~7u);
    int n;

    memset(fx->rec, 0, sizeof(fx->rec));
    fx->rec[0] = (uint8_t)ev->id;
    fx->rec[2] = (uint8_t)size;
    put(fx, fx->m.pc, 0x400080);
    put(fx, fx->m.vaddr, 0x600000);
    put(fx, fx->m.paddr, 0x1000);
    put(fx, fx->m.size, 4);
    put(fx, fx->m.flags, flags);
    put(fx, fx->m.device, dev_len);
    put(fx, fx->m.value, 0x2a);
    memcpy(fx->rec + ev->fixed_size, dev, dev_len);
    fx->r.ev = ev;
    fx->r.data = fx->rec;
    fx->r.size = size;
    n = mem_text_fmt(&fx->m, &fx->r, fx->buf, sizeof(fx->buf));
    assert_int_equal(n, (int)strlen(fx->buf));
    return fx->buf;
}

static void test_mem_text_load_without_valid_fields(void **state)
{
    assert_string_equal(fmt_access(*state, 0, ""),
                        "pc 0x400080 vaddr 0x600000 size 4 load");
}

static void test_mem_text_store_sext_be_words(void **state)
{
    assert_string_equal(fmt_access(*state, 1 | 2 | 4, ""),
                        "pc 0x400080 vaddr 0x600000 size 4 store sext be");
}

static void test_mem_text_value_only_with_flag_32(void **state)
{
    assert_string_equal(fmt_access(*state, 32, ""),
                        "pc 0x400080 vaddr 0x600000 size 4 load "
                        "value 0x2a");
}

static void test_mem_text_paddr_io_device(void **state)
{
    assert_string_equal(fmt_access(*state, 1 | 8 | 16, "serial"),
                        "pc 0x400080 vaddr 0x600000 paddr 0x1000 size 4 "
                        "store io dev 'serial'");
}

static void test_mem_text_unknown_flag_bits_shown_raw(void **state)
{
    assert_string_equal(fmt_access(*state, 0x40 | 1, ""),
                        "pc 0x400080 vaddr 0x600000 size 4 store "
                        "flags 0x40");
}

static void test_mem_text_short_buffer_returns_length_needed(void **state)
{
    struct fixture *fx = *state;
    char small[8];

    fmt_access(fx, 1, "");
    assert_int_equal(mem_text_fmt(&fx->m, &fx->r, small, sizeof(small)),
                     (int)strlen(fx->buf));
    assert_string_equal(small, "pc 0x40");
}

/*
 * A buffer of MEM_TEXT_FAST_ROOM bytes or more takes the direct way, a
 * smaller one the counted way: both give the same text, whatever the
 * flags and sizes (the largest values make the longest text).
 */
static void test_mem_text_direct_and_counted_ways_agree(void **state)
{
    struct fixture *fx = *state;
    static const uint64_t sizes[] = { 0, 1, 8, 255 };
    char counted[MEM_TEXT_FAST_ROOM - 1];
    unsigned int flags, i;
    int n;

    for (flags = 0; flags < 128; flags++) {
        for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
            fmt_access(fx, flags, flags & 16 ? "dev" : "");
            put(fx, fx->m.pc, UINT64_MAX);
            put(fx, fx->m.vaddr, i ? UINT64_MAX >> (8 * i) : 0);
            put(fx, fx->m.paddr, UINT64_MAX - i);
            put(fx, fx->m.value, UINT64_MAX);
            put(fx, fx->m.size, sizes[i]);
            n = mem_text_fmt(&fx->m, &fx->r, fx->buf, sizeof(fx->buf));
            assert_int_equal(n, (int)strlen(fx->buf));
            assert_int_equal(mem_text_fmt(&fx->m, &fx->r, counted,
                                          sizeof(counted)), n);
            assert_string_equal(counted, fx->buf);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(
            test_mem_text_load_without_valid_fields, setup, teardown),
        cmocka_unit_test_setup_teardown(test_mem_text_store_sext_be_words,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_mem_text_value_only_with_flag_32, setup, teardown),
        cmocka_unit_test_setup_teardown(test_mem_text_paddr_io_device,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_mem_text_unknown_flag_bits_shown_raw, setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_mem_text_short_buffer_returns_length_needed, setup,
            teardown),
        cmocka_unit_test_setup_teardown(
            test_mem_text_direct_and_counted_ways_agree, setup, teardown),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
