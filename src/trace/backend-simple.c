/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The simple backend: records in QEMU's simpletrace format (layout in
 * simple-format.h). Tracing threads append them to a lock-free ring
 * (simple-ring.h) with no lock, syscall or allocation per record; the
 * writer thread, woken once per half ring (or every 100 ms), writes what
 * is committed to the file with one writev() per batch. A full ring drops
 * the record and counts it; the drainer writes the count as QEMU's
 * dropped record after the batch it empties, so records plus dropped
 * counts always add up. The file lock orders drains and file changes.
 */
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "qtrace/trace-emit.h"
#include "simple-format.h"
#include "simple-ring.h"
#include "trace-int.h"

#define RING_DEFAULT_BYTES (16u << 20) /* ~300000 small records */
#define RING_MIN_BYTES (64u << 10)     /* room for the biggest record */
#define RING_MAX_BYTES (1ul << 30)
#define RING_ENV "QTRACE_TRACE_BUFFER"
#define WRITER_PERIOD_MS 100        /* longest a record waits in the ring */
#define TYPE_BYTES 8                /* the u64 record type */
#define DROP_REC_BYTES (TYPE_BYTES + ST_EVENT_HEAD_BYTES + 8)
#define FLUSH_YIELDS 100000         /* how long a flush waits for a
                                       record still being written */
#define DRAIN_CHUNK (1u << 20)      /* bytes per writev(): room is given
                                       back to the tracing threads after
                                       each, not after a whole half ring */

static bool file_on;                /* records accepted; atomic */
static uint32_t file_pid;           /* getpid() when the file opened:
                                       no syscall per record; atomic */
static uint64_t dropped;            /* records lost, not yet written;
                                       atomic */
static sem_t writer_wake;           /* posted once per half ring */
static size_t half_ring;            /* st_ring.size / 2, set at init */

static pthread_mutex_t file_lock = PTHREAD_MUTEX_INITIALIZER;
static FILE *file;                  /* the trace file, file_lock */
static char *file_name;             /* its name, file_lock */

static pthread_t writer;
static bool writer_running;

static uint64_t now_ns(void)
{
    struct timespec ts;

    /* CLOCK_MONOTONIC, as QEMU's: read from the vDSO, no syscall */
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* A full ring: count the loss, and wake the writer at its first one. */
static void count_drop(void)
{
    if (__atomic_fetch_add(&dropped, 1, __ATOMIC_RELAXED) == 0) {
        sem_post(&writer_wake);
    }
}

int qtrace_st_begin(struct qtrace_st_rec *rec, const struct trace_event *ev,
                    size_t args_bytes)
{
    size_t total = TYPE_BYTES + ST_EVENT_HEAD_BYTES + args_bytes;
    struct {
        uint64_t id;
        uint64_t timestamp_ns;
        uint32_t len;
        uint32_t pid;
    } head;
    _Static_assert(sizeof(head) == ST_EVENT_HEAD_BYTES, "no padding");

    if (!__atomic_load_n(&file_on, __ATOMIC_ACQUIRE)) {
        return -1;
    }
    if (!st_ring_reserve(total, &rec->start)) {
        count_drop();
        return -1;
    }
    /* the type word's first byte is left for st_ring_commit() */
    head.id = ev->id;
    head.timestamp_ns = now_ns();
    head.len = (uint32_t)(ST_EVENT_HEAD_BYTES + args_bytes);
    head.pid = __atomic_load_n(&file_pid, __ATOMIC_RELAXED);
    st_ring_put(rec->start + TYPE_BYTES, &head, sizeof(head));
    rec->pos = rec->start + TYPE_BYTES + sizeof(head);
    return 0;
}

void qtrace_st_u64(struct qtrace_st_rec *rec, uint64_t value)
{
    st_ring_put(rec->pos, &value, sizeof(value));
    rec->pos += sizeof(value);
}

uint32_t qtrace_st_strlen(const char *s)
{
    return s ? (uint32_t)strnlen(s, ST_STR_MAX) : 0;
}

void qtrace_st_str(struct qtrace_st_rec *rec, const char *s, uint32_t len)
{
    st_ring_put(rec->pos, &len, sizeof(len));
    rec->pos += sizeof(len);
    if (len) {
        st_ring_put(rec->pos, s, len);
        rec->pos += len;
    }
}

void qtrace_st_end(struct qtrace_st_rec *rec)
{
    st_ring_commit(rec->start, ST_TYPE_EVENT);
    /* one wake-up per half ring: the record that crosses a half */
    if ((rec->start ^ rec->pos) >= half_ring) {
        sem_post(&writer_wake);
    }
}

/* The dropped record owed, into out; its size, 0 if nothing was lost. */
static size_t fmt_owed_drops(uint8_t out[DROP_REC_BYTES])
{
    uint64_t count = __atomic_exchange_n(&dropped, 0, __ATOMIC_RELAXED);
    uint64_t words[3] = { ST_TYPE_EVENT, ST_DROPPED_ID, now_ns() };
    uint32_t len_pid[2] = { ST_EVENT_HEAD_BYTES + 8, file_pid };

    if (!count) {
        return 0;
    }
    memcpy(out, words, sizeof(words));
    memcpy(out + sizeof(words), len_pid, sizeof(len_pid));
    memcpy(out + sizeof(words) + sizeof(len_pid), &count, sizeof(count));
    return DROP_REC_BYTES;
}

/* Write iov[0..n) whole, resuming after short writes; file_lock held. */
static void write_all_locked(struct iovec *iov, int n)
{
    int fd = fileno(file);

    while (n > 0) {
        ssize_t done = writev(fd, iov, n);

        if (done < 0 && errno == EINTR) {
            continue;
        }
        if (done < 0) {
            ctl_warn("%s: %s", file_name, strerror(errno));
            return;
        }
        while (n > 0 && (size_t)done >= iov->iov_len) {
            done -= (ssize_t)iov->iov_len;
            iov++;
            n--;
        }
        if (n > 0) {
            iov->iov_base = (uint8_t *)iov->iov_base + done;
            iov->iov_len -= (size_t)done;
        }
    }
}

/*
 * The committed records up to limit, waiting for the ones still being
 * written when wait is set (a flush must hold all that came before it).
 */
static size_t committed_end(size_t limit, bool wait)
{
    size_t end = st_ring_committed_end(limit);
    unsigned int tries = 0;

    while (wait && end < limit && tries++ < FLUSH_YIELDS) {
        sched_yield();
        end = st_ring_committed_end(limit);
    }
    return end;
}

/*
 * Write [tail, end) in one writev(), with the dropped record owed when
 * drops is set, and give the room back; file_lock held.
 */
static void write_chunk_locked(size_t end, bool drops)
{
    uint8_t drop_rec[DROP_REC_BYTES];
    struct iovec iov[3];
    const uint8_t *ptr[2];
    size_t len[2];
    int n = st_ring_spans(end, ptr, len);
    int i;

    for (i = 0; i < n; i++) {
        iov[i].iov_base = (void *)ptr[i];
        iov[i].iov_len = len[i];
    }
    iov[n].iov_base = drop_rec;
    iov[n].iov_len = drops ? fmt_owed_drops(drop_rec) : 0;
    if (iov[n].iov_len) {
        n++;
    }
    if (file && n) {
        write_all_locked(iov, n);
    }
    st_ring_release(end);
}

/*
 * Move the committed records to the file, DRAIN_CHUNK bytes per
 * writev(), then the dropped record owed (with no file they are
 * discarded). wait: also everything reserved before the call.
 */
static void drain(bool wait)
{
    size_t limit;
    bool last = false;

    if (!st_ring.buf) {
        return;
    }
    pthread_mutex_lock(&file_lock);
    limit = st_ring_head();
    while (!last) {
        size_t tail = st_ring_tail();
        size_t chunk_limit = limit - tail > DRAIN_CHUNK ?
                             tail + DRAIN_CHUNK : limit;
        size_t end = committed_end(chunk_limit, wait);

        /* a record still being written, or all there was: the end */
        last = end < chunk_limit || end >= limit;
        write_chunk_locked(end, last);
    }
    pthread_mutex_unlock(&file_lock);
}

static void *writer_main(void *arg)
{
    (void)arg;
    for (;;) {
        struct timespec until;

        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_nsec += WRITER_PERIOD_MS * 1000000L;
        if (until.tv_nsec >= 1000000000L) {
            until.tv_sec++;
            until.tv_nsec -= 1000000000L;
        }
        sem_timedwait(&writer_wake, &until);
        drain(false);
    }
    return NULL;
}

/* Header, then one mapping record per registered event; file_lock held. */
static bool write_preamble_locked(void)
{
    const uint64_t header[3] = { ST_HEADER_ID, ST_MAGIC, ST_VERSION };
    const struct trace_event_group *g;
    bool ok = fwrite(header, sizeof(header), 1, file) == 1;
    size_t i;

    for (g = control_groups(); g && ok; g = g->next) {
        for (i = 0; i < g->n_events && ok; i++) {
            uint64_t type_id[2] = { ST_TYPE_MAPPING, g->events[i].id };
            uint32_t len = (uint32_t)strlen(g->events[i].name);

            ok = fwrite(type_id, sizeof(type_id), 1, file) == 1 &&
                 fwrite(&len, sizeof(len), 1, file) == 1 &&
                 fwrite(g->events[i].name, 1, len, file) == len;
        }
    }
    /* flushed: the batches that follow go to the descriptor directly */
    return ok && fflush(file) == 0;
}

/* The ring size: QTRACE_TRACE_BUFFER bytes (k, M or G suffix) or 16 MiB. */
static size_t ring_bytes(void)
{
    const char *env = getenv(RING_ENV);
    char *end;
    unsigned long long n;

    if (!env || !*env) {
        return RING_DEFAULT_BYTES;
    }
    n = strtoull(env, &end, 10);
    if (*end == 'k' || *end == 'K') {
        n <<= 10;
        end++;
    } else if (*end == 'M') {
        n <<= 20;
        end++;
    } else if (*end == 'G') {
        n <<= 30;
        end++;
    }
    if (*end || n < RING_MIN_BYTES || n > RING_MAX_BYTES) {
        ctl_warn("%s=%s: expected 64k to 1G; using 16M", RING_ENV, env);
        return RING_DEFAULT_BYTES;
    }
    return (size_t)n;
}

static void init_ring_once(void)
{
    sem_init(&writer_wake, 0, 0);
    if (st_ring_init(ring_bytes())) {
        half_ring = st_ring.size / 2;
    } else {
        ctl_warn("simple: cannot allocate the trace buffer: %s",
                 strerror(ENOMEM));
    }
}

/* The ring and the writer's semaphore, once; false if memory is short. */
static bool init_ring(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;

    pthread_once(&once, init_ring_once);
    return st_ring.buf != NULL;
}

bool st_set_trace_file_enabled(bool enable)
{
    bool was;

    if (!init_ring()) {
        return false;
    }
    if (!enable) {
        /* refuse new records first, then write out what came before */
        __atomic_store_n(&file_on, false, __ATOMIC_RELEASE);
    }
    drain(true);
    pthread_mutex_lock(&file_lock);
    was = file != NULL;
    if (enable && !file && file_name) {
        file = fopen(file_name, "wb");
        if (!file) {
            ctl_warn("file=%s: %s", file_name, strerror(errno));
        } else if (!write_preamble_locked()) {
            ctl_warn("file=%s: %s", file_name, strerror(errno));
        }
    } else if (!enable && file) {
        fclose(file);
        file = NULL;
    }
    __atomic_store_n(&file_pid, (uint32_t)getpid(), __ATOMIC_RELAXED);
    __atomic_store_n(&file_on, file != NULL, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&file_lock);
    return was;
}

void st_set_trace_file(const char *name)
{
    char def[32];
    bool same;

    if (!name) {
        snprintf(def, sizeof(def), "trace-%ld", (long)getpid());
        name = def;
    }
    pthread_mutex_lock(&file_lock);
    same = file && file_name && strcmp(file_name, name) == 0;
    pthread_mutex_unlock(&file_lock);
    if (same) {
        return;                     /* trace_init_file() called again */
    }
    st_set_trace_file_enabled(false);
    pthread_mutex_lock(&file_lock);
    free(file_name);
    file_name = strdup(name);
    pthread_mutex_unlock(&file_lock);
    st_set_trace_file_enabled(true);
}

void st_flush_trace_buffer(void)
{
    drain(true);
}

static void flush_at_exit(void)
{
    drain(true);
}

bool backend_simple_start(void)
{
    int err;

    if (writer_running) {
        return true;
    }
    if (!init_ring()) {
        return false;
    }
    err = pthread_create(&writer, NULL, writer_main, NULL);
    if (err) {
        ctl_warn("simple: cannot start the writer thread: %s",
                 strerror(err));
        return false;
    }
    pthread_detach(writer);
    writer_running = true;
    atexit(flush_at_exit);
    return true;
}
