/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The simple backend: records in QEMU's simpletrace format (layout in
 * simple-format.h) go into a ring buffer on the tracing thread and a
 * writer thread copies them to the trace file. The ring is guarded by one
 * mutex, taken only when an event is on; a full ring drops the record and
 * counts it, and the count becomes a dropped record as soon as there is
 * room again, in order. The file lock orders drains, so bytes reach the
 * file in the order they entered the ring.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "qtrace/trace-emit.h"
#include "simple-format.h"
#include "trace-int.h"

#define RING_BYTES (64u << 10)      /* a power of two; ~1100 small records */
#define RING_WAKE (RING_BYTES / 4)  /* wake the writer past this fill */
#define WRITER_PERIOD_MS 100        /* longest a record waits in the ring */
#define TYPE_BYTES 8                /* the u64 record type */

static pthread_mutex_t ring_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t ring_cond = PTHREAD_COND_INITIALIZER;
static uint8_t ring[RING_BYTES];
static size_t ring_head;            /* bytes ever written, ring_lock */
static size_t ring_tail;            /* bytes ever drained, ring_lock */
static uint64_t dropped;            /* records lost since last report */
static bool file_on;                /* records accepted, ring_lock */
static uint32_t file_pid;           /* getpid() when the file opened:
                                       no syscall per record, ring_lock */

static pthread_mutex_t file_lock = PTHREAD_MUTEX_INITIALIZER;
static FILE *file;                  /* the trace file, file_lock */
static char *file_name;             /* its name, file_lock */
#define DROP_REC_BYTES (TYPE_BYTES + ST_EVENT_HEAD_BYTES + 8)
static uint8_t drain_buf[RING_BYTES + DROP_REC_BYTES];  /* file_lock */

static pthread_t writer;
static bool writer_running;

/* Copy bytes into the ring at pos, wrapping; ring_lock held. */
static void ring_put_locked(size_t pos, const void *src, size_t n)
{
    size_t at = pos & (RING_BYTES - 1);
    size_t first = n < RING_BYTES - at ? n : RING_BYTES - at;

    memcpy(ring + at, src, first);
    memcpy(ring, (const uint8_t *)src + first, n - first);
}

static void ring_put_u64_locked(size_t *pos, uint64_t v)
{
    ring_put_locked(*pos, &v, sizeof(v));
    *pos += sizeof(v);
}

static uint64_t now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Type, id, timestamp, length and pid of an event record at *pos. */
static void put_event_head_locked(size_t *pos, uint64_t id,
                                  size_t args_bytes)
{
    uint32_t len_pid[2] = {
        (uint32_t)(ST_EVENT_HEAD_BYTES + args_bytes), file_pid
    };

    ring_put_u64_locked(pos, ST_TYPE_EVENT);
    ring_put_u64_locked(pos, id);
    ring_put_u64_locked(pos, now_ns());
    ring_put_locked(*pos, len_pid, sizeof(len_pid));
    *pos += sizeof(len_pid);
}

/*
 * Make room for a record of total bytes, first writing the dropped record
 * owed; false (and one more drop) if the ring cannot take both.
 */
static bool reserve_locked(size_t total)
{
    size_t need = total + (dropped ? DROP_REC_BYTES : 0);

    if (RING_BYTES - (ring_head - ring_tail) < need) {
        dropped++;
        pthread_cond_signal(&ring_cond);
        return false;
    }
    if (dropped) {
        put_event_head_locked(&ring_head, ST_DROPPED_ID, 8);
        ring_put_u64_locked(&ring_head, dropped);
        dropped = 0;
    }
    return true;
}

int qtrace_st_begin(struct qtrace_st_rec *rec, const struct trace_event *ev,
                    size_t args_bytes)
{
    size_t total = TYPE_BYTES + ST_EVENT_HEAD_BYTES + args_bytes;

    pthread_mutex_lock(&ring_lock);
    if (!file_on || !reserve_locked(total)) {
        pthread_mutex_unlock(&ring_lock);
        return -1;
    }
    rec->pos = ring_head;
    rec->end = ring_head + total;
    put_event_head_locked(&rec->pos, ev->id, args_bytes);
    return 0;                       /* ring_lock stays held until end */
}

void qtrace_st_u64(struct qtrace_st_rec *rec, uint64_t value)
{
    ring_put_u64_locked(&rec->pos, value);
}

uint32_t qtrace_st_strlen(const char *s)
{
    return s ? (uint32_t)strnlen(s, ST_STR_MAX) : 0;
}

void qtrace_st_str(struct qtrace_st_rec *rec, const char *s, uint32_t len)
{
    ring_put_locked(rec->pos, &len, sizeof(len));
    rec->pos += sizeof(len);
    if (len) {
        ring_put_locked(rec->pos, s, len);
        rec->pos += len;
    }
}

void qtrace_st_end(struct qtrace_st_rec *rec)
{
    ring_head = rec->end;
    if (ring_head - ring_tail >= RING_WAKE) {
        pthread_cond_signal(&ring_cond);
    }
    pthread_mutex_unlock(&ring_lock);
}

/*
 * The dropped record still owed, after what was drained: without it a
 * burst that ends while the ring is full would lose its count; ring_lock.
 */
static size_t put_owed_drops_locked(uint8_t *out)
{
    uint64_t words[4] = { ST_TYPE_EVENT, ST_DROPPED_ID, now_ns(), 0 };
    uint32_t len_pid[2] = { ST_EVENT_HEAD_BYTES + 8, file_pid };

    if (!dropped) {
        return 0;
    }
    words[3] = dropped;
    memcpy(out, words, 24);
    memcpy(out + 24, len_pid, sizeof(len_pid));
    memcpy(out + 32, &words[3], 8);
    dropped = 0;
    return DROP_REC_BYTES;
}

/* Move everything buffered to the file (dropped if there is none). */
static void drain(void)
{
    size_t n;
    size_t at;
    size_t first;

    pthread_mutex_lock(&file_lock);
    pthread_mutex_lock(&ring_lock);
    n = ring_head - ring_tail;
    at = ring_tail & (RING_BYTES - 1);
    first = n < RING_BYTES - at ? n : RING_BYTES - at;
    memcpy(drain_buf, ring + at, first);
    memcpy(drain_buf + first, ring, n - first);
    ring_tail = ring_head;
    n += put_owed_drops_locked(drain_buf + n);
    pthread_mutex_unlock(&ring_lock);
    if (file && n) {
        if (fwrite(drain_buf, 1, n, file) != n || fflush(file) != 0) {
            ctl_warn("%s: %s", file_name, strerror(errno));
        }
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
        pthread_mutex_lock(&ring_lock);
        pthread_cond_timedwait(&ring_cond, &ring_lock, &until);
        pthread_mutex_unlock(&ring_lock);
        drain();
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
    return ok && fflush(file) == 0;
}

bool st_set_trace_file_enabled(bool enable)
{
    bool was;

    drain();
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
    pthread_mutex_lock(&ring_lock);
    file_on = file != NULL;
    file_pid = (uint32_t)getpid();
    pthread_mutex_unlock(&ring_lock);
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
    drain();
}

static void flush_at_exit(void)
{
    drain();
}

bool backend_simple_start(void)
{
    int err;

    if (writer_running) {
        return true;
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
