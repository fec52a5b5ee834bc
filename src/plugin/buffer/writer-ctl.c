/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Runtime control's work on the writer thread (writer.h, WRITER_REQ_*):
 * flush every vCPU now, go on in a new file, count. Served between two
 * chunks, so that it needs no lock against the writing itself; vCPUs
 * are only asked (flush.h) and follow on their slow paths (vbuf_cross).
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "qtrace-events.h"
#include "qtrace/format.h"
#include "flush.h"
#include "pack.h"
#include "ring.h"
#include "../core/vcpu.h"
#include "writer-int.h"

#define MAX_WATCHED MAX_VCPUS

static struct writer_state *const w = &writer_st;

/* Room for len more bytes of kept translations; false without memory. */
static bool grow_copy(size_t len)
{
    size_t cap = w->trans_copy_cap ? w->trans_copy_cap : 65536;
    uint8_t *p;

    while (cap < w->trans_copy_len + len) {
        cap *= 2;
    }
    if (cap == w->trans_copy_cap) {
        return true;
    }
    p = realloc(w->trans_copy, cap);
    if (!p) {
        return false;
    }
    w->trans_copy = p;
    w->trans_copy_cap = cap;
    return true;
}

/*
 * Keep c's tb_trans and image_map records (raw, as the translation chunk
 * holds them): what a new file needs to read on its own.
 */
void writer_copy_translations(const struct chunk *c)
{
    uint32_t off = 0;

    while (w->keep_trans && off + sizeof(struct qtrace_rec) <= c->len) {
        struct qtrace_rec r;
        bool keep;

        memcpy(&r, c->data + off, sizeof(r));
        if (r.size < sizeof(r) || off + r.size > c->len) {
            break;
        }
        keep = r.id == QTRACE_EV_TB_TRANS || r.id == QTRACE_EV_IMAGE_MAP;

        if (keep && !grow_copy(r.size)) {
            /* The next file would lack them: say so once, keep writing. */
            fprintf(stderr, "qtrace: translations kept for trace-file "
                    "set: %s\n", strerror(ENOMEM));
            w->keep_trans = false;
            break;
        }
        if (keep) {
            memcpy(w->trans_copy + w->trans_copy_len, c->data + off, r.size);
            w->trans_copy_len += r.size;
        }
        off += r.size;
    }
}

/* How long a vCPU may take to notice a flush or a new file. */
#define CTL_WAIT_NS (2000000000ull)
/* The writer's look between two waits for the vCPUs. */
#define CTL_POLL_NS (5000000ull)

void writer_keep_translations(void)
{
    w->keep_trans = true;
}

void writer_request(struct writer_req *req)
{
    struct writer_req **tail;

    req->next = NULL;
    req->err[0] = '\0';
    req->text[0] = '\0';
    pthread_mutex_lock(&w->lock);
    if (!w->started || w->stop_thread) {
        pthread_mutex_unlock(&w->lock);
        snprintf(req->err, sizeof(req->err), "the trace is being closed");
        req->done(req);
        return;
    }
    for (tail = &w->reqs; *tail; tail = &(*tail)->next) {
    }
    *tail = req;
    pthread_cond_signal(&w->work);
    pthread_mutex_unlock(&w->lock);
}

/* Chunks of a generation the current file must not get yet. */
struct held {
    struct chunk *head, *tail;
    uint32_t gen;               /* chunks of this generation or later */
    bool on;                    /* holding */
};

/*
 * Write every chunk queued now, or hold it (see struct held). Returns
 * how many were taken.
 */
static size_t drain_queue(struct held *h)
{
    size_t n = 0;

    for (;;) {
        struct chunk *c;

        pthread_mutex_lock(&w->lock);
        c = w->head;
        if (c) {
            w->head = c->next;
            if (!w->head) {
                w->tail = NULL;
            }
        }
        pthread_mutex_unlock(&w->lock);
        if (!c) {
            return n;
        }
        n++;
        writer_flush_trans();
        if (h && h->on && (int32_t)(c->gen - h->gen) >= 0) {
            c->next = NULL;
            if (h->tail) {
                h->tail->next = c;
            } else {
                h->head = c;
            }
            h->tail = c;
            continue;
        }
        writer_chunk_done(c);
    }
}

/* Sleep until a chunk is queued or poll_ns pass; false once stopping. */
static bool wait_a_little(uint64_t poll_ns)
{
    uint64_t t = flush_now_ns() + poll_ns;
    struct timespec ts = {
        .tv_sec = (time_t)(t / 1000000000u),
        .tv_nsec = (long)(t % 1000000000u),
    };
    bool go_on;

    pthread_mutex_lock(&w->lock);
    if (!w->head && !w->stop_thread) {
        pthread_cond_timedwait(&w->work, &w->lock, &ts);
    }
    go_on = !w->stop_thread;
    pthread_mutex_unlock(&w->lock);
    return go_on;
}

/*
 * Whether vb's vCPU can hand over no record of the state it has not
 * followed yet: its stream has ended, its records are discarded (off),
 * or it is parked without a chunk (back, it follows the state before it
 * takes one: vbuf_reserve_slow). A running vCPU without a chunk is
 * between two and may take one of the old state.
 */
static bool holds_nothing(struct vbuf *vb)
{
    return __atomic_load_n(&vb->stopped, __ATOMIC_ACQUIRE) ||
           __atomic_load_n(&vb->off, __ATOMIC_ACQUIRE) ||
           (atomic_load(&vb->park) != VBUF_RUNNING &&
            __atomic_load_n(&vb->chunk, __ATOMIC_ACQUIRE) == NULL);
}

/*
 * trace-file flush: each vCPU hands its chunk over (a parked one at
 * once, a running one at its next record), and what they handed over
 * is written. A vCPU that records nothing for CTL_WAIT_NS keeps what
 * it holds: counted as pending.
 */
size_t writer_flush_vcpus(void)
{
    static struct vbuf *vbs[MAX_WATCHED];
    static unsigned int before[MAX_WATCHED];
    size_t i, n = flush_watched(vbs, MAX_WATCHED), pending;
    uint64_t deadline = flush_now_ns() + CTL_WAIT_NS;

    for (i = 0; i < n; i++) {
        before[i] = atomic_load(&vbs[i]->handovers);
        flush_ask(vbs[i]);
    }
    for (;;) {
        drain_queue(NULL);
        for (i = 0, pending = 0; i < n; i++) {
            if (atomic_load(&vbs[i]->handovers) == before[i] &&
                !holds_nothing(vbs[i])) {
                pending++;
                vbuf_ask_flush(vbs[i]);
            }
        }
        if (pending == 0 || flush_now_ns() >= deadline ||
            !wait_a_little(CTL_POLL_NS)) {
            break;
        }
    }
    drain_queue(NULL);
    return pending;
}

static void serve_flush(struct writer_req *req)
{
    size_t pending = writer_flush_vcpus();

    snprintf(req->text, sizeof(req->text),
             "chunks %" PRIu64 "\nrecords %" PRIu64 "\npending_vcpus %zu\n",
             w->chunks, w->records, pending);
}

/* The out= sink's place in w->sinks, or -1. */
static int find_file_sink(void)
{
    size_t i;

    for (i = 0; i < w->n_sinks; i++) {
        if (w->sinks[i] && sink_is_file(w->sinks[i])) {
            return (int)i;
        }
    }
    return -1;
}

/* Whether path names the file of the out= sink in slot. */
static bool is_current_file(int slot, const char *path)
{
    struct stat a, b;

    return stat(path, &a) == 0 && stat(w->sinks[slot]->target, &b) == 0 &&
           a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

/* Whether every vCPU has crossed to generation gen (or holds nothing). */
static size_t count_behind(uint32_t gen)
{
    static struct vbuf *vbs[MAX_WATCHED];
    size_t i, n = flush_watched(vbs, MAX_WATCHED), behind = 0;

    for (i = 0; i < n; i++) {
        uint32_t st = atomic_load(&vbs[i]->state);

        if ((int32_t)(vbuf_state_gen(st) - gen) < 0 &&
            !holds_nothing(vbs[i])) {
            behind++;
            flush_ask(vbs[i]);
        }
    }
    return behind;
}

/*
 * The old file's END counts the instructions of vCPUs that have not
 * crossed because they are parked (or off): what they ran so far. Their
 * crossing, later, then adds nothing more to it (ctl-switch.c). A parked
 * vCPU is held (TAKEN) meanwhile so that it cannot run.
 */
static void settle_behind(uint32_t gen)
{
    static struct vbuf *vbs[MAX_WATCHED];
    size_t i, n = flush_watched(vbs, MAX_WATCHED);

    for (i = 0; i < n; i++) {
        struct vbuf *vb = vbs[i];
        int parked = VBUF_PARKED;
        bool held;

        if ((int32_t)(vbuf_state_gen(atomic_load(&vb->state)) - gen) >= 0 ||
            __atomic_load_n(&vb->stopped, __ATOMIC_ACQUIRE) || !vb->icount) {
            continue;
        }
        held = atomic_compare_exchange_strong(&vb->park, &parked,
                                              VBUF_TAKEN);
        if (held || __atomic_load_n(&vb->off, __ATOMIC_ACQUIRE)) {
            uint64_t now = __atomic_load_n(vb->icount, __ATOMIC_RELAXED);

            writer_insns_add(now - vb->file_icount);
            vb->file_icount = now;
        }
        if (held) {
            atomic_store(&vb->park, VBUF_PARKED);
        }
    }
}

/* The kept translations, first in a new file: its blocks name them. */
void writer_write_translations(struct sink *s)
{
    struct chunk *c = malloc(sizeof(*c) + w->chunk_bytes);
    size_t off = 0;

    if (!c) {
        sink_fail(s, "translations for the new file: out of memory");
        return;
    }
    while (off < w->trans_copy_len) {
        memset(c, 0, sizeof(*c));
        c->vcpu = QTRACE_VCPU_NONE;
        c->cap = (uint32_t)w->chunk_bytes;
        while (off < w->trans_copy_len) {
            struct qtrace_rec r;

            memcpy(&r, w->trans_copy + off, sizeof(r));
            if (c->len + r.size > c->cap) {
                break;
            }
            memcpy(c->data + c->len, w->trans_copy + off, r.size);
            c->len += r.size;
            c->n_records++;
            off += r.size;
        }
        writer_count_records(c);
        s->ops->chunk(s, c);
    }
    free(c);
}

/* The old file's END, then the new file's counters start from zero. */
static void close_for_switch(struct sink *old)
{
    char end[1024];

    writer_fmt_switch_end(end, sizeof(end));
    old->ops->close(old, end);
    old->ops->free(old);
    writer_file_restart();
}

/* Write the held chunks (of the new file) and give them back. */
static void write_held(struct held *h)
{
    while (h->head) {
        struct chunk *c = h->head;

        h->head = c->next;
        writer_chunk_done(c);
    }
    h->tail = NULL;
}

/*
 * trace-file set: open path first (a path that cannot be written leaves
 * the current file going on), start a new generation, write the old
 * generation's chunks to the old file and hold the new one's until every
 * vCPU has crossed (or CTL_WAIT_NS passed: a vCPU that records nothing
 * meanwhile has its next records in the new file); then the old file is
 * closed with its END and the new one gets the translations so far.
 */
static void serve_file(struct writer_req *req)
{
    int slot = find_file_sink();
    struct held h = { .on = true };
    struct qtrace_err err = { "" };
    struct sink *next;
    uint64_t deadline;

    if (slot < 0) {
        snprintf(req->err, sizeof(req->err), "no trace file (out=) to "
                 "switch from");
        return;
    }
    if (!w->keep_trans) {
        snprintf(req->err, sizeof(req->err), "the translations so far were "
                 "not kept (out of memory): a new file could not be read");
        return;
    }
    if (is_current_file(slot, req->path)) {
        snprintf(req->err, sizeof(req->err), "%s: the current trace file",
                 req->path);
        return;
    }
    next = sink_file_reopen(w->sinks[slot], req->path, &err);
    if (!next) {
        snprintf(req->err, sizeof(req->err), "%s", err.msg);
        return;
    }
    h.gen = vbuf_state_set(vbuf_state_is_on());
    deadline = flush_now_ns() + CTL_WAIT_NS;
    for (;;) {
        drain_queue(&h);
        if (count_behind(h.gen) == 0 || flush_now_ns() >= deadline ||
            !wait_a_little(CTL_POLL_NS)) {
            break;
        }
    }
    drain_queue(&h);
    settle_behind(h.gen);
    close_for_switch(w->sinks[slot]);
    w->sinks[slot] = next;
    writer_write_translations(next);
    write_held(&h);
    snprintf(req->text, sizeof(req->text), "Trace file \"%s\" %s.\n",
             next->target, vbuf_state_is_on() ? "on" : "off");
}

/*
 * snapshot [FILE] (ring=): every vCPU hands its chunk over into its ring,
 * then the rings go into the trace's outputs, or into the new trace
 * FILE (opened like trace-file set's, with the translations so far).
 */
static void serve_snapshot(struct writer_req *req)
{
    struct writer_snapshot snap = { 0, 0 };
    struct qtrace_err err = { "" };
    struct sink *s = NULL;
    int slot = find_file_sink();
    size_t pending;

    if (!ring_is_on()) {
        snprintf(req->err, sizeof(req->err), "snapshot: no rings to write "
                 "(the plugin records without ring=)");
        return;
    }
    if (req->path) {
        if (slot < 0 || !w->keep_trans) {
            snprintf(req->err, sizeof(req->err), "snapshot: %s: %s",
                     req->path, slot < 0 ? "no trace file (out=) to make "
                     "it like" : "the translations so far were not kept "
                     "(out of memory)");
            return;
        }
        if (is_current_file(slot, req->path)) {
            snprintf(req->err, sizeof(req->err), "snapshot: %s: the current "
                     "trace file", req->path);
            return;
        }
        s = sink_file_reopen(w->sinks[slot], req->path, &err);
        if (!s) {
            snprintf(req->err, sizeof(req->err), "snapshot: %s", err.msg);
            return;
        }
    }
    pending = writer_flush_vcpus();
    /* Translations first, as for any chunk: a block's precede its use. */
    writer_flush_trans();
    if (s && writer_ring_write_file(s, &snap) < 0) {
        snprintf(req->err, sizeof(req->err), "snapshot: %s: could not be "
                 "written", req->path);
        return;
    }
    if (!s) {
        writer_ring_write_all(&snap, false);
        w->snapshots++;
    }
    snprintf(req->text, sizeof(req->text),
             "chunks %" PRIu64 "\nrecords %" PRIu64 "\nring_dropped %" PRIu64
             "\npending_vcpus %zu\n", snap.chunks, snap.records,
             ring_dropped(), pending);
}

/* The trigger's request: one queued or being served at a time. */
static struct writer_req trigger_req;
static atomic_bool trigger_busy;

static void trigger_done(struct writer_req *req)
{
    (void)req;
    atomic_store(&trigger_busy, false);
}

void writer_trigger_snapshot(void)
{
    bool idle = false;

    if (!ring_is_on() ||
        !atomic_compare_exchange_strong(&trigger_busy, &idle, true)) {
        return;
    }
    trigger_req.kind = WRITER_REQ_TRIGGER;
    trigger_req.path = NULL;
    trigger_req.done = trigger_done;
    writer_request(&trigger_req);
}

/*
 * A snapshot trigger: as snapshot without FILE, but the triggering
 * vCPU's ring only up to the chunk it handed over at the trigger.
 */
static void serve_trigger(void)
{
    struct writer_snapshot snap = { 0, 0 };

    writer_flush_vcpus();
    writer_flush_trans();
    writer_ring_write_all(&snap, true);
    w->snapshots++;
}

/* Append "key value" lines to text at *used, whole lines only. */
static void __attribute__((format(printf, 4, 5)))
add_lines(char *text, size_t size, size_t *used, const char *fmt, ...)
{
    va_list ap;
    int n;

    if (*used >= size) {
        return;
    }
    va_start(ap, fmt);
    n = vsnprintf(text + *used, size - *used, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= size - *used) {
        text[*used] = '\0';    /* cut short: leave it out */
        *used = size;
        return;
    }
    *used += (size_t)n;
}

static void serve_stats(struct writer_req *req)
{
    double secs = (double)(flush_now_ns() - w->start_ns) / 1e9;
    size_t used = 0, i;
    const size_t size = sizeof(req->text);

    pthread_mutex_lock(&w->lock);
    add_lines(req->text, size, &used,
              "records %" PRIu64 "\nlost %" PRIu64 "\nchunks %" PRIu64
              "\nbytes %" PRIu64 "\ninsns %" PRIu64 "\nseconds %.3f\n"
              "bytes_per_second %.0f\nbuffer_chunks %zu\n"
              "buffer_chunks_max %zu\nbuffer_chunks_queued %zu\n"
              "chunk_bytes %zu\nwriting %s\n",
              w->records,
              (uint64_t)atomic_load(&w->lost_records) - w->lost_base,
              w->chunks, w->bytes, req->insns, secs,
              secs > 0 ? (double)w->bytes / secs : 0.0, w->n_alloc,
              w->max_alloc, w->n_busy, w->chunk_bytes,
              vbuf_state_is_on() ? "on" : "off");
    pthread_mutex_unlock(&w->lock);
    if (ring_is_on()) {
        add_lines(req->text, size, &used, "ring_chunks %zu\nring_dropped %"
                  PRIu64 "\nsnapshots %" PRIu64 "\n", ring_chunks(),
                  ring_dropped(), w->snapshots);
    }
    for (i = 0; i < WRITER_STATS_VCPUS; i++) {
        const struct writer_vcpu_stats *vs = &writer_vcpu_stats[i];
        uint64_t lost = atomic_load(&writer_lost_vcpu[i]) - vs->lost_base;

        if (!vs->chunks && !lost) {
            continue;
        }
        add_lines(req->text, size, &used,
                  "vcpu%zu_stream %u\nvcpu%zu_records %" PRIu64
                  "\nvcpu%zu_chunks %" PRIu64 "\nvcpu%zu_lost %" PRIu64
                  "\n", i, vs->stream, i, vs->records, i, vs->chunks, i,
                  lost);
    }
}

void writer_serve_request(struct writer_req *req)
{
    switch (req->kind) {
    case WRITER_REQ_FLUSH:
        serve_flush(req);
        break;
    case WRITER_REQ_FILE:
        serve_file(req);
        break;
    case WRITER_REQ_STATS:
        serve_stats(req);
        break;
    case WRITER_REQ_SNAPSHOT:
        serve_snapshot(req);
        break;
    case WRITER_REQ_TRIGGER:
        serve_trigger();
        break;
    }
    req->done(req);
}

/* Requests queued after the thread ended: answered, not served. */
void writer_fail_requests(void)
{
    struct writer_req *req;

    pthread_mutex_lock(&w->lock);
    req = w->reqs;
    w->reqs = NULL;
    pthread_mutex_unlock(&w->lock);
    while (req) {
        struct writer_req *next = req->next;

        snprintf(req->err, sizeof(req->err), "the trace is being closed");
        req->done(req);
        req = next;
    }
}

