/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Fuzz target: the etrace decoder (src/format/etrace.c) on the input as a
 * stream in memory, as the reader drives it: the META text it builds is
 * split and parsed, then every record is decoded, its arguments read and
 * formatted; then the stream is rewound and decoded again. Also the
 * etrace-flags list parser, on the input as text.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "etrace.h"
#include "kv.h"
#include "qtrace/reader.h"

static volatile uint64_t sink;

/* META text: key=value lines, an empty line, the catalog (as reader). */
static int parse_meta(const char *meta, struct kv_list *kv,
                      struct qtrace_catalog *cat)
{
    const char *sep = strstr(meta, "\n\n");
    struct qtrace_err err;
    char why[256];

    if (!sep) {
        return -1;
    }
    if (kv_parse(kv, (const uint8_t *)meta, (size_t)(sep + 1 - meta), why,
                 sizeof(why)) < 0) {
        return -1;
    }
    return qtrace_catalog_parse(cat, sep + 2, &err);
}

static void decode_all(struct etrace_dec *dec,
                       const struct qtrace_catalog *cat)
{
    struct etrace_rec er;
    struct qtrace_record rec;
    struct qtrace_err err;
    char line[256];
    unsigned int i;

    while (etrace_dec_next(dec, &er, &err) > 0) {
        memset(&rec, 0, sizeof(rec));
        rec.ev = qtrace_catalog_get(cat, er.id);
        if (!rec.ev) {
            abort();            /* the decoder named an event it has not */
        }
        rec.data = er.data;
        rec.size = er.size;
        rec.time = er.time;
        rec.vcpu = er.unit;
        for (i = 0; i < rec.ev->n_args; i++) {
            sink += qtrace_record_u64(&rec, i);
        }
        sink += (uint64_t)qtrace_record_fmt(&rec, line, sizeof(line));
    }
}

static void parse_flags(const uint8_t *data, size_t size)
{
    char *text = strndup((const char *)data, size);
    struct qtrace_err err;
    uint32_t flags = 0;

    if (text) {
        sink += (uint64_t)etrace_flags_parse(text, &flags, &err) + flags;
        free(text);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct qtrace_catalog cat = { 0 };
    struct kv_list kv = { 0 };
    struct etrace_dec *dec = NULL;
    struct qtrace_err err;
    char *meta = NULL;

    parse_flags(data, size);
    sink += etrace_is_etrace(data, size);
    if (etrace_dec_new(&dec, data, size, &meta, &err) < 0) {
        return 0;
    }
    if (parse_meta(meta, &kv, &cat) == 0) {
        etrace_dec_set_catalog(dec, &cat);
        decode_all(dec, &cat);
        etrace_dec_rewind(dec);
        decode_all(dec, &cat);
    }
    free(meta);
    etrace_dec_free(dec);
    qtrace_catalog_fini(&cat);
    kv_fini(&kv);
    return 0;
}
