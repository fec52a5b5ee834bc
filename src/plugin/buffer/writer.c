/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The writer thread and the chunk pool (see writer.h). vCPU threads call
 * writer_chunk_get/put once per chunk; the thread walks each queued chunk
 * once to count its records and passes it to every sink.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "qtrace-events.h"
#include "qtrace/format.h"
#include "flush.h"
#include "pack.h"
#include "ring.h"
#include "../sink/sink.h"
#include "writer-int.h"
#include "writer.h"

struct writer_state writer_st = {
    .lock = PTHREAD_MUTEX_INITIALIZER,
    .work = PTHREAD_COND_INITIALIZER,
    .freed = PTHREAD_COND_INITIALIZER,
    .trans_lock = PTHREAD_MUTEX_INITIALIZER,
};

/* Every use below goes through w: the state is shared with writer-ctl.c. */
static struct writer_state *const w = &writer_st;

/* Room past the capacity for the stamps that end a chunk (vbuf.h). */
static struct chunk *chunk_alloc(void)
{
    struct chunk *c = malloc(sizeof(*c) + w->chunk_bytes + VBUF_TAIL_ROOM);

    if (c) {
        memset(c, 0, sizeof(*c));
        c->cap = (uint32_t)w->chunk_bytes;
        w->n_alloc++;
    }
    return c;
}

/* Caller holds w->lock. */
static struct chunk *take_free_locked(bool may_wait)
{
    struct chunk *c;

    for (;;) {
        if (w->free_list) {
            c = w->free_list;
            w->free_list = c->next;
            c->next = NULL;
            return c;
        }
        /*
         * Past the bound, wait for the writer to return one; but when
         * nothing is queued no chunk will come back, so grow instead of
         * waiting forever (every vCPU holding a chunk, none queued).
         */
        if (w->n_alloc - w->n_ringed < w->max_alloc || w->n_busy == 0 ||
            !may_wait) {
            return chunk_alloc();
        }
        pthread_cond_wait(&w->freed, &w->lock);
    }
}

struct chunk *writer_chunk_get(void)
{
    struct chunk *c;

    pthread_mutex_lock(&w->lock);
    c = w->stop_thread ? NULL : take_free_locked(true);
    pthread_mutex_unlock(&w->lock);
    return c;
}

struct chunk *writer_chunk_try_get(void)
{
    struct chunk *c = NULL;

    pthread_mutex_lock(&w->lock);
    if (!w->stop_thread &&
        (w->free_list || w->n_alloc - w->n_ringed < w->max_alloc)) {
        c = take_free_locked(false);
    }
    pthread_mutex_unlock(&w->lock);
    return c;
}

void writer_recycle_locked(struct chunk *c)
{
    c->len = 0;
    c->n_records = 0;
    c->next = w->free_list;
    w->free_list = c;
    pthread_cond_signal(&w->freed);
}

void writer_chunk_put(struct chunk *c)
{
    if (!w->started) {
        return;         /* a forked child: see writer_after_fork_child */
    }
    pthread_mutex_lock(&w->lock);
    if (c->len == 0) {
        writer_recycle_locked(c);
    } else {
        c->next = NULL;
        if (w->tail) {
            w->tail->next = c;
        } else {
            w->head = c;
        }
        w->tail = c;
        w->n_busy++;
        pthread_cond_signal(&w->work);
    }
    pthread_mutex_unlock(&w->lock);
}

void *writer_trans_reserve(uint32_t size)
{
    struct chunk *c;
    void *p;

    if (!w->started) {
        return NULL;
    }
    pthread_mutex_lock(&w->trans_lock);
    c = w->trans;
    if (c && c->len + size > c->cap) {
        /* Kept apart from the queue: see flush_trans. */
        c->next = w->trans_full;
        w->trans_full = c;
        c = w->trans = NULL;
    }
    if (!c) {
        pthread_mutex_lock(&w->lock);
        /* Never waits: the writer needs trans_lock to free chunks. */
        c = take_free_locked(false);
        pthread_mutex_unlock(&w->lock);
        if (!c || size > c->cap) {
            pthread_mutex_unlock(&w->trans_lock);
            return NULL;
        }
        c->vcpu = QTRACE_VCPU_NONE;
        c->stream = 0;
        c->flags = 0;
        c->len = 0;
        w->trans = c;
    }
    p = c->data + c->len;
    c->len += size;
    c->n_records++;
    return p;   /* trans_lock stays held until writer_trans_commit */
}

void writer_trans_commit(void)
{
    pthread_mutex_unlock(&w->trans_lock);
}

bool writer_is_behind(void)
{
    bool behind;

    /* n_busy counts the chunk being written: two more are waiting. */
    pthread_mutex_lock(&w->lock);
    behind = w->n_busy > 2;
    pthread_mutex_unlock(&w->lock);
    return behind;
}

bool writer_is_stopping(void)
{
    return atomic_load_explicit(&w->stopping, memory_order_relaxed);
}

void writer_count_lost(uint32_t records)
{
    atomic_fetch_add_explicit(&w->lost_records, records,
                              memory_order_relaxed);
}

struct writer_vcpu_stats writer_vcpu_stats[WRITER_STATS_VCPUS];
atomic_uint_fast64_t writer_lost_vcpu[WRITER_STATS_VCPUS];

void writer_count_lost_vcpu(uint32_t vcpu, uint64_t records)
{
    atomic_fetch_add_explicit(&w->lost_records, records,
                              memory_order_relaxed);
    if (vcpu < WRITER_STATS_VCPUS) {
        atomic_fetch_add_explicit(&writer_lost_vcpu[vcpu], records,
                                  memory_order_relaxed);
    }
}

void writer_count_records(const struct chunk *c)
{
    w->records += c->n_records;
    w->bytes += c->len;
    w->chunks++;
    if (c->vcpu < WRITER_STATS_VCPUS) {
        writer_vcpu_stats[c->vcpu].stream = c->stream;
        writer_vcpu_stats[c->vcpu].records += c->n_records;
        writer_vcpu_stats[c->vcpu].chunks++;
    }
}

static void write_to_sinks(const struct chunk *c)
{
    size_t i;

    writer_count_records(c);
    for (i = 0; i < w->n_sinks; i++) {
        struct sink *s = w->sinks[i];

        if (s->failed) {
            s->chunks_lost++;
        } else {
            s->ops->chunk(s, c);
        }
    }
}

/* A vCPU chunk; a staged one is packed here, off the vCPU's thread. */
void writer_write_vcpu_chunk(const struct chunk *c)
{
    const struct chunk *packed;
    char why[160];

    if (!(c->flags & CHUNK_STAGED)) {
        write_to_sinks(c);
        return;
    }
    packed = pack_transcode(c, why, sizeof(why));
    if (!packed) {
        fprintf(stderr, "qtrace: %s: chunk not written\n", why);
        writer_count_lost_vcpu(c->vcpu,
                               pack_staged_records(c->data, c->len));
        return;
    }
    write_to_sinks(packed);
}

/*
 * Write the pending translations. Called before every vCPU chunk: the
 * translations of any block that chunk executed were reserved before the
 * chunk was queued, so they are in trans_full or trans by now.
 */
void writer_flush_trans(void)
{
    struct chunk *full, *cur, *order = NULL;

    pthread_mutex_lock(&w->trans_lock);
    full = w->trans_full;
    w->trans_full = NULL;
    cur = w->trans;
    if (cur && cur->len > 0) {
        w->trans = NULL;
    } else {
        cur = NULL;
    }
    pthread_mutex_unlock(&w->trans_lock);

    while (full) {              /* reverse into oldest-first order */
        struct chunk *next = full->next;

        full->next = order;
        order = full;
        full = next;
    }
    if (cur) {
        cur->next = NULL;
        if (order) {
            struct chunk *t = order;

            while (t->next) {
                t = t->next;
            }
            t->next = cur;
        } else {
            order = cur;
        }
    }
    while (order) {
        struct chunk *next = order->next;

        writer_copy_translations(order);
        write_to_sinks(order);
        pthread_mutex_lock(&w->lock);
        writer_recycle_locked(order);
        pthread_mutex_unlock(&w->lock);
        order = next;
    }
}

void writer_chunk_done(struct chunk *c)
{
    if (ring_is_on()) {
        writer_ring_keep(c);
        return;
    }
    writer_write_vcpu_chunk(c);
    pthread_mutex_lock(&w->lock);
    writer_recycle_locked(c);
    w->n_busy--;
    pthread_mutex_unlock(&w->lock);
}

/*
 * A guest fork() copies QEMU without the writer thread, with the locks in
 * whatever state other threads left them. The child must neither wait for
 * a writer that does not exist nor share the parent's file: it records
 * nothing (its records count as lost) and its exit does not close sinks.
 */
static void writer_after_fork_child(void)
{
    pthread_mutex_init(&w->lock, NULL);
    pthread_mutex_init(&w->trans_lock, NULL);
    pthread_cond_init(&w->work, NULL);
    pthread_cond_init(&w->freed, NULL);
    atomic_store(&w->stopping, true);
    w->stop_thread = true;
    w->started = false;
    w->n_sinks = 0;
    flush_after_fork_child();
}

void writer_watch(struct vbuf *vb)
{
    flush_watch(vb);
}

/*
 * Wait for a queued chunk or the next flush look, whichever comes first;
 * the look itself runs unlocked (it may queue chunks). Caller holds
 * w->lock, and holds it again on return.
 */
static void wait_for_work_locked(uint64_t deadline)
{
    struct timespec ts;

    while (!w->head && !w->reqs && !w->stop_thread) {
        if (deadline == UINT64_MAX) {
            pthread_cond_wait(&w->work, &w->lock);
            continue;
        }
        ts.tv_sec = (time_t)(deadline / 1000000000u);
        ts.tv_nsec = (long)(deadline % 1000000000u);
        if (pthread_cond_timedwait(&w->work, &w->lock, &ts) == ETIMEDOUT) {
            pthread_mutex_unlock(&w->lock);
            deadline = flush_tick(flush_now_ns());
            pthread_mutex_lock(&w->lock);
        }
    }
}

static void *writer_main(void *arg)
{
    (void)arg;
    for (;;) {
        /* Unlocked: taking a parked vCPU's chunk queues it. */
        uint64_t deadline = flush_tick(flush_now_ns());
        struct writer_req *req;
        struct chunk *c;

        pthread_mutex_lock(&w->lock);
        if (!w->stop_thread) {
            wait_for_work_locked(deadline);
        }
        req = w->reqs;
        if (req) {
            w->reqs = req->next;
            pthread_mutex_unlock(&w->lock);
            writer_serve_request(req);
            continue;
        }
        c = w->head;
        if (!c) {
            pthread_mutex_unlock(&w->lock);
            break;
        }
        w->head = c->next;
        if (!w->head) {
            w->tail = NULL;
        }
        pthread_mutex_unlock(&w->lock);

        writer_flush_trans();
        writer_chunk_done(c);
    }
    writer_flush_trans();
    return NULL;
}

int writer_start(const struct writer_cfg *cfg, struct sink **sinks,
                 size_t n_sinks, struct qtrace_err *err)
{
    sigset_t all, old;
    pthread_condattr_t attr;
    int ret;

    /* Deadlines of the flush interval count in CLOCK_MONOTONIC. */
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_cond_init(&w->work, &attr);
    pthread_condattr_destroy(&attr);
    flush_init(cfg->flush_ms);
    w->chunk_bytes = cfg->chunk_bytes;
    w->start_ns = flush_now_ns();
    w->max_alloc = cfg->buffer_bytes / cfg->chunk_bytes;
    ring_setup(cfg->ring_bytes, cfg->chunk_bytes);
    w->sinks = sinks;
    w->n_sinks = n_sinks;
    pthread_atfork(NULL, NULL, writer_after_fork_child);
    /*
     * The thread runs with every signal blocked: QEMU's handler takes a
     * signal on a thread without a vCPU for the guest's and crashes, and
     * a write past RLIMIT_FSIZE raises SIGXFSZ at the writing thread
     * (blocked, the write fails with EFBIG and the sink reports it).
     */
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    ret = pthread_create(&w->thread, NULL, writer_main, NULL);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (ret != 0) {
        qtrace_err_set(err, "writer thread: %s", strerror(ret));
        return -ret;
    }
    /* Named for top, perf and bench.py, which weighs its share. */
    pthread_setname_np(w->thread, "qtrace-writer");
    w->started = true;
    return 0;
}

static const char *end_extra = "";
static void (*end_counts)(char *buf, size_t len);
static const char *status_path;

/* Instructions for END's insns=; counted is set once, at install. */
static struct {
    bool counted;
    atomic_uint_fast64_t total;
} insns;

void writer_insns_enable(void)
{
    insns.counted = true;
}

void writer_insns_add(uint64_t n)
{
    atomic_fetch_add_explicit(&insns.total, n, memory_order_relaxed);
}

/* "insns=N\n" when the plugin counts instructions, else nothing. */
static void fmt_end_insns(char *buf, size_t len)
{
    buf[0] = '\0';
    if (insns.counted) {
        snprintf(buf, len, "insns=%" PRIu64 "\n",
                 (uint64_t)atomic_load(&insns.total));
    }
}

void writer_set_end_extra(const char *text)
{
    end_extra = text;
}

void writer_set_end_counts(void (*fn)(char *buf, size_t len))
{
    end_counts = fn;
}

void writer_set_status_file(const char *path)
{
    status_path = path;
}

/* Sinks that failed (their output is short or missing). */
static size_t count_failed(void)
{
    size_t i, n = 0;

    for (i = 0; i < w->n_sinks; i++) {
        n += w->sinks[i] && w->sinks[i]->failed;
    }
    return n;
}

/*
 * The lines the sinks add to the END text (what they could not take),
 * taken just before they close, so that the status file written after
 * they are gone has them too.
 */
static char sinks_end[256];

static void take_sinks_end(void)
{
    size_t i, used = 0;

    sinks_end[0] = '\0';
    for (i = 0; i < w->n_sinks && used < sizeof(sinks_end); i++) {
        struct sink *s = w->sinks[i];

        if (s && s->ops->end) {
            s->ops->end(s, sinks_end + used, sizeof(sinks_end) - used);
            used += strlen(sinks_end + used);
        }
    }
}

/* The END text: totals so far and why the trace ends. */
static void fmt_end(char *end, size_t len, const char *exit_reason,
                    size_t failed)
{
    char insns_line[48], counts[96] = "", ring_line[96] = "";

    fmt_end_insns(insns_line, sizeof(insns_line));
    if (ring_is_on()) {
        snprintf(ring_line, sizeof(ring_line), "ring_dropped=%" PRIu64
                 "\nsnapshots=%" PRIu64 "\n", ring_dropped(), w->snapshots);
    }
    if (end_counts) {
        end_counts(counts, sizeof(counts));
    }
    snprintf(end, len,
             "records=%" PRIu64 "\nchunks=%" PRIu64 "\nbytes=%" PRIu64
             "\nlost=%" PRIu64 "\nfailed_outputs=%zu\n%s%s%s%sexit=%s\n%s",
             w->records, w->chunks, w->bytes,
             (uint64_t)atomic_load(&w->lost_records) - w->lost_base, failed,
             ring_line, insns_line,
             counts, sinks_end, exit_reason, end_extra);
}

/*
 * The END text again, in the status file: the one place a failed or
 * unreadable out= (a full disk, /dev/full) can still be seen from.
 */
static void write_status(const char *exit_reason, size_t failed)
{
    char text[1024];
    size_t len;
    int fd;

    if (!status_path) {
        return;
    }
    fmt_end(text, sizeof(text), exit_reason, failed);
    len = strlen(text);
    fd = open(status_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0 || write(fd, text, len) != (ssize_t)len) {
        fprintf(stderr, "qtrace: status=%s: %s\n", status_path,
                strerror(errno));
    }
    if (fd >= 0) {
        close(fd);
    }
}

void writer_fmt_end_as(char *end, size_t len, const char *exit_reason)
{
    bool counted = insns.counted;

    /* The run's instructions are known at its end only: no insns= line. */
    insns.counted = false;
    sinks_end[0] = '\0';
    fmt_end(end, len, exit_reason, count_failed());
    insns.counted = counted;
}

void writer_fmt_switch_end(char *end, size_t len)
{
    sinks_end[0] = '\0';
    fmt_end(end, len, "file-switch", count_failed());
}

void writer_file_restart(void)
{
    size_t i;

    w->records = w->chunks = w->bytes = w->snapshots = 0;
    memset(writer_vcpu_stats, 0, sizeof(writer_vcpu_stats));
    for (i = 0; i < WRITER_STATS_VCPUS; i++) {
        writer_vcpu_stats[i].lost_base = atomic_load(&writer_lost_vcpu[i]);
    }
    w->lost_base = atomic_load(&w->lost_records);
    atomic_store(&insns.total, 0);
    w->start_ns = flush_now_ns();
}

void writer_abort(struct sink *failed, const char *why,
                  const char *exit_reason)
{
    char end[512];
    size_t i;

    fprintf(stderr, "qtrace: %s=%s: %s\n", failed->ops->kind,
            failed->target ? failed->target : "?", why);
    failed->failed = true;
    take_sinks_end();
    fmt_end(end, sizeof(end), exit_reason, count_failed());
    for (i = 0; i < w->n_sinks; i++) {
        struct sink *s = w->sinks[i];

        if (s && s != failed && !s->failed) {
            s->ops->close(s, end);
        }
    }
    write_status(exit_reason, count_failed());
    /*
     * vCPU threads are running guest code: exit() would run QEMU's
     * atexit handlers under their feet. The trace files are closed.
     */
    _exit(1);
}

void writer_stop(const char *exit_reason)
{
    char end[1024];
    size_t i, failed = 0;

    if (!w->started) {
        return;
    }
    atomic_store(&w->stopping, true);
    pthread_mutex_lock(&w->lock);
    w->stop_thread = true;
    pthread_cond_broadcast(&w->work);
    pthread_cond_broadcast(&w->freed);
    pthread_mutex_unlock(&w->lock);
    pthread_join(w->thread, NULL);
    /* Chunks a still-running vCPU queued after the thread's last look. */
    writer_main(NULL);
    writer_fail_requests();
    if (ring_is_on()) {
        /* ring=: the last moments of the run, the exit's snapshot. */
        struct writer_snapshot snap = { 0, 0 };

        writer_ring_write_all(&snap, false);
        w->snapshots++;
    }
    w->started = false;

    take_sinks_end();
    fmt_end(end, sizeof(end), exit_reason, count_failed());
    for (i = 0; i < w->n_sinks; i++) {
        struct sink *s = w->sinks[i];

        /* Gone from the table: a writer_abort from close skips it. */
        w->sinks[i] = NULL;
        s->ops->close(s, end);
        failed += s->failed;
        s->ops->free(s);
    }
    w->n_sinks = 0;
    /* Counted after closing: writing an END may fail too. */
    write_status(exit_reason, failed);
}
