/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Fuzz target: the native trace reader (src/format/reader*.c and what it
 * calls: unpack.c, zchunk.c, index.c, record-fmt.c, kv.c, catalog.c, the
 * etrace decoder). Opens the input as a trace and reads it every way the
 * commands do: every record in file order, formatted as dump does; the
 * per-chunk counting of info; the file's index and a selective reading.
 * Built twice: fuzz-trace checks checksums as shipped, fuzz-trace-nocrc
 * links a chunk.c that takes every stored checksum as right (see
 * tests/fuzz/meson.build), so mutations reach the parsers behind the CRC.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "qtrace/reader.h"
#include "fuzz-file.h"

/* Sinks the compiler cannot see through, so no work is optimised away. */
static volatile uint64_t sink;

static void note_meta(const char *key, const char *value, void *arg)
{
    (void)arg;
    sink += strlen(key) + strlen(value);
}

/* Every argument of rec, through each accessor the commands use. */
static void touch_args(const struct qtrace_record *rec)
{
    unsigned int i;
    size_t len;

    for (i = 0; i < rec->ev->n_args; i++) {
        const struct qtrace_arg_desc *a = &rec->ev->args[i];

        if (a->type == QTRACE_ARG_STR || a->type == QTRACE_ARG_BYTES) {
            const uint8_t *p = qtrace_record_bytes(rec, i, &len);

            sink += len ? p[len - 1] : 0;
        } else {
            sink += qtrace_record_u64(rec, i) ^
                    (uint64_t)qtrace_record_i64(rec, i);
        }
        sink += (uint64_t)qtrace_record_arg_index(rec, a->name);
    }
}

/* The parsed formats of the catalog's events, by id, as dump keeps them. */
static struct qtrace_fmt **new_fmts(const struct qtrace_catalog *cat)
{
    struct qtrace_fmt **fmts = calloc(cat->n_events + 1, sizeof(*fmts));
    unsigned int id;

    if (!fmts) {
        abort();
    }
    for (id = 1; id <= cat->n_events; id++) {
        fmts[id] = qtrace_fmt_new(&cat->events[id]);
    }
    return fmts;
}

static void free_fmts(struct qtrace_fmt **fmts, unsigned int n)
{
    unsigned int id;

    for (id = 1; id <= n; id++) {
        qtrace_fmt_free(fmts[id]);
    }
    free(fmts);
}

/* Hand out every record and format it both ways (dump's and the API's). */
static void read_all(struct qtrace_reader *rd, struct qtrace_fmt **fmts)
{
    struct qtrace_record rec;
    struct qtrace_err err;
    char line[256];

    while (qtrace_reader_next(rd, &rec, &err) > 0) {
        touch_args(&rec);
        sink += (uint64_t)qtrace_record_fmt(&rec, line, sizeof(line));
        if (fmts[rec.ev->id]) {
            /* A short buffer too: the length returned must not lie. */
            sink += (uint64_t)qtrace_fmt_record(fmts[rec.ev->id], &rec,
                                                line, 8);
        }
    }
    sink += (uintptr_t)qtrace_reader_stop_reason(rd);
}

/* info's counting: chunk by chunk, without expanding packed blocks. */
static void count_all(struct qtrace_reader *rd)
{
    static uint64_t counts[QTRACE_MAX_EVENTS];
    struct qtrace_chunk_count cc;
    struct qtrace_err err;

    memset(counts, 0, sizeof(counts));
    qtrace_reader_rewind(rd);
    while (qtrace_reader_count_chunk(rd, counts, &cc, &err) > 0) {
        sink += cc.records + cc.insns + cc.last_time;
    }
}

/*
 * A selective reading of about half the events, which ones chosen by the
 * input's last byte so that the fuzzer can steer it.
 */
static void select_some(struct qtrace_reader *rd, uint8_t steer)
{
    uint64_t want[QTRACE_MAX_EVENTS / 64];
    const struct qtrace_catalog *cat = qtrace_reader_catalog(rd);
    struct qtrace_record rec;
    struct qtrace_err err;
    unsigned int id;

    memset(want, 0, sizeof(want));
    for (id = 1; id <= cat->n_events && id < QTRACE_MAX_EVENTS; id++) {
        if (((id * 7u + steer) >> 1) & 1) {
            want[id / 64] |= 1ull << (id % 64);
        }
    }
    sink += qtrace_reader_index(rd);
    if (qtrace_reader_select(rd, want, &err) == 0) {
        while (qtrace_reader_next(rd, &rec, &err) > 0) {
            sink += rec.size;
        }
    }
    if (qtrace_reader_select(rd, NULL, &err) == 0) {
        while (qtrace_reader_next(rd, &rec, &err) > 0) {
            sink += rec.time;
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_file_write(data, size);
    const struct qtrace_catalog *cat;
    struct qtrace_reader *rd;
    struct qtrace_fmt **fmts;
    struct qtrace_err err;
    uint64_t file_size;

    if (qtrace_reader_open(path, &rd, &err) < 0) {
        return 0;
    }
    qtrace_reader_meta_each(rd, note_meta, NULL);
    sink += (uintptr_t)qtrace_reader_meta(rd, "arch");
    cat = qtrace_reader_catalog(rd);
    fmts = new_fmts(cat);
    read_all(rd, fmts);
    sink += (uintptr_t)qtrace_reader_end(rd, "records");
    sink += qtrace_reader_offset(rd, &file_size) + file_size;
    count_all(rd);
    select_some(rd, size > 0 ? data[size - 1] : 0);
    free_fmts(fmts, cat->n_events);
    qtrace_reader_close(rd);
    return 0;
}
