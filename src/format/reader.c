/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The native trace reader (docs/format.md, "Reading rules"), its walk:
 * checks every chunk in full before handing out its records and every
 * record before handing it out (reader-open.c opens the file and checks
 * its header and META chunk). Runs on the caller's thread; printing is
 * left to the caller.
 */
#include <endian.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "le.h"
#include "chunk.h"
#include "etrace.h"
#include "packed.h"
#include "reader-int.h"

/*
 * Pages behind the reading position are dropped from the mapping every
 * this many bytes, so that resident memory stays bounded on a trace larger
 * than RAM. Pointers into them stay valid: the pages come back from the
 * file on the next access.
 */
#define RELEASE_WINDOW (64u << 20)

/* Record the reason the reading stopped and hand it to the caller. */
static int stop(struct qtrace_reader *rd, int ret, struct qtrace_err *err,
                const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static int stop(struct qtrace_reader *rd, int ret, struct qtrace_err *err,
                const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(rd->stop_msg, sizeof(rd->stop_msg), fmt, ap);
    va_end(ap);
    rd->state = RD_FAILED;
    rd->stop_ret = ret;
    rd->walk.pos = rd->walk.end = rd->map;
    qtrace_err_set(err, "%s", rd->stop_msg);
    reader_progress(rd, rd->size);
    return ret;
}

/* ---- chunks ---- */

int reader_check_chunk(struct qtrace_reader *rd, uint64_t off, uint64_t no,
                       struct qtrace_chunk_hdr *hdr, const uint8_t **payload,
                       struct qtrace_err *err)
{
    const uint8_t *p = rd->map + off;
    uint64_t left = rd->size - off;

    if (left < CHUNK_HDR_SIZE) {
        return stop(rd, -ENODATA, err, "chunk %" PRIu64 " at offset 0x%"
                    PRIx64 ": truncated (header needs %u bytes, %" PRIu64
                    " left)", no, off, CHUNK_HDR_SIZE, left);
    }
    hdr->magic = load32(p);
    hdr->kind = load16(p + 4);
    hdr->flags = load16(p + 6);
    hdr->vcpu = load32(p + 8);
    hdr->stream = load32(p + 12);
    hdr->len = load32(p + 16);
    hdr->crc = load32(p + 20);
    hdr->seq = load64(p + 24);
    if (hdr->magic != QTRACE_CHUNK_MAGIC) {
        return stop(rd, -EBADMSG, err, "chunk %" PRIu64 " at offset 0x%"
                    PRIx64 ": bad magic", no, off);
    }
    if (hdr->len > QTRACE_CHUNK_MAX) {
        return stop(rd, -EBADMSG, err, "chunk %" PRIu64 " at offset 0x%"
                    PRIx64 ": payload length %" PRIu32 " over the limit "
                    "(%u)", no, off, hdr->len, QTRACE_CHUNK_MAX);
    }
    left -= CHUNK_HDR_SIZE;
    if (hdr->len > left) {
        return stop(rd, -ENODATA, err, "chunk %" PRIu64 " at offset 0x%"
                    PRIx64 ": truncated payload (need %" PRIu32 " bytes, %"
                    PRIu64 " left)", no, off, hdr->len, left);
    }
    *payload = p + CHUNK_HDR_SIZE;
    if (qtrace_chunk_crc((const struct qtrace_chunk_hdr *)(const void *)p,
                         *payload, hdr->len) != hdr->crc) {
        return stop(rd, -EBADMSG, err, "chunk %" PRIu64 " at offset 0x%"
                    PRIx64 ": checksum mismatch", no, off);
    }
    /* A valid chunk in the wrong place: files spliced together. */
    if (hdr->seq != no) {
        return stop(rd, -EBADMSG, err, "chunk %" PRIu64 " at offset 0x%"
                    PRIx64 ": out of sequence (seq %" PRIu64 ")", no, off,
                    hdr->seq);
    }
    return 0;
}

/* Drop the pages well behind off from the mapping (see RELEASE_WINDOW). */
static void release_behind(struct qtrace_reader *rd, uint64_t off)
{
    uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
    uint64_t upto;

    /*
     * Sums, not a difference: after a rewind off is below released, and a
     * wrapped length would drop memory that is not the file's.
     */
    if (off < rd->released + 2ull * RELEASE_WINDOW) {
        return;
    }
    upto = (off - RELEASE_WINDOW) & ~(page - 1);
    madvise((void *)(rd->map + rd->released), upto - rd->released,
            MADV_DONTNEED);
    rd->released = upto;
}

static int read_end_chunk(struct qtrace_reader *rd, uint64_t no,
                          uint64_t off, const uint8_t *payload, uint32_t len,
                          struct qtrace_err *err)
{
    char why[256];

    if (kv_parse(&rd->end, payload, len, why, sizeof(why)) < 0) {
        return stop(rd, -EBADMSG, err, "chunk %" PRIu64 " at offset 0x%"
                    PRIx64 ": END chunk: %s", no, off, why);
    }
    rd->has_end = true;
    rd->state = RD_END;
    return 0;
}

/*
 * Move to the next chunk: a DATA chunk becomes the current one, END ends
 * the reading, unknown kinds with a valid checksum are skipped. Returns 0
 * or -errno (the reading has then stopped).
 */
static int enter_chunk(struct qtrace_reader *rd, struct qtrace_err *err)
{
    struct qtrace_chunk_hdr hdr;
    const uint8_t *payload;
    uint64_t off = rd->off;
    uint64_t no = rd->chunk_no;
    char why[160];
    size_t len;
    int ret;

    if (off == rd->size) {
        rd->state = RD_CLEAN_END;
        return 0;
    }
    ret = reader_check_chunk(rd, off, no, &hdr, &payload, err);
    if (ret < 0) {
        return ret;
    }
    rd->off = off + CHUNK_HDR_SIZE + hdr.len;
    rd->chunk_no++;
    len = hdr.len;
    release_behind(rd, off);
    switch (hdr.kind) {
    case QTRACE_CHUNK_DATA:
        if (hdr.stream > rd->streams_bound) {
            return stop(rd, -EBADMSG, err, "chunk %" PRIu64 " at offset 0x%"
                        PRIx64 ": stream %" PRIu32 ", over the streams=%"
                        PRIu64 " of the END chunk", no, off, hdr.stream,
                        rd->streams_bound);
        }
        if (hdr.flags & ~(QTRACE_CHUNK_ZSTD | QTRACE_CHUNK_PACKED_FLAGS) ||
            (hdr.flags & QTRACE_CHUNK_ACCESSES &&
             !(hdr.flags & QTRACE_CHUNK_PACKED)) ||
            (hdr.flags & (QTRACE_CHUNK_PHYS | QTRACE_CHUNK_ACCESS_REL) &&
             !(hdr.flags & QTRACE_CHUNK_ACCESSES))) {
            return stop(rd, -ENOTSUP, err, "chunk %" PRIu64 " at offset 0x%"
                        PRIx64 ": unsupported payload encoding (flags 0x%x)",
                        no, off, hdr.flags);
        }
        rd->inflated = hdr.flags & QTRACE_CHUNK_ZSTD;
        if (rd->inflated &&
            zchunk_inflate(&rd->zbuf, payload, hdr.len, QTRACE_CHUNK_MAX,
                           &payload, &len, why, sizeof(why)) < 0) {
            return stop(rd, -EBADMSG, err, "chunk %" PRIu64 " at offset 0x%"
                        PRIx64 ": %s", no, off, why);
        }
        if (hdr.vcpu != QTRACE_VCPU_NONE &&
            reader_clock_enter(rd, no, payload, len, hdr.flags, err) < 0) {
            return stop(rd, -ENOMEM, err, "chunk %" PRIu64 " at offset 0x%"
                        PRIx64 ": %s", no, off, err->msg);
        }
        rd->packed = hdr.flags & QTRACE_CHUNK_PACKED;
        if (rd->packed &&
            unpack_begin(&rd->up, hdr.stream, hdr.flags, why,
                         sizeof(why)) < 0) {
            return stop(rd, -ENOMEM, err, "chunk %" PRIu64 " at offset 0x%"
                        PRIx64 ": %s", no, off, why);
        }
        rd->walk.base = payload;
        rd->walk.pos = payload;
        rd->walk.end = payload + len;
        rd->vcpu = hdr.vcpu;
        rd->stream = hdr.stream;
        rd->cur_no = no;
        rd->cur_off = off;
        return 0;
    case QTRACE_CHUNK_END:
        return read_end_chunk(rd, no, off, payload, hdr.len, err);
    case QTRACE_CHUNK_META:
        return stop(rd, -EBADMSG, err, "chunk %" PRIu64 " at offset 0x%"
                    PRIx64 ": second META chunk", no, off);
    default:
        /* A kind from a newer writer: its CRC held, so step over it. */
        return 0;
    }
}

/* ---- records ---- */

/*
 * Where p is, for messages: a file offset, or for a compressed chunk an
 * offset in its decompressed payload.
 */
static const char *where(const struct qtrace_reader *rd, const uint8_t *p,
                         char *buf, size_t len)
{
    if (rd->inflated) {
        snprintf(buf, len, "decompressed byte 0x%" PRIx64,
                 (uint64_t)(p - rd->walk.base));
    } else {
        snprintf(buf, len, "offset 0x%" PRIx64, (uint64_t)(p - rd->map));
    }
    return buf;
}

/* Bytes the record at p needs for its fixed part and variable arguments. */
static uint32_t record_need(const struct ev_info *ei, const uint8_t *p)
{
    uint32_t need = ei->fixed_size;
    unsigned int i;

    for (i = 0; i < ei->n_var; i++) {
        need += load16(p + ei->len_off[i]);
    }
    return need;
}

/*
 * The record at p failed a check of take_record: work out which one and
 * stop there. Kept out of line so the hot path stays small.
 */
static int __attribute__((noinline, cold))
bad_record(struct qtrace_reader *rd, const uint8_t *p, size_t left,
           struct qtrace_err *err)
{
    uint32_t id = left >= REC_HDR_SIZE ? load16(p) : 0;
    uint32_t size = left >= REC_HDR_SIZE ? load16(p + 2) : 0;
    const struct ev_info *ei = id <= rd->cat.n_events ? &rd->info[id] : NULL;
    char why[160], at[48];

    if (left < REC_HDR_SIZE) {
        snprintf(why, sizeof(why), "truncated record header (%zu bytes "
                 "left in the chunk)", left);
    } else if (size < REC_HDR_SIZE || size % QTRACE_REC_ALIGN != 0) {
        snprintf(why, sizeof(why), "size %" PRIu32 ", %s", size,
                 size < REC_HDR_SIZE ? "below the 16-byte record header" :
                 "not a multiple of 8");
    } else if (size > left) {
        snprintf(why, sizeof(why), "size %" PRIu32 ", past the end of the "
                 "chunk (%zu bytes left)", size, left);
    } else if (!ei || !ei->ev) {
        snprintf(why, sizeof(why), "unknown event id %" PRIu32, id);
    } else if (size < ei->fixed_size) {
        snprintf(why, sizeof(why), "size %" PRIu32 " below the %u bytes of "
                 "%s", size, ei->fixed_size, ei->ev->name);
    } else {
        snprintf(why, sizeof(why), "variable arguments of %s need %" PRIu32
                 " bytes, record has %" PRIu32, ei->ev->name,
                 record_need(ei, p), size);
    }
    return stop(rd, -EBADMSG, err, "chunk %" PRIu64 " at offset 0x%" PRIx64
                ": record at %s: %s", rd->cur_no, rd->cur_off,
                where(rd, p, at, sizeof(at)), why);
}

/*
 * One record more than the END chunk counts: the file is not what its
 * writer wrote. Out of line: never met in a good trace.
 */
static int __attribute__((noinline, cold))
over_end(struct qtrace_reader *rd, const uint8_t *p, struct qtrace_err *err)
{
    char at[48];

    return stop(rd, -EBADMSG, err, "chunk %" PRIu64 " at offset 0x%" PRIx64
                ": record at %s: the chunks hold more records than the "
                "records=%" PRIu64 " of the END chunk", rd->cur_no,
                rd->cur_off, where(rd, p, at, sizeof(at)),
                rd->up.records_bound);
}

/*
 * A tb_trans record: the unpacker keeps its block's pc and size, once it
 * holds as many instructions as bytes at most. Out of line: rare.
 */
static int __attribute__((noinline))
note_tb(struct qtrace_reader *rd, const uint8_t *p, struct qtrace_err *err)
{
    char why[160], at[48];

    if (unpack_note_tb(&rd->up, p, why, sizeof(why)) == 0) {
        return 0;
    }
    return stop(rd, -EBADMSG, err, "chunk %" PRIu64 " at offset 0x%" PRIx64
                ": record at %s: %s", rd->cur_no, rd->cur_off,
                where(rd, p, at, sizeof(at)), why);
}

/*
 * Check the record at p (left bytes readable; docs/format.md, "Records")
 * and hand it out; returns its size. Hot path: no allocation, no copy
 * beyond the few header fields, no formatting (bad_record does that).
 */
static inline int take_record(struct qtrace_reader *rd, const uint8_t *p,
                              size_t left, struct qtrace_record *rec,
                              struct qtrace_err *err)
{
    const struct ev_info *ei;
    uint32_t size;
    uint32_t id;

    if (left < REC_HDR_SIZE) {
        return bad_record(rd, p, left, err);
    }
    id = load16(p);
    size = load16(p + 2);
    if (id > rd->cat.n_events) {
        return bad_record(rd, p, left, err);
    }
    /* info[0].fixed_size is above any valid size, so id 0 fails here. */
    ei = &rd->info[id];
    if (size > left || size % QTRACE_REC_ALIGN != 0 ||
        size < ei->fixed_size) {
        return bad_record(rd, p, left, err);
    }
    if (ei->n_var > 0 && record_need(ei, p) > size) {
        return bad_record(rd, p, left, err);
    }
    /*
     * A record from the file counts against END's records=; one the
     * unpacker rebuilt from a block packet was counted by the packet.
     */
    if (!unpack_rebuilt(&rd->up, p)) {
        if (__builtin_expect(rd->up.records_left == 0, 0)) {
            return over_end(rd, p, err);
        }
        rd->up.records_left--;
    }
    if (id == rd->up.tb_trans_id && note_tb(rd, p, err) < 0) {
        return rd->stop_ret;
    }
    /* The stamps the records after it are placed from (reader-clock.c). */
    rd->clk.k += id == rd->clk.id;
    rec->ev = ei->ev;
    rec->data = p;
    rec->size = size;
    rec->vcpu = rd->vcpu;
    rec->stream = rd->stream;
    rec->time = load64(p + 8);
    rec->chunk_seq = rd->cur_no;
    return (int)size;
}

/* A malformed packet: stop there. Out of line: never met in a good trace. */
static int __attribute__((noinline, cold))
bad_packet(struct qtrace_reader *rd, const char *why, struct qtrace_err *err)
{
    char at[48];

    return stop(rd, -EBADMSG, err, "chunk %" PRIu64 " at offset 0x%"
                PRIx64 ": packet at %s: %s", rd->cur_no, rd->cur_off,
                where(rd, rd->walk.pos, at, sizeof(at)), why);
}

/* Next record of a packed chunk: 1, 0 when the chunk is done, -errno. */
static inline int take_packed(struct qtrace_reader *rd,
                              struct qtrace_record *rec,
                              struct qtrace_err *err)
{
    const uint8_t *p;
    int ret;

    ret = unpack_next(&rd->up, &rd->walk);
    p = rd->walk.rec;
    if (__builtin_expect(ret == 1, 1)) {
        /*
         * A record the unpacker rebuilt with a layout of the trace's own
         * catalog (size rounded to 8, no variable part, counted by its
         * packet, never a tb_trans): valid by construction, so the
         * checks of take_record, a quarter of the reading's time on a
         * trace of blocks and accesses, are spared.
         */
        uint32_t id = load16(p);

        rec->ev = rd->info[id].ev;
        rec->data = p;
        rec->size = load16(p + 2);
        rec->vcpu = rd->vcpu;
        rec->stream = rd->stream;
        rec->time = load64(p + 8);
        rec->chunk_seq = rd->cur_no;
        return 1;
    }
    if (ret == 0) {
        rd->walk.pos = rd->walk.end;
        rd->packed = false;
        return 0;
    }
    if (ret < 0) {
        return bad_packet(rd, rd->walk.why, err);
    }
    ret = take_record(rd, p, rd->walk.avail, rec, err);
    if (ret > 0 && p >= rd->walk.base && p < rd->walk.end) {
        rd->walk.pos = p + ret; /* a record carried in the payload */
    }
    return ret > 0 ? 1 : ret;
}

/*
 * An etrace file: the decoder turns its records into native ones; a clean
 * end of the stream counts as its END (etrace has none).
 */
static int next_etrace(struct qtrace_reader *rd, struct qtrace_record *rec,
                       struct qtrace_err *err)
{
    struct etrace_rec er;
    struct qtrace_err why;
    int ret;

    if (rd->state == RD_FAILED) {
        qtrace_err_set(err, "%s", rd->stop_msg);
        return rd->stop_ret;
    }
    if (rd->state != RD_READING) {
        return 0;
    }
    ret = etrace_dec_next(rd->etr, &er, &why);
    if (ret < 0) {
        return stop(rd, ret, err, "%s", why.msg);
    }
    if (ret == 0) {
        rd->state = RD_END;
        rd->has_end = true;
        return 0;
    }
    rec->ev = rd->info[er.id].ev;
    rec->data = er.data;
    rec->size = er.size;
    rec->vcpu = er.unit;
    rec->stream = 0;
    rec->time = er.time;
    rec->chunk_seq = er.index;
    return 1;
}

/*
 * The current chunk is used up: enter the next one. Returns 1 to go on,
 * 0 at the end of the readable trace, -errno once it stopped early.
 */
static int advance(struct qtrace_reader *rd, struct qtrace_err *err)
{
    int ret;

    switch (rd->state) {
    case RD_READING:
        break;
    case RD_FAILED:
        qtrace_err_set(err, "%s", rd->stop_msg);
        return rd->stop_ret;
    default:
        return 0;
    }
    if (rd->selecting) {
        reader_index_seek(rd);
        if (rd->state == RD_FAILED) {
            qtrace_err_set(err, "%s", rd->stop_msg);
            return rd->stop_ret;
        }
    }
    reader_progress(rd, rd->off);
    ret = enter_chunk(rd, err);
    if (ret == 0 && rd->state != RD_READING) {
        reader_progress(rd, rd->size);
    }
    return ret < 0 ? ret : 1;
}

/* The next record, selected or not. */
static int next_any(struct qtrace_reader *rd, struct qtrace_record *rec,
                    struct qtrace_err *err)
{
    int ret;

    if (rd->etr) {
        return next_etrace(rd, rec, err);
    }
    for (;;) {
        /* A packet's blocks may outlive its bytes: check both. */
        if (rd->packed && (rd->walk.pos < rd->walk.end ||
                           unpack_has_pending(&rd->up))) {
            ret = take_packed(rd, rec, err);
            if (ret != 0) {
                return ret;
            }
            continue;
        }
        if (rd->walk.pos < rd->walk.end) {
            ret = take_record(rd, rd->walk.pos,
                              (size_t)(rd->walk.end - rd->walk.pos),
                              rec, err);
            if (ret < 0) {
                return ret;
            }
            rd->walk.pos += ret;
            return 1;
        }
        ret = advance(rd, err);
        if (ret <= 0) {
            return ret;
        }
    }
}

/* Whether qtrace_reader_select asked for rec. */
static inline bool selected(const struct qtrace_reader *rd,
                            const struct qtrace_record *rec)
{
    return index_mask_has(rd->want, rec->ev->id) &&
           !(rd->sel_one && rec->vcpu != QTRACE_VCPU_NONE &&
             rec->stream != rd->sel_stream);
}

int qtrace_reader_next(struct qtrace_reader *rd, struct qtrace_record *rec,
                       struct qtrace_err *err)
{
    if (rd->ahead) {
        /* Inline: a record of the batch in hand, the common case. */
        if (__builtin_expect(rd->ahead_cur < rd->ahead_end, 1)) {
            *rec = *rd->ahead_cur++;
            return 1;
        }
        return reader_ahead_next(rd, rec, err);
    }
    /*
     * A packed chunk: the unpacker's record taken from here, without
     * the layers of reader_next_here (a sixth of the reading's
     * instructions on a trace of blocks and accesses); one not selected
     * is passed over there.
     */
    if (__builtin_expect(rd->packed, 1)) {
        int ret = take_packed(rd, rec, err);

        if (ret > 0 && (!rd->selecting || selected(rd, rec))) {
            return 1;
        }
        if (ret < 0) {
            return ret;
        }
    }
    return reader_next_here(rd, rec, err);
}

int reader_next_here(struct qtrace_reader *rd, struct qtrace_record *rec,
                     struct qtrace_err *err)
{
    int ret;

    do {
        ret = next_any(rd, rec, err);
    } while (ret > 0 && rd->selecting && !selected(rd, rec));
    return ret;
}

/*
 * Count a packed chunk whose blocks make predicted accesses: only the
 * predictor knows how many, so its records are made and counted.
 */
static int count_expanded(struct qtrace_reader *rd, uint64_t *counts,
                          uint64_t *n, uint64_t *last_time,
                          struct qtrace_err *err)
{
    struct qtrace_record rec = { .ev = NULL };
    int ret;

    while (rd->walk.pos < rd->walk.end || unpack_has_pending(&rd->up)) {
        ret = take_packed(rd, &rec, err);
        if (ret <= 0) {
            return ret;
        }
        counts[rec.ev->id]++;
        (*n)++;
        if (rec.time > *last_time) {
            *last_time = rec.time;
        }
    }
    return 0;
}

/* Count one packed chunk's packets into counts (see count_chunk). */
static int count_packed(struct qtrace_reader *rd, uint64_t *counts,
                        uint64_t *n, uint64_t *last_time,
                        struct qtrace_err *err)
{
    struct qtrace_record rec = { .ev = NULL };
    const uint8_t *p;
    char at[48];
    int ret;

    for (;;) {
        ret = unpack_count(&rd->up, &rd->walk, counts, n);
        p = rd->walk.rec;
        if (ret == 0) {
            return 0;
        }
        if (ret == 3) {
            return count_expanded(rd, counts, n, last_time, err);
        }
        if (ret < 0) {
            return stop(rd, -EBADMSG, err, "chunk %" PRIu64 " at offset 0x%"
                        PRIx64 ": packet at %s: %s", rd->cur_no, rd->cur_off,
                        where(rd, rd->walk.pos, at, sizeof(at)),
                        rd->walk.why);
        }
        ret = take_record(rd, p, rd->walk.avail, &rec, err);
        if (ret < 0) {
            return ret;
        }
        counts[rec.ev->id]++;
        (*n)++;
        if (rec.time > *last_time) {
            *last_time = rec.time;
        }
        rd->walk.pos = p + ret;
    }
}

int qtrace_reader_count_chunk(struct qtrace_reader *rd, uint64_t *counts,
                              struct qtrace_chunk_count *cc,
                              struct qtrace_err *err)
{
    struct qtrace_record rec = { .ev = NULL };
    const struct index_entry *e;
    uint64_t n = 0;
    int ret;

    reader_ahead_pause(rd);
    cc->insns = 0;
    cc->last_time = 0;
    if (rd->etr) {
        /* etrace has no chunks: a record at a time. */
        ret = qtrace_reader_next(rd, &rec, err);
        if (ret <= 0) {
            return ret;
        }
        counts[rec.ev->id]++;
        cc->vcpu = rec.vcpu;
        cc->stream = rec.stream;
        cc->chunk_seq = rec.chunk_seq;
        cc->records = 1;
        cc->last_time = rec.time;
        return 1;
    }
    while (rd->walk.pos >= rd->walk.end) {
        ret = advance(rd, err);
        if (ret <= 0) {
            return ret;
        }
    }
    cc->vcpu = rd->vcpu;
    cc->stream = rd->stream;
    cc->chunk_seq = rd->cur_no;
    e = rd->ix_from_file ? reader_index_entry(rd, rd->cur_no) : NULL;
    cc->insns = e ? e->insns : 0;
    if (rd->packed) {
        ret = count_packed(rd, counts, &n, &cc->last_time, err);
        rd->packed = false;
    } else {
        ret = 0;
        while (rd->walk.pos < rd->walk.end) {
            ret = take_record(rd, rd->walk.pos,
                              (size_t)(rd->walk.end - rd->walk.pos),
                              &rec, err);
            if (ret < 0) {
                break;
            }
            counts[rec.ev->id]++;
            n++;
            if (rec.time > cc->last_time) {
                cc->last_time = rec.time;
            }
            rd->walk.pos += ret;
            ret = 0;
        }
    }
    cc->records = n;
    rd->walk.pos = rd->walk.end;
    return ret < 0 ? ret : 1;
}

int qtrace_reader_charge(struct qtrace_reader *rd, uint64_t bytes,
                         struct qtrace_err *err)
{
    char why[160];

    if (!budget_take(&rd->budget, bytes, why, sizeof(why))) {
        qtrace_err_set(err, "%s", why);
        return -ENOMEM;
    }
    return 0;
}

void qtrace_reader_set_progress(struct qtrace_reader *rd,
                                qtrace_progress_fn fn, void *arg)
{
    reader_ahead_pause(rd);
    rd->progress = fn;
    rd->progress_arg = arg;
}

void qtrace_reader_rewind(struct qtrace_reader *rd)
{
    reader_ahead_drop(rd);
    unpack_reset(&rd->up);
    rd->released = 0;           /* dropped pages come back when read */
    rd->off = rd->first_off;
    rd->chunk_no = 1;
    rd->walk.pos = rd->walk.end = rd->map;
    rd->state = RD_READING;
    rd->stop_ret = 0;
    rd->stop_msg[0] = '\0';
    rd->sel_next = 0;
    if (rd->etr) {
        etrace_dec_rewind(rd->etr);
    }
}
