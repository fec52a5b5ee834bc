/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What writer.c shares with writer-ctl.c, the runtime control work done
 * on the writer thread: the writer's state and the steps of writing a
 * chunk. Nothing else includes it.
 */
#ifndef QTRACE_PLUGIN_WRITER_INT_H
#define QTRACE_PLUGIN_WRITER_INT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../sink/sink.h"
#include "vbuf.h"
#include "writer.h"

struct writer_state {
    pthread_mutex_t lock;       /* guards the fields up to n_busy */
    pthread_cond_t work;        /* queue not empty, or stop */
    pthread_cond_t freed;       /* a chunk went back to the pool */
    struct chunk *free_list;
    struct chunk *head, *tail;  /* queue, oldest first */
    size_t n_alloc;             /* chunks that exist */
    size_t max_alloc;           /* soft bound from buffer= */
    size_t n_busy;              /* queued or being written */
    size_t n_ringed;            /* kept in the rings (ring=), apart from
                                   the bound (writer thread) */
    bool stop_thread;
    struct writer_req *reqs;    /* runtime control's, oldest first */

    pthread_mutex_t trans_lock; /* guards trans and trans_full */
    struct chunk *trans;        /* shared translation chunk */
    struct chunk *trans_full;   /* full ones not yet written, newest first */

    size_t chunk_bytes;
    pthread_t thread;
    bool started;
    atomic_bool stopping;
    atomic_uint_fast64_t lost_records;

    struct sink **sinks;        /* writer thread only, after start */
    size_t n_sinks;
    uint64_t chunks;            /* DATA chunks written */
    uint64_t records;           /* records in them */
    uint64_t bytes;             /* record bytes in them */
    uint64_t lost_base;         /* lost_records when this file began */
    uint64_t start_ns;          /* when this file began */
    uint64_t snapshots;         /* ring snapshots written into the trace */

    bool keep_trans;            /* writer_keep_translations */
    uint8_t *trans_copy;        /* every tb_trans record written */
    size_t trans_copy_len, trans_copy_cap;
};

extern struct writer_state writer_st;

/* Per-vCPU counters for the stats command, for the first vCPUs. */
#define WRITER_STATS_VCPUS 64

struct writer_vcpu_stats {
    uint32_t stream;            /* the last stream seen */
    uint64_t records, chunks;   /* in the current file */
    uint64_t lost_base;         /* lost_vcpu when this file began */
};

/* Records lost per vCPU (any thread adds), for the first vCPUs. */
extern atomic_uint_fast64_t writer_lost_vcpu[WRITER_STATS_VCPUS];

extern struct writer_vcpu_stats writer_vcpu_stats[WRITER_STATS_VCPUS];

/* Writer thread. Caller holds writer_st.lock: c back to the free list. */
void writer_recycle_locked(struct chunk *c);

/* Writer thread: the pending translation chunks, to every sink. */
void writer_flush_trans(void);

/* Writer thread: a vCPU chunk (packed here if staged), to every sink. */
void writer_write_vcpu_chunk(const struct chunk *c);

/* Writer thread: c counts in the current file's totals. */
void writer_count_records(const struct chunk *c);

/* Writer thread: the END text of a file closed by trace-file set. */
void writer_fmt_switch_end(char *end, size_t len);

/* Writer thread: the counters of a new file start from zero. */
void writer_file_restart(void);

/*
 * Writer thread: the END text so far, with exit_reason as its exit= (a
 * snapshot's: no insns= line, the run goes on).
 */
void writer_fmt_end_as(char *end, size_t len, const char *exit_reason);

/*
 * Writer thread: a queued vCPU chunk is done with, written (and back to
 * the pool) or, with ring=, kept in its ring. Takes w->lock.
 */
void writer_chunk_done(struct chunk *c);

/* What a snapshot wrote: vCPU DATA chunks and their records. */
struct writer_snapshot {
    uint64_t chunks;
    uint64_t records;
};

/* writer-ring.c: c into its vCPU's ring (n_busy drops; takes w->lock). */
void writer_ring_keep(struct chunk *c);

/*
 * writer-ring.c: every ring to the sinks, oldest first; rings emptied,
 * with to_cut up to their last chunk marked cut (ring_take).
 */
void writer_ring_write_all(struct writer_snapshot *snap, bool to_cut);

/*
 * writer-ring.c: a complete trace in s (a new file sink, META written):
 * the kept translations, every ring (kept), END with exit=snapshot; s is
 * closed and freed. Returns -1 when s failed (it said why).
 */
int writer_ring_write_file(struct sink *s, struct writer_snapshot *snap);

/* writer-ctl.c: the kept translations into s, first in a new file. */
void writer_write_translations(struct sink *s);

/*
 * writer-ctl.c: every vCPU hands its chunk over and the writer takes
 * what they handed over; returns the vCPUs that kept theirs (pending).
 */
size_t writer_flush_vcpus(void);

/* writer-ctl.c: keep c's tb_trans records (writer_keep_translations). */
void writer_copy_translations(const struct chunk *c);

/* writer-ctl.c: serve one runtime control request, then call its done. */
void writer_serve_request(struct writer_req *req);

/* writer-ctl.c: answer the requests left when the thread has ended. */
void writer_fail_requests(void);

#endif /* QTRACE_PLUGIN_WRITER_INT_H */
