/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for the CTF 1.8 encoder (src/convert/ctf-enc.c) and the
 * hexadecimal argument finder (src/convert/hex-args.c): the bytes of a
 * packet at the offsets of the layout in ctf-enc.h (packet header,
 * context, event header, each field type), and the TSDL declarations
 * the metadata gives the same events. Records are laid out here by the
 * rule of docs/format.md from the catalog's argument offsets.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ctf-enc.h"
#include "hex-args.h"
#include "qtrace/catalog.h"

static const char catalog_text[] =
    "first(uint32_t vcpu) \"vcpu %u\"\n"
    "sample(uint64_t pc, uint16_t n, int32_t delta, bool hit, "
    "const char *name, const uint8_t *code) "
    "\"pc 0x%\" PRIx64 \" n %u delta %d hit %u name %s\"\n"
    "keywords(uint8_t stream, uint16_t flags, int64_t event) "
    "\"stream %u flags 0x%x event %\" PRId64 \"\"\n";

struct fixture {
    struct qtrace_catalog cat;
    uint8_t rec[256];
    struct qtrace_record r;
};

static int setup(void **state)
{
    struct fixture *fx = calloc(1, sizeof(*fx));
    struct qtrace_err err;

    assert_non_null(fx);
    assert_int_equal(qtrace_catalog_parse(&fx->cat, catalog_text, &err), 0);
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

static uint64_t ld(const uint8_t *p, unsigned int n)
{
    uint64_t v = 0;

    while (n--) {
        v = v << 8 | p[n];
    }
    return v;
}

static void put(struct fixture *fx, const struct qtrace_event_desc *ev,
                unsigned int arg, uint64_t v)
{
    const struct qtrace_arg_desc *a = &ev->args[arg];
    unsigned int i;

    for (i = 0; i < a->size; i++) {
        fx->rec[a->offset + i] = (uint8_t)(v >> (8 * i));
    }
}

/* A "sample" record: pc, n, delta, hit, name, code as given. */
static const struct qtrace_record *sample(struct fixture *fx,
                                          const char *name,
                                          const uint8_t *code,
                                          size_t code_len)
{
    const struct qtrace_event_desc *ev = qtrace_catalog_find(&fx->cat,
                                                             "sample");
    size_t name_len = strlen(name);
    size_t size = (ev->fixed_size + name_len + code_len + 7) & ~(size_t)7;

    memset(fx->rec, 0, sizeof(fx->rec));
    fx->rec[0] = (uint8_t)ev->id;
    fx->rec[2] = (uint8_t)size;
    put(fx, ev, 0, 0x400123);
    put(fx, ev, 1, 7);
    put(fx, ev, 2, (uint64_t)(int64_t)-5);
    put(fx, ev, 3, 1);
    put(fx, ev, 4, name_len);
    put(fx, ev, 5, code_len);
    memcpy(fx->rec + ev->fixed_size, name, name_len);
    if (code_len) {
        memcpy(fx->rec + ev->fixed_size + name_len, code, code_len);
    }
    fx->r.ev = ev;
    fx->r.data = fx->rec;
    fx->r.size = (uint32_t)size;
    return &fx->r;
}

static void test_ctf_enc_packet_prefix_at_layout_offsets(void **state)
{
    static const uint8_t uuid[16] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12,
                                      13, 14, 15, 16 };
    static const uint8_t code[] = { 0xd5, 0x03 };
    struct fixture *fx = *state;
    struct ctf_packet_info info = {
        .uuid = uuid, .stream_instance = 3, .seq_num = 2, .discarded = 9,
        .cpu_id = 1, .qtrace_stream = 3,
    };
    struct ctf_packet p = { NULL, 0, 0, 0, 0, 0, false };
    const uint8_t *d;

    ctf_packet_start(&p);
    assert_int_equal(p.len, CTF_PREFIX_BYTES);
    assert_true(ctf_packet_add(&p, sample(fx, "ab", code, 2), 100));
    assert_true(ctf_packet_add(&p, sample(fx, "", code, 0), 250));
    ctf_packet_finish(&p, &info);
    d = p.data;
    /* Header: magic, uuid, stream class 0, stream instance. */
    assert_int_equal(ld(d, 4), 0xc1fc1fc1u);
    assert_memory_equal(d + 4, uuid, 16);
    assert_int_equal(ld(d + 20, 4), 0);
    assert_int_equal(ld(d + 24, 8), 3);
    /* Context: begin, end, content and packet size in bits, ... */
    assert_int_equal(ld(d + 32, 8), 100);
    assert_int_equal(ld(d + 40, 8), 250);
    assert_int_equal(ld(d + 48, 8), p.len * 8);
    assert_int_equal(ld(d + 56, 8), p.len * 8);
    assert_int_equal(ld(d + 64, 8), 2);
    assert_int_equal(ld(d + 72, 8), 9);
    assert_int_equal(ld(d + 80, 4), 1);
    assert_int_equal(ld(d + 84, 4), 3);
    assert_int_equal(CTF_PREFIX_BYTES, 88);
    /*
     * First event: id, time, pc 8, n 2, delta 4, hit 1, "ab" NUL,
     * code_len 2, code: 10 + 8 + 2 + 4 + 1 + 3 + 2 + 2 = 32 bytes.
     */
    d += CTF_PREFIX_BYTES;
    assert_int_equal(ld(d, 2), qtrace_catalog_find(&fx->cat, "sample")->id);
    assert_int_equal(ld(d + 2, 8), 100);
    assert_int_equal(ld(d + 10, 8), 0x400123);
    assert_int_equal(ld(d + 18, 2), 7);
    assert_int_equal(ld(d + 20, 4), 0xfffffffbu);
    assert_int_equal(d[24], 1);
    assert_memory_equal(d + 25, "ab\0", 3);
    assert_int_equal(ld(d + 28, 2), 2);
    assert_memory_equal(d + 30, code, 2);
    /* Second event: an empty string is its NUL, no code bytes. */
    d += 32;
    assert_int_equal(ld(d + 2, 8), 250);
    assert_int_equal(d[25], 0);
    assert_int_equal(ld(d + 26, 2), 0);
    assert_int_equal(p.len, CTF_PREFIX_BYTES + 32 + 28);
    assert_int_equal(p.n_events, 2);

    /* A new packet starts empty, its prefix reserved again. */
    ctf_packet_start(&p);
    assert_int_equal(p.len, CTF_PREFIX_BYTES);
    assert_int_equal(p.n_events, 0);
    ctf_packet_free(&p);
}

static void test_ctf_enc_string_stops_at_nul(void **state)
{
    struct fixture *fx = *state;
    struct ctf_packet p = { NULL, 0, 0, 0, 0, 0, false };

    /* "x\0yz" is 4 record bytes, but the string field is "x" NUL. */
    sample(fx, "xyzw", NULL, 0);
    memcpy(fx->rec + fx->r.ev->fixed_size, "x\0yz", 4);
    ctf_packet_start(&p);
    assert_true(ctf_packet_add(&p, &fx->r, 1));
    assert_memory_equal(p.data + CTF_PREFIX_BYTES + 25, "x\0", 2);
    assert_int_equal(ld(p.data + CTF_PREFIX_BYTES + 27, 2), 0);
    assert_int_equal(p.len, CTF_PREFIX_BYTES + 29);
    ctf_packet_free(&p);
}

static void test_ctf_enc_hex_args_from_format(void **state)
{
    struct fixture *fx = *state;

    /* pc is %lx; the bytes argument code has no conversion. */
    assert_int_equal(hex_args_find(qtrace_catalog_find(&fx->cat, "sample")),
                     1u << 0);
    assert_int_equal(hex_args_find(qtrace_catalog_find(&fx->cat,
                                                       "keywords")),
                     1u << 1);
    assert_int_equal(hex_args_find(qtrace_catalog_find(&fx->cat, "first")),
                     0);
}

static void test_ctf_enc_metadata_declares_events(void **state)
{
    static const uint8_t uuid[16] = { 0x12, 0x34, 0x56, 0x78, 0x9a, 0xbc,
                                      0x3d, 0xef, 0x81, 0x02, 0x03, 0x04,
                                      0x05, 0x06, 0x07, 0x08 };
    struct fixture *fx = *state;
    bool want[QTRACE_MAX_EVENTS] = { false };
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);

    assert_non_null(f);
    want[qtrace_catalog_find(&fx->cat, "sample")->id] = true;
    want[qtrace_catalog_find(&fx->cat, "keywords")->id] = true;
    assert_int_equal(ctf_metadata_write(f, &fx->cat, want, uuid, NULL,
                                        CTF_CLOCK_INSNS), 0);
    fclose(f);
    assert_int_equal(strncmp(text, "/* CTF 1.8 */\n", 14), 0);
    assert_non_null(strstr(text, "uuid = \"12345678-9abc-3def-8102-"
                           "030405060708\";"));
    assert_non_null(strstr(text, "byte_order = le;"));
    assert_non_null(strstr(text, "map = clock.insns.value; } := insns_t;"));
    assert_non_null(strstr(text, "\t\tuint32_t qtrace_stream;\n"));
    /* "first" is not wanted: not declared. */
    assert_null(strstr(text, "\"first\""));
    assert_non_null(strstr(text, "\tname = \"sample\";\n\tid = 2;\n"));
    assert_non_null(strstr(text, "integer { size = 64; align = 8; "
                           "signed = false; base = 16; } pc;"));
    assert_non_null(strstr(text, "integer { size = 32; align = 8; "
                           "signed = true; base = 10; } delta;"));
    assert_non_null(strstr(text, "integer { size = 8; align = 8; "
                           "signed = false; base = 10; } hit;"));
    assert_non_null(strstr(text, "\t\tstring name;\n"));
    assert_non_null(strstr(text, "\t\tuint16_t code_len;\n"));
    assert_non_null(strstr(text, "base = 16; } code[code_len];"));
    /* TSDL keywords as field names get a leading underscore. */
    assert_non_null(strstr(text, "base = 10; } _stream;"));
    assert_non_null(strstr(text, "base = 16; } flags;"));
    assert_non_null(strstr(text, "signed = true; base = 10; } _event;"));
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(
            test_ctf_enc_packet_prefix_at_layout_offsets, setup, teardown),
        cmocka_unit_test_setup_teardown(test_ctf_enc_string_stops_at_nul,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_ctf_enc_hex_args_from_format,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_ctf_enc_metadata_declares_events, setup, teardown),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
