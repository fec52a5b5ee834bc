/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The writer thread: takes full chunks from the vCPUs, hands each to every
 * sink, and recycles it. The chunk pool is bounded; a vCPU that finds it
 * empty waits (no record is ever dropped while tracing runs). The queue
 * lock is taken once per chunk, never per record.
 */
#ifndef QTRACE_PLUGIN_WRITER_H
#define QTRACE_PLUGIN_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "qtrace/err.h"
#include "vbuf.h"

struct sink;

struct writer_cfg {
    size_t chunk_bytes;         /* capacity of one chunk */
    size_t buffer_bytes;        /* all chunks together (soft: see .c) */
    uint32_t flush_ms;          /* oldest record's age bound, 0: none */
    size_t ring_bytes;          /* ring=: per-vCPU ring, 0: write all */
};

/*
 * At the trace's end (writer_stop, writer_abort), also write the END text
 * to path, for a caller that cannot read the trace (a device, a failed
 * sink). path must outlive the writer; NULL: none. Install time only.
 */
void writer_set_status_file(const char *path);

/* Start the thread with the given sinks (owned by the writer from now). */
int writer_start(const struct writer_cfg *cfg, struct sink **sinks,
                 size_t n_sinks, struct qtrace_err *err);

/*
 * vb's chunks are to be written within the flush interval (flush.c); the
 * vbuf must live until writer_stop. Called by vbuf_start, once per vbuf.
 */
void writer_watch(struct vbuf *vb);

/* A free chunk; waits while the pool is exhausted. NULL once stopped. */
struct chunk *writer_chunk_get(void);

/* A free chunk if one can be had without waiting, else NULL. */
struct chunk *writer_chunk_try_get(void);

/* Queue a chunk for the sinks (an empty one is just recycled). */
void writer_chunk_put(struct chunk *c);

/*
 * Translation records are global, not per vCPU: they go to a shared chunk
 * under a lock (translation time only). The writer flushes that chunk
 * before any vCPU chunk, so a block's tb_trans always precedes, in the
 * file, every record of its execution.
 */
void *writer_trans_reserve(uint32_t size);
void writer_trans_commit(void);

/*
 * True when two or more vCPU chunks wait behind the one being written: the
 * writer thread is not keeping up, and optional work (compression) should
 * give way. Called by sinks on the writer thread.
 */
bool writer_is_behind(void);

/* True once writer_stop has begun: late records are dropped and counted. */
bool writer_is_stopping(void);
void writer_count_lost(uint32_t records);

/* The same, records of vCPU vcpu's stream (counted per vCPU too). */
void writer_count_lost_vcpu(uint32_t vcpu, uint64_t records);

/*
 * More "key=value\n" lines for the END chunk (counters of other parts of
 * the plugin); text must live until writer_stop. Called before it.
 */
void writer_set_end_extra(const char *text);

/*
 * fn formats more END lines ("key=N\n") when END is written, after the
 * last DATA chunk: counts that must cover every record in the file.
 */
void writer_set_end_counts(void (*fn)(char *buf, size_t len));

/*
 * The guest instructions the trace covers, for the END chunk's insns=
 * line. writer_insns_enable (at install) says the plugin counts them;
 * without it END has no insns line. writer_insns_add adds a stream's
 * count when the stream ends, or a batch of inline counts; any thread,
 * never per event.
 */
void writer_insns_enable(void);
void writer_insns_add(uint64_t insns);

/*
 * Runtime control (ctl/): work done on the writer thread between chunks.
 * FLUSH: every vCPU hands its chunk over and the writer writes it before
 * answering. FILE: the out= file is closed as a complete trace and the
 * trace goes on in path (see docs/control.md). STATS: the counters.
 * SNAPSHOT (ring=): the rings into the trace, or into the new complete
 * trace path when path is set. TRIGGER: writer_trigger_snapshot's own.
 */
enum writer_req_kind {
    WRITER_REQ_FLUSH,
    WRITER_REQ_FILE,
    WRITER_REQ_STATS,
    WRITER_REQ_SNAPSHOT,
    WRITER_REQ_TRIGGER,
};

struct writer_req {
    enum writer_req_kind kind;
    const char *path;           /* FILE: the next trace file (caller's);
                                   SNAPSHOT: a new file, NULL: none */
    uint64_t insns;             /* STATS: guest instructions so far */
    char text[7168];            /* reply lines, "\n" ended (writer) */
    char err[256];              /* why it failed; empty: it did not */
    void (*done)(struct writer_req *req);   /* writer thread, at the end */
    struct writer_req *next;    /* writer's queue */
};

/*
 * Queue req (any thread); req->done is called on the writer thread when
 * it is served, at the latest by writer_stop. req lives until then.
 */
void writer_request(struct writer_req *req);

/*
 * vCPU thread, at a snapshot trigger (ring=, snapshot-at=): the writer
 * writes the rings into the trace soon, each vCPU's up to its last
 * chunk marked cut (vbuf_handover), all of the others'. A trigger while
 * one is queued or being written adds nothing: the next snapshot has
 * its records. Takes the writer's lock, never waits for the writing.
 */
void writer_trigger_snapshot(void);

/*
 * Install time: keep a copy of every tb_trans record written, so that a
 * file started by WRITER_REQ_FILE gets the translations its blocks name.
 */
void writer_keep_translations(void);

/*
 * Flush everything queued, close the sinks (the END chunk carries the
 * totals) and join the thread. Called once, at exit.
 */
void writer_stop(const char *exit_reason);

/*
 * From the writer thread, for a sink whose loss must stop QEMU
 * (etrace-peer-lost=stop): print "qtrace: KIND=TARGET: WHY", close the
 * other sinks (their END says exit=EXIT_REASON) and end QEMU, status 1.
 */
void writer_abort(struct sink *failed, const char *why,
                  const char *exit_reason) __attribute__((noreturn));

#endif /* QTRACE_PLUGIN_WRITER_H */
