/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libqtrace reader: opens a native trace, checks each chunk and hands out
 * records one at a time in file order. Memory use does not grow with the
 * trace (the file is mapped, chunks are checked as they are reached).
 * Single-threaded: one reader per thread (which may decode on a thread
 * of its own, see qtrace_reader_set_ahead).
 */
#ifndef QTRACE_READER_H
#define QTRACE_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "qtrace/catalog.h"
#include "qtrace/err.h"
#include "qtrace/format.h"

struct qtrace_reader;

struct qtrace_record {
    const struct qtrace_event_desc *ev; /* from the trace's own catalog */
    const uint8_t *data;            /* record bytes, starts with qtrace_rec */
    uint32_t size;                  /* bytes */
    uint32_t vcpu;                  /* vCPU index of the chunk */
    uint32_t stream;                /* stream id of the chunk */
    uint64_t time;                  /* copy of the header's time */
    uint64_t chunk_seq;             /* chunk the record came from */
};

/*
 * Open path and read its header and META chunk. Returns 0 and *out, or
 * -errno with err saying why ("not a qtrace trace", "truncated header").
 */
int qtrace_reader_open(const char *path, struct qtrace_reader **out,
                       struct qtrace_err *err);
void qtrace_reader_close(struct qtrace_reader *rd);    /* NULL is a no-op */

/* Value of a META key ("arch", "qemu", ...), or NULL. */
const char *qtrace_reader_meta(const struct qtrace_reader *rd,
                               const char *key);
/* Visit every META key in order. */
void qtrace_reader_meta_each(const struct qtrace_reader *rd,
                             void (*fn)(const char *key, const char *value,
                                        void *arg),
                             void *arg);
const struct qtrace_catalog *
qtrace_reader_catalog(const struct qtrace_reader *rd);

/*
 * Next record in file order. Returns 1 with *rec filled, 0 at the end of
 * the readable trace, or -errno when the trace stops early; then err says
 * where (chunk number and byte offset) and why. After 0 or an error,
 * qtrace_reader_end() tells whether the END chunk was reached.
 */
int qtrace_reader_next(struct qtrace_reader *rd, struct qtrace_record *rec,
                       struct qtrace_err *err);

/*
 * Decode on a thread of the reader's own (on), a few thousand records
 * ahead of qtrace_reader_next, which then hands out copies of them in
 * the same order, with the same end and errors: the reading (checks,
 * decompression, the packed streams' predictors) runs beside what the
 * caller does with the records. Memory stays bounded (a few MiB). Every
 * other call on the reader stops the thread first (the next
 * qtrace_reader_next starts it again), so the reader is still used from
 * one thread. A record's data is then good until the next call of
 * qtrace_reader_next, as without. Returns 0, or -ENOMEM; when no thread
 * can be had, the reading goes on, on the caller's thread. A reader that
 * uses the timeline (qtrace_reader_use_timeline) reads on the caller's
 * thread: a record's host time comes from the chunk being decoded.
 */
int qtrace_reader_set_ahead(struct qtrace_reader *rd, bool on);

/* What qtrace_reader_count_chunk counted in one chunk. */
struct qtrace_chunk_count {
    uint32_t vcpu;                  /* vCPU index of the chunk */
    uint32_t stream;                /* its stream */
    uint64_t chunk_seq;             /* its number */
    uint64_t records;               /* records it holds */
    uint64_t insns;                 /* from the file's index: instructions
                                       the vCPU had started when the chunk
                                       was written; 0 when unknown */
    uint64_t last_time;             /* the latest time of a record it
                                       holds whole (packed blocks, whose
                                       times need expanding, left out) */
};

/*
 * Count the records of the next DATA chunk by event id, adding to
 * counts[id] (QTRACE_MAX_EVENTS entries), without expanding packed
 * blocks: many times faster than qtrace_reader_next, for summaries.
 * Structure and checksums are checked as by qtrace_reader_next; the
 * block predictor is not run. Returns 1 with *cc filled, 0 at the end,
 * -errno as qtrace_reader_next. Do not mix with qtrace_reader_next
 * without a rewind in between.
 */
int qtrace_reader_count_chunk(struct qtrace_reader *rd, uint64_t *counts,
                              struct qtrace_chunk_count *cc,
                              struct qtrace_err *err);

/* Start again from the first DATA chunk. */
void qtrace_reader_rewind(struct qtrace_reader *rd);

/*
 * Whether the trace has a valid INDEX chunk (docs/format.md), which is
 * then loaded: a look at the end of the file, not a pass over it.
 */
bool qtrace_reader_index(struct qtrace_reader *rd);

/*
 * Hand out only the records of the events whose ids are set in want
 * (a bitmap of QTRACE_MAX_EVENTS bits, bit id of word id / 64), reading
 * only the chunks that hold them (and those they depend on: a packed
 * stream's blocks need their translations). Chunks come from the trace's
 * index; a trace without one (cut short) is scanned once for it, without
 * expanding anything. Restarts from the first chunk, as rewind; NULL
 * hands out everything again. The end of the reading (END, a cut, an
 * error) is reported as without a selection. Returns 0 or -errno.
 */
int qtrace_reader_select(struct qtrace_reader *rd, const uint64_t *want,
                         struct qtrace_err *err);

/*
 * qtrace_reader_select narrowed to one vCPU stream: only the DATA chunks
 * of stream (and the translation chunks its packed blocks need) are
 * entered, and only its records of the events in want (NULL: every
 * event) are handed out, with the tb_trans records want asks for. Other
 * streams' chunks are stepped over by their headers. Restarts from the
 * first chunk; qtrace_reader_select (NULL too) ends it. Returns 0 or
 * -errno (an etrace file has no streams: -EINVAL).
 */
int qtrace_reader_select_stream(struct qtrace_reader *rd,
                                const uint64_t *want, uint32_t stream,
                                struct qtrace_err *err);

/* One DATA chunk as the trace's index lists it. */
struct qtrace_chunk_entry {
    uint64_t chunk_seq;             /* its number in the file */
    uint32_t vcpu;                  /* vCPU index; QTRACE_VCPU_NONE for
                                       the translation stream */
    uint32_t stream;                /* its stream */
    uint64_t insns;                 /* instructions the vCPU had started
                                       when it was written; 0 when unknown
                                       (an index rebuilt from a trace
                                       without one) */
    const uint64_t *events;         /* bitmap of the event ids it holds,
                                       QTRACE_MAX_EVENTS bits (bit id of
                                       word id / 64) */
};

typedef void (*qtrace_chunk_fn)(void *arg,
                                const struct qtrace_chunk_entry *e);

/*
 * Call fn for every readable DATA chunk, in file order, from the trace's
 * index (a trace without one is scanned once for it, as
 * qtrace_reader_select does): which streams a trace has, what each
 * holds, how far each ran, without reading records. Rewinds the
 * reading. Returns 0 (an etrace file lists nothing), or -errno with err
 * set when the index cannot be built.
 */
int qtrace_reader_chunks(struct qtrace_reader *rd, qtrace_chunk_fn fn,
                         void *arg, struct qtrace_err *err);

/*
 * How far the reading has got: the file offset of the next chunk, and
 * *size the file's size (for a progress display).
 */
uint64_t qtrace_reader_offset(const struct qtrace_reader *rd,
                              uint64_t *size);

/*
 * Called as the reading moves on, once per chunk entered (and per chunk
 * of an index rebuild), with the file offset reached and the file size;
 * offset equals size once the reading has ended, however it ended.
 */
typedef void (*qtrace_progress_fn)(void *arg, uint64_t offset,
                                   uint64_t size);

/* Set (or with NULL clear) the progress callback. */
void qtrace_reader_set_progress(struct qtrace_reader *rd,
                                qtrace_progress_fn fn, void *arg);

/*
 * Count bytes a caller allocates for a table it builds from the trace's
 * records (a copy per translation, ...) against the memory limit of the
 * reader (docs/format.md, "Reader limits"), so that one trace cannot make
 * it grow without bound. Returns 0, or -ENOMEM with err saying that the
 * limit is reached and how to raise it.
 */
int qtrace_reader_charge(struct qtrace_reader *rd, uint64_t bytes,
                         struct qtrace_err *err);

/*
 * A second reader of the same trace file as rd, for reading another part
 * of it alongside (one vCPU stream while rd reads another): it shares
 * nothing with rd but the file, and takes a copy of rd's chunk index
 * when rd has one ready (loaded, or rebuilt from a trace cut short), so
 * that selecting in it costs no second pass; it uses the timeline when
 * rd does. Returns 0 and *out, or -errno with err set.
 */
int qtrace_reader_reopen(const struct qtrace_reader *rd,
                         struct qtrace_reader **out, struct qtrace_err *err);

/*
 * Host time (docs/format.md, "Timeline"). A trace recorded with
 * timeline=on holds clock records: stamps of the recording host's
 * CLOCK_MONOTONIC where each chunk of a vCPU stream begins and ends and
 * where the vCPU stood still. From them every record of a vCPU gets a
 * time on one clock for all vCPUs, placed between the stamps around it
 * by its instruction count.
 *
 * Whether the trace has them (its catalog has the clock event).
 */
bool qtrace_reader_has_timeline(const struct qtrace_reader *rd);

/*
 * Find the stamps of each chunk entered from now on (call it before the
 * first qtrace_reader_next, or rewind), for qtrace_reader_host_time.
 * Returns 0, or -ENODATA with err saying that the trace has no stamps.
 */
int qtrace_reader_use_timeline(struct qtrace_reader *rd,
                               struct qtrace_err *err);

/*
 * The host time of rec, the record qtrace_reader_next handed out last:
 * nanoseconds since the trace began (META timeline_origin), between the
 * resume of the stamp before it and the stop of the stamp after it in
 * its stream, in proportion to its instruction count; a clock record's
 * own is its stop (ns). Within a chunk the times never go back. false
 * for a record of no vCPU (tb_trans), of a chunk without stamps, or
 * before qtrace_reader_use_timeline.
 */
bool qtrace_reader_host_time(const struct qtrace_reader *rd,
                             const struct qtrace_record *rec, uint64_t *ns);

/*
 * The host times (as qtrace_reader_host_time's) of the first and last
 * stamps of DATA chunk chunk_seq, read from the file by the trace's
 * index without handing out records: where a stream begins and ends.
 * Uses the timeline (qtrace_reader_use_timeline) and rewinds the
 * reading. Returns 0, -ENODATA when the trace or the chunk has no
 * stamps, -ENOENT when the index lists no such chunk, -EBADMSG when it
 * cannot be read; err says why.
 */
int qtrace_reader_chunk_span(struct qtrace_reader *rd, uint64_t chunk_seq,
                             uint64_t *first_ns, uint64_t *last_ns,
                             struct qtrace_err *err);

/* Value of an END key ("records", "lost", ...) once the END was read. */
const char *qtrace_reader_end(const struct qtrace_reader *rd,
                              const char *key);
bool qtrace_reader_has_end(const struct qtrace_reader *rd);

/*
 * Why the readable trace ended short of an END chunk, as one line: NULL
 * once END was reached, "no END chunk (QEMU did not exit cleanly)" when
 * the file simply stops after a complete chunk, the error text of the
 * failed qtrace_reader_next() ("chunk N at offset 0x...: REASON") when it
 * stopped early, and "trace not read to its end" before next() returned 0
 * or an error. The string belongs to the reader.
 */
const char *qtrace_reader_stop_reason(const struct qtrace_reader *rd);

/* Argument access by index in rec->ev->args; integers widen to 64 bits. */
uint64_t qtrace_record_u64(const struct qtrace_record *rec, unsigned int arg);
int64_t qtrace_record_i64(const struct qtrace_record *rec, unsigned int arg);
/* STR and BYTES arguments: pointer into the record and length. */
const uint8_t *qtrace_record_bytes(const struct qtrace_record *rec,
                                   unsigned int arg, size_t *len);
/* Index of the argument called name, or -1. */
int qtrace_record_arg_index(const struct qtrace_record *rec,
                            const char *name);

/*
 * Format a record's arguments with its event's format string into buf
 * (like snprintf: returns the length it needed). BYTES print as hex.
 */
int qtrace_record_fmt(const struct qtrace_record *rec, char *buf,
                      size_t len);

/*
 * An event's format parsed once, for formatting many of its records:
 * qtrace_record_fmt() parses it on every call. It points into ev, which
 * must outlive it. NULL when out of memory.
 */
struct qtrace_fmt;

struct qtrace_fmt *qtrace_fmt_new(const struct qtrace_event_desc *ev);

/* A record of fmt's event, formatted as qtrace_record_fmt() would. */
int qtrace_fmt_record(const struct qtrace_fmt *fmt,
                      const struct qtrace_record *rec, char *buf, size_t len);

void qtrace_fmt_free(struct qtrace_fmt *fmt);

#endif /* QTRACE_READER_H */
