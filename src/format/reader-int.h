/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The reader's state, shared by its two halves: reader-open.c opens the
 * file and answers questions about its META and END chunks, reader.c
 * walks the chunks and hands out records.
 */
#ifndef QTRACE_FORMAT_READER_INT_H
#define QTRACE_FORMAT_READER_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "budget.h"
#include "clockmap.h"
#include "index.h"
#include "kv.h"
#include "qtrace/format.h"
#include "qtrace/reader.h"
#include "unpack.h"
#include "zchunk.h"

struct etrace_dec;

#define CHUNK_HDR_SIZE ((uint32_t)sizeof(struct qtrace_chunk_hdr))
#define REC_HDR_SIZE ((uint32_t)sizeof(struct qtrace_rec))

/* What take_record needs to know about one event id. */
struct ev_info {
    const struct qtrace_event_desc *ev; /* NULL for id 0 */
    uint16_t fixed_size;            /* header and fixed arguments */
    uint16_t n_var;                 /* STR and BYTES arguments */
    uint16_t len_off[QTRACE_MAX_ARGS]; /* offset of each u16 length */
};

/*
 * Host clock stamps of the DATA chunk being read (reader-clock.c), once
 * qtrace_reader_use_timeline asked for them: the chunk's clock records,
 * found when it is entered, and how many of them were handed out.
 */
struct reader_clock {
    uint16_t id;                    /* the clock event while used, else 0 */
    uint16_t off_ns, off_resume;    /* its arguments' offsets */
    uint64_t origin;                /* META timeline_origin, or 0 */
    struct clock_stamp *st;         /* the chunk's stamps, in order */
    size_t n, cap;
    size_t k;                       /* clock records taken from it */
    uint64_t no;                    /* the chunk they are of */
    bool bad;                       /* the chunk's scan failed */
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

    /*
     * The DATA chunk whose records are being handed out: walk.pos is the
     * next record (or packet), walk.end the end of its payload, walk.base
     * its start. walk.why, what the unpacker found wrong, is kept here,
     * not on the stack of the hot path, which then needs no guard.
     */
    struct unpack_cursor walk;
    bool packed;                    /* payload is a packet stream */
    bool inflated;                  /* payload is zbuf's, not the file's */
    struct unpacker up;             /* expands packed chunks */
    struct zchunk_inflater zbuf;    /* decompresses zstd chunks */
    uint32_t vcpu;
    uint32_t stream;
    uint64_t cur_no;                /* its chunk index */
    uint64_t cur_off;               /* its file offset */

    struct budget budget;           /* what the file may make it allocate */
    struct qtrace_catalog cat;
    struct ev_info *info;           /* indexed by event id, 0..n_events */
    struct kv_list meta;
    struct kv_list end;
    bool has_end;
    uint64_t streams_bound;         /* END's streams=, or UINT64_MAX */
    enum reader_state state;
    int stop_ret;                   /* -errno of the failure */
    char stop_msg[sizeof(((struct qtrace_err *)0)->msg)];
    struct etrace_dec *etr;         /* an etrace file (etrace.c), or NULL */

    /* The chunk index (reader-index.c): from the INDEX chunk or rebuilt. */
    struct index ix;
    bool ix_tried;                  /* the file's INDEX chunk was looked for */
    bool ix_ready;                  /* ix lists every readable DATA chunk */
    bool ix_from_file;              /* ix is the file's own INDEX chunk */
    uint64_t ix_stop_off;           /* where reading goes on after ix: */
    uint64_t ix_stop_no;            /* INDEX, or where a rebuild stopped */
    size_t ix_cursor;               /* entry of the next chunk, likely */

    /* qtrace_reader_select: the events handed out, the chunks visited. */
    bool selecting;
    uint64_t want[INDEX_WORDS];     /* events handed out */
    uint64_t need[INDEX_WORDS];     /* events whose chunks are entered */
    size_t sel_next;                /* next entry of ix to consider */
    bool sel_one;                   /* only the stream sel_stream's DATA
                                       chunks (qtrace_reader_select_stream) */
    uint32_t sel_stream;

    qtrace_progress_fn progress;    /* qtrace_reader_set_progress, or NULL */
    void *progress_arg;

    struct reader_clock clk;        /* qtrace_reader_use_timeline */
    char *path;                     /* as opened (qtrace_reader_reopen) */
    /* qtrace_reader_set_ahead (reader-ahead.c), the thread's side: */
    bool ahead_noting;              /* the reading runs on that thread:
                                       progress is noted for the caller */
    bool ahead_moved;               /* ... and it moved since last noted */
    uint64_t ahead_off;             /* ... to there */
    /*
     * The caller's side, whose ahead_cur moves at every record, a cache
     * line away from all the thread reads: next to the fields above it
     * made reading on two threads half as fast as on one.
     */
    char ahead_gap[64];
    struct reader_ahead *ahead;     /* NULL until asked for */
    const struct qtrace_record *ahead_cur;  /* the records of its batch */
    const struct qtrace_record *ahead_end;  /* the caller takes from */
    char ahead_tail[64];            /* ... and from what follows in memory */
};

/*
 * A DATA chunk of a vCPU (number no) was entered with its decoded
 * payload: find its stamps when the timeline is used (reader-clock.c).
 * Returns 0, or -ENOMEM with err set when the memory limit is reached.
 */
int reader_clock_enter(struct qtrace_reader *rd, uint64_t no,
                       const uint8_t *payload, size_t len, uint16_t flags,
                       struct qtrace_err *err);

/*
 * Check the chunk at off in full (docs/format.md, "When a chunk is
 * valid"). Returns 0 with *hdr in host order and *payload, or -ENODATA
 * (file cut inside the chunk) / -EBADMSG with the reason in the reader.
 */
int reader_check_chunk(struct qtrace_reader *rd, uint64_t off, uint64_t no,
                       struct qtrace_chunk_hdr *hdr, const uint8_t **payload,
                       struct qtrace_err *err);

/* Tell the progress callback, if any, how far the reading has got. */
static inline void reader_progress(const struct qtrace_reader *rd,
                                   uint64_t off)
{
    if (rd->progress && rd->ahead_noting) {
        /* Told on the caller's thread, with the records read by then. */
        ((struct qtrace_reader *)rd)->ahead_off = off;
        ((struct qtrace_reader *)rd)->ahead_moved = true;
    } else if (rd->progress) {
        rd->progress(rd->progress_arg, off, rd->size);
    }
}

/*
 * Selective reading: move off and chunk_no to the next chunk that holds
 * a needed event, or where the index ends, over the headers of the
 * chunks between (reader-index.c). A header that fails stops the move on
 * it; an index entry between chunk boundaries stops the reading.
 */
void reader_index_seek(struct qtrace_reader *rd);

/*
 * What the END chunk that ends the file declares, found from its tail
 * without reading the chunks before (reader-index.c): each UINT64_MAX
 * when there is no END or it lacks the key (an older writer).
 */
struct end_bounds {
    uint64_t records;               /* records= */
    uint64_t streams;               /* streams=: highest vCPU stream id */
    uint64_t translations;          /* translations=: highest tb id */
};

void reader_tail_end_bounds(const struct qtrace_reader *rd,
                            struct end_bounds *b);

/*
 * The chunk index, loaded or rebuilt (the reading is rewound), for the
 * entries below (reader-index.c). 0 or -errno with err set.
 */
int reader_index_ready(struct qtrace_reader *rd, struct qtrace_err *err);

/*
 * The records DATA chunk chunk_seq carries as they are (index_each_
 * record), read by the index from the file, checksum checked, without
 * handing anything out; the reading is rewound (reader-clock.c).
 * Returns 0, or -errno with err set when the chunk cannot be read.
 */
int reader_chunk_records(struct qtrace_reader *rd, uint64_t chunk_seq,
                         index_record_fn fn, void *arg,
                         struct qtrace_err *err);

/* The index entry of the chunk numbered no, or NULL (reader-index.c). */
const struct index_entry *reader_index_entry(struct qtrace_reader *rd,
                                             uint64_t no);

/*
 * The next record, read on the calling thread (qtrace_reader_next is
 * this, unless the reader decodes ahead on a thread of its own).
 */
int reader_next_here(struct qtrace_reader *rd, struct qtrace_record *rec,
                     struct qtrace_err *err);

/*
 * The decoding thread (reader-ahead.c). pause stops it, if it runs, and
 * waits for it: the records it read stay queued, the reader's state is
 * after them, and any thread may touch it; the next qtrace_reader_next
 * starts it again. drop also forgets the queued records (the reading
 * starts again elsewhere). free ends it for good.
 */
void reader_ahead_pause(const struct qtrace_reader *rd);
void reader_ahead_drop(const struct qtrace_reader *rd);
void reader_ahead_free(struct qtrace_reader *rd);
int reader_ahead_next(struct qtrace_reader *rd, struct qtrace_record *rec,
                      struct qtrace_err *err);

#endif /* QTRACE_FORMAT_READER_INT_H */
