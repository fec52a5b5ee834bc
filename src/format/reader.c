/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The native trace reader (docs/format.md, "Reading rules"): maps the file,
 * checks the header and the META chunk at open, then checks every chunk in
 * full before handing out its records and every record before handing it
 * out. Runs on the caller's thread; printing is left to the caller.
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "le.h"
#include "chunk.h"
#include "etrace.h"
#include "kv.h"
#include "packed.h"
#include "qtrace/reader.h"
#include "unpack.h"
#include "zchunk.h"

#define CHUNK_HDR_SIZE ((uint32_t)sizeof(struct qtrace_chunk_hdr))
#define REC_HDR_SIZE ((uint32_t)sizeof(struct qtrace_rec))

/*
 * Pages behind the reading position are dropped from the mapping every
 * this many bytes, so that resident memory stays bounded on a trace larger
 * than RAM. Pointers into them stay valid: the pages come back from the
 * file on the next access.
 */
#define RELEASE_WINDOW (64u << 20)

/* What take_record needs to know about one event id. */
struct ev_info {
    const struct qtrace_event_desc *ev; /* NULL for id 0 */
    uint16_t fixed_size;            /* header and fixed arguments */
    uint16_t n_var;                 /* STR and BYTES arguments */
    uint16_t len_off[QTRACE_MAX_ARGS]; /* offset of each u16 length */
};

enum reader_state {
    RD_READING,                     /* more chunks may follow */
    RD_CLEAN_END,                   /* file ended after a complete chunk */
    RD_END,                         /* END chunk reached */
    RD_FAILED,                      /* stopped at an invalid chunk/record */
};

struct qtrace_reader {
    const uint8_t *map;             /* the whole file, read-only */
    size_t size;                    /* bytes mapped */
    uint64_t first_off;             /* offset of the chunk after META */
    uint64_t off;                   /* offset of the next chunk to check */
    uint64_t chunk_no;              /* index of that chunk (META is 0) */
    uint64_t released;              /* mapping dropped below this offset */

    /* The DATA chunk whose records are being handed out. */
    const uint8_t *rec;             /* next record (or packet) */
    const uint8_t *rec_end;         /* end of the chunk's payload */
    const uint8_t *payload;         /* its start (packet alignment) */
    bool packed;                    /* payload is a packet stream */
    bool inflated;                  /* payload is zbuf's, not the file's */
    struct unpacker up;             /* expands packed chunks */
    struct zchunk_inflater zbuf;    /* decompresses zstd chunks */
    uint32_t vcpu;
    uint32_t stream;
    uint64_t cur_no;                /* its chunk index */
    uint64_t cur_off;               /* its file offset */

    struct qtrace_catalog cat;
    struct ev_info *info;           /* indexed by event id, 0..n_events */
    struct kv_list meta;
    struct kv_list end;
    bool has_end;
    enum reader_state state;
    int stop_ret;                   /* -errno of the failure */
    char stop_msg[sizeof(((struct qtrace_err *)0)->msg)];
    struct etrace_dec *etr;         /* an etrace file (etrace.c), or NULL */
};

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
    rd->rec = rd->rec_end = rd->map;
    qtrace_err_set(err, "%s", rd->stop_msg);
    return ret;
}

/* ---- key=value text (META and END) ---- */

/* ---- chunks ---- */

/*
 * Check the chunk at off in full (docs/format.md, "When a chunk is
 * valid"). Returns 0 with *hdr in host order and *payload, or -ENODATA
 * (file cut inside the chunk) / -EBADMSG with the reason in the reader.
 */
static int check_chunk(struct qtrace_reader *rd, uint64_t off, uint64_t no,
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
    ret = check_chunk(rd, off, no, &hdr, &payload, err);
    if (ret < 0) {
        return ret;
    }
    rd->off = off + CHUNK_HDR_SIZE + hdr.len;
    rd->chunk_no++;
    len = hdr.len;
    release_behind(rd, off);
    switch (hdr.kind) {
    case QTRACE_CHUNK_DATA:
        if (hdr.flags & ~(QTRACE_CHUNK_PACKED | QTRACE_CHUNK_ZSTD)) {
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
        rd->packed = hdr.flags & QTRACE_CHUNK_PACKED;
        if (rd->packed && unpack_begin(&rd->up, hdr.stream) < 0) {
            return stop(rd, -ENOMEM, err, "chunk %" PRIu64 ": %s", no,
                        strerror(ENOMEM));
        }
        rd->payload = payload;
        rd->rec = payload;
        rd->rec_end = payload + len;
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
                 (uint64_t)(p - rd->payload));
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
    if (id == rd->up.tb_trans_id) {
        unpack_note_tb(&rd->up, p);
    }
    rec->ev = ei->ev;
    rec->data = p;
    rec->size = size;
    rec->vcpu = rd->vcpu;
    rec->stream = rd->stream;
    rec->time = load64(p + 8);
    rec->chunk_seq = rd->cur_no;
    return (int)size;
}

/* Next record of a packed chunk: 1, 0 when the chunk is done, -errno. */
static int take_packed(struct qtrace_reader *rd, struct qtrace_record *rec,
                       struct qtrace_err *err)
{
    const uint8_t *p = NULL;
    size_t avail = 0;
    char why[160], at[48];
    int ret;

    ret = unpack_next(&rd->up, rd->payload, &rd->rec, rd->rec_end, &p,
                      &avail, why, sizeof(why));
    if (ret == 0) {
        rd->rec = rd->rec_end;
        rd->packed = false;
        return 0;
    }
    if (ret < 0) {
        return stop(rd, -EBADMSG, err, "chunk %" PRIu64 " at offset 0x%"
                    PRIx64 ": packet at %s: %s", rd->cur_no, rd->cur_off,
                    where(rd, rd->rec, at, sizeof(at)), why);
    }
    ret = take_record(rd, p, avail, rec, err);
    if (ret > 0 && p >= rd->payload && p < rd->rec_end) {
        rd->rec = p + ret;      /* a record carried in the payload */
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
    ret = enter_chunk(rd, err);
    return ret < 0 ? ret : 1;
}

int qtrace_reader_next(struct qtrace_reader *rd, struct qtrace_record *rec,
                       struct qtrace_err *err)
{
    int ret;

    if (rd->etr) {
        return next_etrace(rd, rec, err);
    }
    for (;;) {
        /* A packet's blocks may outlive its bytes: check both. */
        if (rd->packed && (rd->rec < rd->rec_end || rd->up.pending ||
                           rd->up.miss)) {
            ret = take_packed(rd, rec, err);
            if (ret != 0) {
                return ret;
            }
            continue;
        }
        if (rd->rec < rd->rec_end) {
            ret = take_record(rd, rd->rec, (size_t)(rd->rec_end - rd->rec),
                              rec, err);
            if (ret < 0) {
                return ret;
            }
            rd->rec += ret;
            return 1;
        }
        ret = advance(rd, err);
        if (ret <= 0) {
            return ret;
        }
    }
}

/* Count one packed chunk's packets into counts (see count_chunk). */
static int count_packed(struct qtrace_reader *rd, uint64_t *counts,
                        uint64_t *n, struct qtrace_err *err)
{
    struct qtrace_record rec = { .ev = NULL };
    const uint8_t *p = NULL;
    size_t avail = 0;
    char why[160], at[48];
    int ret;

    for (;;) {
        ret = unpack_count(&rd->up, rd->payload, &rd->rec, rd->rec_end,
                           counts, n, &p, &avail, why, sizeof(why));
        if (ret == 0) {
            return 0;
        }
        if (ret < 0) {
            return stop(rd, -EBADMSG, err, "chunk %" PRIu64 " at offset 0x%"
                        PRIx64 ": packet at %s: %s", rd->cur_no, rd->cur_off,
                        where(rd, rd->rec, at, sizeof(at)), why);
        }
        ret = take_record(rd, p, avail, &rec, err);
        if (ret < 0) {
            return ret;
        }
        counts[rec.ev->id]++;
        (*n)++;
        rd->rec = p + ret;
    }
}

int qtrace_reader_count_chunk(struct qtrace_reader *rd, uint64_t *counts,
                              struct qtrace_chunk_count *cc,
                              struct qtrace_err *err)
{
    struct qtrace_record rec = { .ev = NULL };
    uint64_t n = 0;
    int ret;

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
        return 1;
    }
    while (rd->rec >= rd->rec_end) {
        ret = advance(rd, err);
        if (ret <= 0) {
            return ret;
        }
    }
    cc->vcpu = rd->vcpu;
    cc->stream = rd->stream;
    cc->chunk_seq = rd->cur_no;
    if (rd->packed) {
        ret = count_packed(rd, counts, &n, err);
        rd->packed = false;
    } else {
        ret = 0;
        while (rd->rec < rd->rec_end) {
            ret = take_record(rd, rd->rec, (size_t)(rd->rec_end - rd->rec),
                              &rec, err);
            if (ret < 0) {
                break;
            }
            counts[rec.ev->id]++;
            n++;
            rd->rec += ret;
            ret = 0;
        }
    }
    cc->records = n;
    rd->rec = rd->rec_end;
    return ret < 0 ? ret : 1;
}

void qtrace_reader_rewind(struct qtrace_reader *rd)
{
    unpack_reset(&rd->up);
    rd->released = 0;           /* dropped pages come back when read */
    rd->off = rd->first_off;
    rd->chunk_no = 1;
    rd->rec = rd->rec_end = rd->map;
    rd->state = RD_READING;
    rd->stop_ret = 0;
    rd->stop_msg[0] = '\0';
    if (rd->etr) {
        etrace_dec_rewind(rd->etr);
    }
}

/* ---- open and META ---- */

/*
 * The per-id table take_record uses: a few hundred bytes that stay in the
 * cache, instead of the catalog's large descriptions.
 */
static int index_events(struct qtrace_reader *rd)
{
    unsigned int id;
    unsigned int i;

    rd->info = calloc(rd->cat.n_events + 1, sizeof(*rd->info));
    if (!rd->info) {
        return -ENOMEM;
    }
    rd->info[0].fixed_size = UINT16_MAX;    /* id 0 is never valid */
    for (id = 1; id <= rd->cat.n_events; id++) {
        const struct qtrace_event_desc *ev = &rd->cat.events[id];
        struct ev_info *ei = &rd->info[id];

        ei->ev = ev;
        ei->fixed_size = ev->fixed_size;
        for (i = 0; i < ev->n_args; i++) {
            if (ev->args[i].type == QTRACE_ARG_STR ||
                ev->args[i].type == QTRACE_ARG_BYTES) {
                ei->len_off[ei->n_var++] = ev->args[i].offset;
            }
        }
    }
    return 0;
}

/*
 * Split the META payload into key=value lines and the catalog, and parse
 * both (docs/format.md, "META chunk").
 */
static int parse_meta(struct qtrace_reader *rd, const uint8_t *text,
                      uint32_t len, struct qtrace_err *err)
{
    const uint8_t *sep = NULL;  /* the empty line ending the keys */
    struct qtrace_err cerr;
    char why[256];
    char *catalog;
    uint32_t keys_len;
    int ret;

    if (memchr(text, '\0', len)) {
        qtrace_err_set(err, "META chunk: NUL byte in the text");
        return -EBADMSG;
    }
    if (len > 0 && text[0] == '\n') {
        sep = text;
    } else if (len > 0) {
        sep = memmem(text, len, "\n\n", 2);
        sep = sep ? sep + 1 : NULL;
    }
    if (!sep) {
        qtrace_err_set(err, "META chunk: no empty line before the catalog");
        return -EBADMSG;
    }
    keys_len = (uint32_t)(sep - text);
    ret = kv_parse(&rd->meta, text, keys_len, why, sizeof(why));
    if (ret < 0) {
        qtrace_err_set(err, "META chunk: %s", why);
        return ret;
    }
    catalog = strndup((const char *)sep + 1, len - keys_len - 1);
    if (!catalog) {
        qtrace_err_set(err, "%s", strerror(ENOMEM));
        return -ENOMEM;
    }
    ret = qtrace_catalog_parse(&rd->cat, catalog, &cerr);
    free(catalog);
    if (ret < 0) {
        qtrace_err_set(err, "META chunk: catalog %s", cerr.msg);
        return ret;
    }
    ret = index_events(rd);
    if (ret == 0) {
        ret = unpack_init(&rd->up, &rd->cat);
    }
    if (ret < 0) {
        qtrace_err_set(err, "%s", strerror(-ret));
    }
    return ret;
}

/* The 16-byte file header (docs/format.md, "File header"). */
static int check_file_hdr(const struct qtrace_reader *rd, uint32_t *hdr_size,
                          struct qtrace_err *err)
{
    size_t magic_len = strlen(QTRACE_FILE_MAGIC);
    uint32_t version;

    if (rd->size == 0) {
        qtrace_err_set(err, "empty file");
        return -EINVAL;
    }
    if (memcmp(rd->map, QTRACE_FILE_MAGIC,
               rd->size < magic_len ? rd->size : magic_len) != 0) {
        qtrace_err_set(err, "not a qtrace trace (bad magic)");
        return -EINVAL;
    }
    if (rd->size < sizeof(struct qtrace_file_hdr)) {
        qtrace_err_set(err, "truncated file header");
        return -ENODATA;
    }
    version = load32(rd->map + 8);
    *hdr_size = load32(rd->map + 12);
    if (version != QTRACE_FORMAT_VERSION) {
        qtrace_err_set(err, "unsupported format version %" PRIu32, version);
        return -ENOTSUP;
    }
    if (*hdr_size < sizeof(struct qtrace_file_hdr)) {
        qtrace_err_set(err, "bad file header size %" PRIu32, *hdr_size);
        return -EINVAL;
    }
    if (*hdr_size > rd->size) {
        qtrace_err_set(err, "truncated file header");
        return -ENODATA;
    }
    return 0;
}

/* File header, then the META chunk that must follow it. */
static int read_head(struct qtrace_reader *rd, struct qtrace_err *err)
{
    struct qtrace_chunk_hdr hdr;
    const uint8_t *payload;
    uint32_t hdr_size;
    int ret;

    ret = check_file_hdr(rd, &hdr_size, err);
    if (ret < 0) {
        return ret;
    }
    if (hdr_size == rd->size) {
        qtrace_err_set(err, "no META chunk (file ends after its header)");
        return -ENODATA;
    }
    ret = check_chunk(rd, hdr_size, 0, &hdr, &payload, err);
    if (ret < 0) {
        return ret;
    }
    if (hdr.kind != QTRACE_CHUNK_META) {
        qtrace_err_set(err, "chunk 0 at offset 0x%" PRIx32 ": kind %u, "
                       "expected META (1)", hdr_size, hdr.kind);
        return -EBADMSG;
    }
    ret = parse_meta(rd, payload, hdr.len, err);
    if (ret < 0) {
        return ret;
    }
    rd->first_off = (uint64_t)hdr_size + CHUNK_HDR_SIZE + hdr.len;
    qtrace_reader_rewind(rd);
    return 0;
}

/*
 * An etrace file, recognised by its first record: its META text (keys
 * and catalog) comes from the decoder, its records from etrace_dec_next.
 */
static int open_etrace(struct qtrace_reader *rd, struct qtrace_err *err)
{
    char *meta;
    int ret = etrace_dec_new(&rd->etr, rd->map, rd->size, &meta, err);

    if (ret < 0) {
        return ret;
    }
    ret = parse_meta(rd, (const uint8_t *)meta, (uint32_t)strlen(meta), err);
    free(meta);
    if (ret < 0) {
        return ret;
    }
    etrace_dec_set_catalog(rd->etr, &rd->cat);
    qtrace_reader_rewind(rd);
    return 0;
}

/* Map path read-only; a regular file is required (mmap). */
static int map_file(struct qtrace_reader *rd, const char *path,
                    struct qtrace_err *err)
{
    struct stat st;
    void *map;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    int ret = 0;

    if (fd < 0 || fstat(fd, &st) < 0) {
        ret = -errno;
        qtrace_err_set(err, "%s", strerror(-ret));
    } else if (!S_ISREG(st.st_mode)) {
        ret = S_ISDIR(st.st_mode) ? -EISDIR : -EINVAL;
        qtrace_err_set(err, "%s", S_ISDIR(st.st_mode) ?
                       strerror(EISDIR) : "not a regular file");
    } else if (st.st_size > 0) {
        map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (map == MAP_FAILED) {
            ret = -errno;
            qtrace_err_set(err, "%s", strerror(-ret));
        } else {
            rd->map = map;
            rd->size = (size_t)st.st_size;
            madvise(map, rd->size, MADV_SEQUENTIAL);
        }
    }
    if (fd >= 0) {
        close(fd);
    }
    return ret;
}

int qtrace_reader_open(const char *path, struct qtrace_reader **out,
                       struct qtrace_err *err)
{
    struct qtrace_reader *rd = calloc(1, sizeof(*rd));
    int ret;

    *out = NULL;
    if (!rd) {
        qtrace_err_set(err, "%s", strerror(ENOMEM));
        return -ENOMEM;
    }
    ret = map_file(rd, path, err);
    if (ret == 0 && etrace_is_etrace(rd->map, rd->size)) {
        ret = open_etrace(rd, err);
    } else if (ret == 0) {
        ret = read_head(rd, err);
    }
    if (ret < 0) {
        qtrace_reader_close(rd);
        return ret;
    }
    *out = rd;
    return 0;
}

void qtrace_reader_close(struct qtrace_reader *rd)
{
    if (!rd) {
        return;
    }
    if (rd->map) {
        munmap((void *)rd->map, rd->size);
    }
    etrace_dec_free(rd->etr);
    unpack_fini(&rd->up);
    zchunk_inflater_fini(&rd->zbuf);
    qtrace_catalog_fini(&rd->cat);
    free(rd->info);
    kv_fini(&rd->meta);
    kv_fini(&rd->end);
    free(rd);
}

/* ---- header and END information ---- */

const char *qtrace_reader_meta(const struct qtrace_reader *rd,
                               const char *key)
{
    return kv_get(&rd->meta, key);
}

void qtrace_reader_meta_each(const struct qtrace_reader *rd,
                             void (*fn)(const char *key, const char *value,
                                        void *arg),
                             void *arg)
{
    size_t i;

    for (i = 0; i < rd->meta.n; i++) {
        fn(rd->meta.items[i].key, rd->meta.items[i].value, arg);
    }
}

const struct qtrace_catalog *
qtrace_reader_catalog(const struct qtrace_reader *rd)
{
    return &rd->cat;
}

const char *qtrace_reader_end(const struct qtrace_reader *rd,
                              const char *key)
{
    return kv_get(&rd->end, key);
}

bool qtrace_reader_has_end(const struct qtrace_reader *rd)
{
    return rd->has_end;
}

const char *qtrace_reader_stop_reason(const struct qtrace_reader *rd)
{
    if (rd->has_end) {
        return NULL;
    }
    switch (rd->state) {
    case RD_FAILED:
        return rd->stop_msg;
    case RD_CLEAN_END:
        return "no END chunk (QEMU did not exit cleanly)";
    default:
        return "trace not read to its end";
    }
}
