/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The native trace file sink: chunks go to the file as they arrive, on the
 * writer thread, through the format library's writer, zstd-compressed
 * unless compress=off or compressing would slow the vCPUs down. A write
 * error (a full disk) is reported once; the chunks written before stay
 * readable.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "qtrace-events.h"
#include "qtrace/format.h"
#include "sink.h"
#include "../buffer/writer.h"
#include "../../format/index.h"
#include "../../format/packed.h"
#include "../../format/writer.h"
#include "../../format/zchunk.h"

/*
 * The last writes' cost per byte: their minimum is what writing costs.
 * One write stalled for milliseconds (the host took the CPU, the file
 * system waited) says nothing of the next, but averaged in it made
 * writing look dearer than compressing for dozens of chunks; compressed
 * chunks then took the writer thread so long that the vCPU waited for
 * buffers and a block trace ran twice as slowly.
 */
#define WRITE_SAMPLES 8

/* What compressing and writing have cost lately (see worth_compressing). */
struct zcost {
    double zstd_ns_per_byte;
    double write_ns_per_byte[WRITE_SAMPLES];
    unsigned int write_next;    /* the sample to replace */
    double ratio;               /* compressed / original size */
    unsigned int skipped;       /* chunks not compressed since the last */
};

#define PROBE_EVERY 16

struct sink_file {
    struct sink base;
    struct qtrace_writer *w;    /* NULL once closed */
    sink_meta_fn info;          /* the INFO chunk's lines, NULL: none */
    bool info_done;             /* INFO written, or too late for it */
    struct zchunk_deflater *z;  /* NULL: chunks go out as they are */
    struct zcost cost;
    struct sink_file_cfg cfg;   /* how it was made (path: target) */
};

/*
 * The INFO chunk, right after META (docs/format.md): only before the
 * first DATA chunk, where readers look for it.
 */
static int write_info(struct sink_file *f)
{
    const char *text = f->info ? f->info() : NULL;
    struct qtrace_err err;
    int ret;

    if (f->info_done || !text) {
        return 0;
    }
    f->info_done = true;
    ret = qtrace_writer_chunk(f->w, QTRACE_CHUNK_INFO, 0, 0, text,
                              (uint32_t)strlen(text), &err);
    if (ret < 0) {
        sink_fail(&f->base, err.msg);
    }
    return ret;
}

static uint64_t now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Moves an estimate an eighth of the way to a new measurement. */
static void ewma(double *avg, double sample)
{
    *avg = *avg == 0 ? sample : *avg + (sample - *avg) / 8;
}

static void note_write(struct zcost *k, double ns_per_byte)
{
    k->write_ns_per_byte[k->write_next] = ns_per_byte;
    k->write_next = (k->write_next + 1) % WRITE_SAMPLES;
}

/* The cheapest recent write per byte; 0 before the first. */
static double write_cost(const struct zcost *k)
{
    double min = k->write_ns_per_byte[0];
    unsigned int i;

    for (i = 1; i < WRITE_SAMPLES; i++) {
        if (k->write_ns_per_byte[i] > 0 &&
            (min == 0 || k->write_ns_per_byte[i] < min)) {
            min = k->write_ns_per_byte[i];
        }
    }
    return min;
}

/*
 * Whether to compress the next chunk. With the writer idle, always: the
 * time is free. When vCPU chunks queue up, only if compressing costs less
 * than writing the bytes it saves (the page cache slows down once the
 * disk lags); every PROBE_EVERY-th chunk is compressed anyway so that the
 * estimates follow the data.
 */
static bool worth_compressing(struct sink_file *f)
{
    struct zcost *k = &f->cost;

    if (!writer_is_behind() || ++k->skipped >= PROBE_EVERY) {
        return true;
    }
    return k->zstd_ns_per_byte < (1 - k->ratio) * write_cost(k);
}

/* c's payload, compressed when that pays: *flags gains QTRACE_CHUNK_ZSTD. */
static const void *chunk_payload(struct sink_file *f, const struct chunk *c,
                                 uint16_t *flags, uint32_t *len)
{
    const void *out;
    uint64_t t0;
    size_t n;

    if (!f->z || c->len == 0 || !worth_compressing(f)) {
        return c->data;
    }
    f->cost.skipped = 0;
    t0 = now_ns();
    n = zchunk_deflate(f->z, c->data, c->len, &out);
    ewma(&f->cost.zstd_ns_per_byte, (double)(now_ns() - t0) / c->len);
    ewma(&f->cost.ratio, n ? (double)n / c->len : 1.0);
    if (!n) {
        return c->data;
    }
    *flags |= QTRACE_CHUNK_ZSTD;
    *len = (uint32_t)n;
    return out;
}

/*
 * What c holds, for the trace's INDEX chunk: a packed chunk says it (the
 * packer notes it on its way), a raw one is walked, record by record.
 */
static void chunk_events(const struct chunk *c, uint64_t *events)
{
    static const struct index_ids ids = {
        .exec_tb = QTRACE_EV_EXEC_TB, .mem_access = QTRACE_EV_MEM_ACCESS,
        .func_entry = QTRACE_EV_FUNC_ENTRY, .func_exit = QTRACE_EV_FUNC_EXIT,
    };

    _Static_assert(CHUNK_EVENT_WORDS == INDEX_WORDS, "event bit words");
    if (c->has_events) {
        memcpy(events, c->events, sizeof(c->events));
        return;
    }
    memset(events, 0, INDEX_WORDS * sizeof(*events));
    index_scan_payload(c->data, c->len, c->flags, &ids,
                       events);
}

static int file_chunk(struct sink *s, const struct chunk *c)
{
    uint64_t events[INDEX_WORDS];
    struct sink_file *f = (struct sink_file *)s;
    uint16_t flags = c->flags;
    uint32_t len = c->len;
    const void *payload;
    struct qtrace_err err;
    int ret = write_info(f);
    uint64_t t0;

    f->info_done = true;
    if (ret < 0) {
        return ret;
    }
    chunk_events(c, events);
    payload = chunk_payload(f, c, &flags, &len);
    t0 = now_ns();
    /* Translation chunks are shared: their insns field means nothing. */
    ret = qtrace_writer_data_chunk(f->w, flags, c->vcpu, c->stream, payload,
                                   len, events, c->vcpu == QTRACE_VCPU_NONE ?
                                   0 : c->insns, &err);
    if (len > 0) {
        note_write(&f->cost, (double)(now_ns() - t0) / len);
    }
    if (ret < 0) {
        sink_fail(s, err.msg);
    }
    return ret;
}

static int file_close(struct sink *s, const char *end)
{
    struct sink_file *f = (struct sink_file *)s;
    struct qtrace_err err;
    int ret;

    if (!f->w) {
        return -EIO;
    }
    if (!s->failed) {
        write_info(f);
    }
    /* After a failure the END would sit after a gap: leave it out. */
    ret = qtrace_writer_close(f->w, s->failed ? NULL : end, &err);
    f->w = NULL;
    if (ret < 0) {
        sink_fail(s, err.msg);
    }
    return ret;
}

static void file_free(struct sink *s)
{
    struct sink_file *f = (struct sink_file *)s;

    if (f->w) {
        qtrace_writer_close(f->w, NULL, &(struct qtrace_err){ "" });
    }
    zchunk_deflater_free(f->z);
    free(s->target);
    free(s);
}

static const struct sink_ops sink_file_ops = {
    .kind = "out",
    .chunk = file_chunk,
    .close = file_close,
    .free = file_free,
};

struct sink *sink_file_new(const struct sink_file_cfg *cfg,
                           struct qtrace_err *err)
{
    struct sink_file *f = calloc(1, sizeof(*f));

    if (!f) {
        qtrace_err_set(err, "%s: %s", cfg->path, strerror(ENOMEM));
        return NULL;
    }
    if (cfg->compress && !(f->z = zchunk_deflater_new(cfg->zstd_level))) {
        qtrace_err_set(err, "%s: %s", cfg->path, strerror(ENOMEM));
        free(f);
        return NULL;
    }
    f->info = cfg->info;
    f->cfg = *cfg;
    f->base.ops = &sink_file_ops;
    f->base.target = strdup(cfg->path);
    f->cfg.path = f->base.target;
    /*
     * Header and META now: a bad path fails the load, and a QEMU that
     * dies at any later moment leaves a file that opens.
     */
    if (qtrace_writer_open(&f->w, cfg->path, cfg->meta(), cfg->catalog,
                           err) < 0) {
        file_free(&f->base);
        return NULL;
    }
    return &f->base;
}

bool sink_is_file(const struct sink *s)
{
    return s->ops == &sink_file_ops;
}

struct sink *sink_file_reopen(const struct sink *s, const char *path,
                              struct qtrace_err *err)
{
    struct sink_file_cfg cfg = ((const struct sink_file *)s)->cfg;

    cfg.path = path;
    return sink_file_new(&cfg, err);
}
