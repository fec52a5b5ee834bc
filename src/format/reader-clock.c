/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The native trace reader, its timeline half (docs/format.md,
 * "Timeline"): in a trace recorded with timeline=on every chunk of a
 * vCPU stream holds clock records, stamps of the recording host's clock
 * where the chunk begins and ends and where the vCPU stood still. When
 * a chunk is entered its stamps are found (its record packets only, no
 * block expanded); each record handed out then gets a host time from
 * the stamps around it (clockmap.c), so that every vCPU is on one clock.
 * Runs on the caller's thread, like the rest of the reader.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "le.h"
#include "chunk.h"
#include "packed.h"
#include "reader-int.h"

/* The clock event's arguments, or false when it lacks one. */
static bool clock_args(const struct qtrace_event_desc *ev, uint16_t *ns,
                       uint16_t *resume)
{
    int i = -1, j = -1;
    unsigned int a;

    for (a = 0; ev && a < ev->n_args; a++) {
        if (strcmp(ev->args[a].name, "ns") == 0) {
            i = (int)a;
        } else if (strcmp(ev->args[a].name, "resume_ns") == 0) {
            j = (int)a;
        }
    }
    /* catalog-check.c has checked their widths against the layout. */
    if (i < 0 || j < 0) {
        return false;
    }
    *ns = ev->args[i].offset;
    *resume = ev->args[j].offset;
    return true;
}

/*
 * META's timeline says the clock records hold stamps (every catalog of a
 * writer that knows the clock event has it, recorded or not).
 */
static bool stamped(const struct qtrace_reader *rd)
{
    const char *clock = qtrace_reader_meta(rd, "timeline");

    return !rd->etr && clock && strcmp(clock, "monotonic") == 0;
}

bool qtrace_reader_has_timeline(const struct qtrace_reader *rd)
{
    uint16_t a, b;

    return stamped(rd) &&
           clock_args(qtrace_catalog_find(&rd->cat, "clock"), &a, &b);
}

int qtrace_reader_use_timeline(struct qtrace_reader *rd,
                               struct qtrace_err *err)
{
    const struct qtrace_event_desc *ev = qtrace_catalog_find(&rd->cat,
                                                             "clock");
    const char *origin = qtrace_reader_meta(rd, "timeline_origin");
    struct reader_clock *c = &rd->clk;
    char *end;

    if (!stamped(rd) || !clock_args(ev, &c->off_ns, &c->off_resume)) {
        qtrace_err_set(err, "no host clock stamps (the trace was recorded "
                       "without timeline=on)");
        return -ENODATA;
    }
    /*
     * Host times follow the chunk being decoded: a reading thread ahead
     * of the caller would give each record a later chunk's clock.
     */
    qtrace_reader_set_ahead(rd, false);
    c->id = (uint16_t)ev->id;
    c->origin = 0;
    if (origin && *origin >= '0' && *origin <= '9') {
        errno = 0;
        c->origin = strtoull(origin, &end, 10);
        if (errno || *end) {
            c->origin = 0;
        }
    }
    c->n = c->k = 0;
    c->no = UINT64_MAX;
    return 0;
}

/* Where reader_clock_enter's walk keeps what it found. */
struct clock_scan {
    struct qtrace_reader *rd;
    int ret;                        /* -ENOMEM once out of memory */
    char why[160];
};

static void note_record(void *arg, const uint8_t *rec, size_t size)
{
    struct clock_scan *s = arg;
    struct reader_clock *c = &s->rd->clk;
    struct clock_stamp *st;
    size_t cap;

    if (load16(rec) != c->id || size < s->rd->info[c->id].fixed_size ||
        s->ret < 0) {
        return;
    }
    if (c->n == c->cap) {
        cap = c->cap ? 2 * c->cap : 64;
        /* A hostile chunk of clock records only: bounded by the budget. */
        if (!budget_take(&s->rd->budget, (cap - c->cap) * sizeof(*st),
                         s->why, sizeof(s->why))) {
            s->ret = -ENOMEM;
            return;
        }
        st = realloc(c->st, cap * sizeof(*st));
        if (!st) {
            budget_give(&s->rd->budget, (cap - c->cap) * sizeof(*st));
            snprintf(s->why, sizeof(s->why), "%s", strerror(ENOMEM));
            s->ret = -ENOMEM;
            return;
        }
        c->st = st;
        c->cap = cap;
    }
    st = &c->st[c->n++];
    st->time = load64(rec + 8);
    st->ns = load64(rec + c->off_ns);
    st->resume = load64(rec + c->off_resume);
}

int reader_clock_enter(struct qtrace_reader *rd, uint64_t no,
                       const uint8_t *payload, size_t len, uint16_t flags,
                       struct qtrace_err *err)
{
    struct reader_clock *c = &rd->clk;
    struct clock_scan s = { .rd = rd, .ret = 0 };

    if (!c->id) {
        return 0;
    }
    c->n = c->k = 0;
    c->no = no;
    /*
     * A malformed payload stops the reading where its records do: the
     * stamps before that point are all the records before it need.
     */
    c->bad = index_each_record(payload, len, flags, note_record, &s) < 0;
    if (s.ret < 0) {
        qtrace_err_set(err, "%s", s.why);
        c->n = 0;
        return s.ret;
    }
    clockmap_clamp(c->st, c->n);
    return 0;
}

bool qtrace_reader_host_time(const struct qtrace_reader *rd,
                             const struct qtrace_record *rec, uint64_t *ns)
{
    const struct reader_clock *c = &rd->clk;
    uint64_t t;

    if (!c->id || rec->vcpu == QTRACE_VCPU_NONE || rec->chunk_seq != c->no ||
        c->n == 0) {
        return false;
    }
    /* A stamp is at its own moment: when the vCPU stopped. */
    if (rec->ev && rec->ev->id == c->id && c->k > 0) {
        t = c->st[c->k - 1 < c->n ? c->k - 1 : c->n - 1].ns;
    } else {
        t = clockmap_at(c->st, c->n, c->k, rec->time);
    }
    *ns = t > c->origin ? t - c->origin : 0;
    return true;
}

/* Collects the first and last stamps of one chunk. */
struct span_scan {
    uint16_t id, off_ns, off_resume;
    uint16_t fixed;
    bool any;
    uint64_t first, last;
};

static void note_span(void *arg, const uint8_t *rec, size_t size)
{
    struct span_scan *s = arg;

    if (load16(rec) != s->id || size < s->fixed) {
        return;
    }
    if (!s->any) {
        s->first = load64(rec + s->off_ns);
        s->any = true;
    }
    s->last = load64(rec + s->off_resume);
}

int reader_chunk_records(struct qtrace_reader *rd, uint64_t chunk_seq,
                         index_record_fn fn, void *arg,
                         struct qtrace_err *err)
{
    const struct index_entry *e;
    const uint8_t *p, *payload;
    size_t len;
    uint32_t hlen;
    uint16_t flags;
    char why[160];
    int ret;

    ret = reader_index_ready(rd, err);
    if (ret < 0) {
        return ret;
    }
    /* Its payload may go through the reader's buffer: start again. */
    qtrace_reader_rewind(rd);
    e = reader_index_entry(rd, chunk_seq);
    if (!e || e->off > rd->size - CHUNK_HDR_SIZE) {
        qtrace_err_set(err, "chunk %" PRIu64 ": not a DATA chunk of the "
                       "trace's index", chunk_seq);
        return -ENOENT;
    }
    p = rd->map + e->off;
    hlen = load32(p + 16);
    flags = load16(p + 6);
    if (load32(p) != QTRACE_CHUNK_MAGIC || load16(p + 4) != QTRACE_CHUNK_DATA ||
        hlen > QTRACE_CHUNK_MAX || hlen > rd->size - e->off - CHUNK_HDR_SIZE ||
        qtrace_chunk_crc((const struct qtrace_chunk_hdr *)(const void *)p,
                         p + CHUNK_HDR_SIZE, hlen) != load32(p + 20) ||
        (flags & ~(QTRACE_CHUNK_ZSTD | QTRACE_CHUNK_PACKED_FLAGS))) {
        qtrace_err_set(err, "chunk %" PRIu64 " at offset 0x%" PRIx64
                       ": not a valid DATA chunk", chunk_seq, e->off);
        return -EBADMSG;
    }
    payload = p + CHUNK_HDR_SIZE;
    len = hlen;
    if ((flags & QTRACE_CHUNK_ZSTD) &&
        zchunk_inflate(&rd->zbuf, payload, hlen, QTRACE_CHUNK_MAX, &payload,
                       &len, why, sizeof(why)) < 0) {
        qtrace_err_set(err, "chunk %" PRIu64 " at offset 0x%" PRIx64 ": %s",
                       chunk_seq, e->off, why);
        return -EBADMSG;
    }
    /* What a malformed payload carries before the fault is still seen. */
    index_each_record(payload, len, flags, fn, arg);
    return 0;
}

int qtrace_reader_chunk_span(struct qtrace_reader *rd, uint64_t chunk_seq,
                             uint64_t *first_ns, uint64_t *last_ns,
                             struct qtrace_err *err)
{
    struct span_scan s = { .any = false };
    int ret;

    if (!rd->clk.id) {
        ret = qtrace_reader_use_timeline(rd, err);
        if (ret < 0) {
            return ret;
        }
    }
    s.id = rd->clk.id;
    s.off_ns = rd->clk.off_ns;
    s.off_resume = rd->clk.off_resume;
    s.fixed = rd->info[s.id].fixed_size;
    ret = reader_chunk_records(rd, chunk_seq, note_span, &s, err);
    if (ret < 0) {
        return ret;
    }
    if (!s.any) {
        qtrace_err_set(err, "chunk %" PRIu64 ": no host clock stamp",
                       chunk_seq);
        return -ENODATA;
    }
    *first_ns = s.first > rd->clk.origin ? s.first - rd->clk.origin : 0;
    *last_ns = s.last > rd->clk.origin ? s.last - rd->clk.origin : 0;
    if (*last_ns < *first_ns) {
        *last_ns = *first_ns;
    }
    return 0;
}
