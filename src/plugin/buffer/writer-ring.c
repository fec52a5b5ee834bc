/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The writer thread's side of ring= (ring.h): a vCPU chunk goes into its
 * ring instead of the sinks, and a snapshot writes the rings, into the
 * trace's own outputs (the rings are then empty: each record reaches the
 * file once) or into a new complete trace file (the rings keep theirs,
 * so that the exit's snapshot still has the last moments).
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "pack.h"
#include "ring.h"
#include "writer-int.h"

static struct writer_state *const w = &writer_st;

/* Caller holds w->lock: gone (a chain) back to the pool. */
static void recycle_chain_locked(struct chunk *gone)
{
    while (gone) {
        struct chunk *next = gone->next;

        writer_recycle_locked(gone);
        gone = next;
    }
    w->n_ringed = ring_chunks();
    /* A vCPU waiting for a chunk may take a new one now (writer.c). */
    pthread_cond_broadcast(&w->freed);
}

void writer_ring_keep(struct chunk *c)
{
    struct chunk *gone = ring_keep(c);

    pthread_mutex_lock(&w->lock);
    w->n_busy--;
    recycle_chain_locked(gone);
    pthread_mutex_unlock(&w->lock);
}

void writer_ring_write_all(struct writer_snapshot *snap, bool to_cut)
{
    uint32_t vcpu = 0;

    while (ring_peek(vcpu, &vcpu)) {
        struct chunk *c = ring_take(vcpu, to_cut);
        uint64_t chunks = w->chunks, records = w->records;

        for (struct chunk *k = c; k; k = k->next) {
            writer_write_vcpu_chunk(k);
        }
        snap->chunks += w->chunks - chunks;
        snap->records += w->records - records;
        pthread_mutex_lock(&w->lock);
        recycle_chain_locked(c);
        pthread_mutex_unlock(&w->lock);
        vcpu++;
    }
}

/* c to s alone, packed first if staged; counted in the current totals. */
static void write_copy(struct sink *s, const struct chunk *c)
{
    const struct chunk *out = c;
    char why[160];

    if (c->flags & CHUNK_STAGED) {
        out = pack_transcode(c, why, sizeof(why));
        if (!out) {
            sink_fail(s, why);
            return;
        }
    }
    writer_count_records(out);
    s->ops->chunk(s, out);
}

/* The counters writer_count_records moves, saved around a snapshot. */
struct saved_counts {
    uint64_t chunks, records, bytes, snapshots;
    struct writer_vcpu_stats vcpu[WRITER_STATS_VCPUS];
};

static void save_counts(struct saved_counts *sv)
{
    sv->chunks = w->chunks;
    sv->records = w->records;
    sv->bytes = w->bytes;
    memcpy(sv->vcpu, writer_vcpu_stats, sizeof(sv->vcpu));
    w->chunks = w->records = w->bytes = 0;
}

static void restore_counts(const struct saved_counts *sv)
{
    w->chunks = sv->chunks;
    w->records = sv->records;
    w->bytes = sv->bytes;
    memcpy(writer_vcpu_stats, sv->vcpu, sizeof(sv->vcpu));
}

int writer_ring_write_file(struct sink *s, struct writer_snapshot *snap)
{
    static struct saved_counts sv;
    uint32_t vcpu = 0;
    struct chunk *c;
    uint64_t trans_chunks, trans_records;
    char end[1024];
    int failed;

    save_counts(&sv);
    writer_write_translations(s);
    trans_chunks = w->chunks;
    trans_records = w->records;
    while ((c = ring_peek(vcpu, &vcpu)) != NULL) {
        for (; c; c = c->next) {
            write_copy(s, c);
        }
        vcpu++;
    }
    snap->chunks += w->chunks - trans_chunks;
    snap->records += w->records - trans_records;
    /* This file holds one snapshot, whatever the trace file holds. */
    sv.snapshots = w->snapshots;
    w->snapshots = 1;
    writer_fmt_end_as(end, sizeof(end), "snapshot");
    w->snapshots = sv.snapshots;
    restore_counts(&sv);
    s->ops->close(s, end);
    failed = s->failed;
    s->ops->free(s);
    return failed ? -1 : 0;
}
