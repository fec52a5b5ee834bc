/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The batches of line-pool.h. Batches make a ring used in one order:
 * the reader's thread fills batch i, a worker formats it, the reader's
 * thread writes it and fills it again. A batch's state is atomic; one
 * lock serves the waits for a state, taken once per batch of thousands
 * of records, never per record.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "line-pool.h"

#define BATCH_RECORDS 8192u         /* records per batch */
#define BATCH_BYTES (1u << 20)      /* their bytes (a record is < 64 KiB) */
#define BATCHES_PER_WORKER 3u       /* one formatted, one written, one spare */
#define MAX_WORKERS 16u

enum batch_state {
    BATCH_FREE,                     /* the reader's thread may fill it */
    BATCH_FILLED,                   /* waiting for a worker */
    BATCH_BUSY,                     /* a worker formats it */
    BATCH_DONE,                     /* its text waits to be written */
};

struct batch {
    /* Atomic: read outside the lock, which only serves the waits. */
    _Atomic enum batch_state state;
    bool ok;                        /* the worker had the memory it needed */
    size_t n;                       /* records */
    size_t used;                    /* bytes of data */
    struct qtrace_record *recs;     /* BATCH_RECORDS, data into bytes */
    const char **notes;             /* BATCH_RECORDS, into bytes or NULL */
    uint8_t *bytes;                 /* BATCH_BYTES */
    struct line_out out;
};

struct line_pool {
    pthread_mutex_t lock;
    pthread_cond_t filled;          /* a batch became FILLED, or stop */
    pthread_cond_t done;            /* a batch became DONE */
    struct batch *batches;
    unsigned int n_batches;
    unsigned int fill;              /* the batch being filled */
    unsigned int take;              /* the next batch for a worker (lock) */
    unsigned int write;             /* the next batch to write */
    bool stop;                      /* workers leave (lock) */
    bool failed;                    /* a write or a format failed */
    pthread_t threads[MAX_WORKERS];
    unsigned int n_threads;
    void *ctxs[MAX_WORKERS];
    line_pool_fmt_fn fmt;
    FILE *f;
};

/* A worker passed its ctx (ctxs[i]) and the pool. */
struct worker_arg {
    struct line_pool *p;
    void *ctx;
};

bool line_out_room(struct line_out *out, size_t n)
{
    size_t cap = out->cap ? out->cap : 4096;
    char *bigger;

    if (out->len + n <= out->cap) {
        return true;
    }
    while (cap < out->len + n) {
        cap *= 2;
    }
    bigger = realloc(out->buf, cap);
    if (!bigger) {
        return false;
    }
    out->buf = bigger;
    out->cap = cap;
    return true;
}

unsigned int line_pool_default_workers(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);

    if (n < 1) {
        return 1;
    }
    return n > (long)MAX_WORKERS ? MAX_WORKERS : (unsigned int)n;
}

static void *worker(void *arg)
{
    struct worker_arg *wa = arg;
    struct line_pool *p = wa->p;
    struct batch *b;

    pthread_mutex_lock(&p->lock);
    for (;;) {
        while (!p->stop && p->batches[p->take].state != BATCH_FILLED) {
            pthread_cond_wait(&p->filled, &p->lock);
        }
        if (p->batches[p->take].state != BATCH_FILLED) {
            break;                  /* stopped, nothing left */
        }
        b = &p->batches[p->take];
        b->state = BATCH_BUSY;
        p->take = (p->take + 1) % p->n_batches;
        pthread_mutex_unlock(&p->lock);

        b->out.len = 0;
        b->ok = p->fmt(wa->ctx, b->recs, b->notes, b->n, &b->out);

        pthread_mutex_lock(&p->lock);
        b->state = BATCH_DONE;
        pthread_cond_broadcast(&p->done);
    }
    pthread_mutex_unlock(&p->lock);
    free(wa);
    return NULL;
}

static void free_batches(struct line_pool *p)
{
    unsigned int i;

    for (i = 0; p->batches && i < p->n_batches; i++) {
        free(p->batches[i].recs);
        free(p->batches[i].notes);
        free(p->batches[i].bytes);
        free(p->batches[i].out.buf);
    }
    free(p->batches);
}

static bool alloc_batches(struct line_pool *p, unsigned int n)
{
    unsigned int i;

    p->batches = calloc(n, sizeof(*p->batches));
    if (!p->batches) {
        return false;
    }
    p->n_batches = n;
    for (i = 0; i < n; i++) {
        p->batches[i].recs = malloc(BATCH_RECORDS *
                                    sizeof(*p->batches[i].recs));
        p->batches[i].notes = malloc(BATCH_RECORDS *
                                     sizeof(*p->batches[i].notes));
        p->batches[i].bytes = malloc(BATCH_BYTES);
        if (!p->batches[i].recs || !p->batches[i].notes ||
            !p->batches[i].bytes) {
            return false;
        }
    }
    return true;
}

/* Stop the workers started so far and wait for them. */
static void stop_workers(struct line_pool *p)
{
    unsigned int i;

    pthread_mutex_lock(&p->lock);
    p->stop = true;
    pthread_cond_broadcast(&p->filled);
    pthread_mutex_unlock(&p->lock);
    for (i = 0; i < p->n_threads; i++) {
        pthread_join(p->threads[i], NULL);
    }
    p->n_threads = 0;
}

static void pool_free(struct line_pool *p)
{
    stop_workers(p);
    free_batches(p);
    pthread_mutex_destroy(&p->lock);
    pthread_cond_destroy(&p->filled);
    pthread_cond_destroy(&p->done);
    free(p);
}

struct line_pool *line_pool_new(unsigned int workers, void *const *ctxs,
                                line_pool_fmt_fn fmt, FILE *f)
{
    struct line_pool *p;
    unsigned int i;

    if (workers == 0 || workers > MAX_WORKERS) {
        return NULL;
    }
    p = calloc(1, sizeof(*p));
    if (!p) {
        return NULL;
    }
    pthread_mutex_init(&p->lock, NULL);
    pthread_cond_init(&p->filled, NULL);
    pthread_cond_init(&p->done, NULL);
    p->fmt = fmt;
    p->f = f;
    if (!alloc_batches(p, workers * BATCHES_PER_WORKER)) {
        pool_free(p);
        return NULL;
    }
    for (i = 0; i < workers; i++) {
        struct worker_arg *wa = malloc(sizeof(*wa));

        if (!wa) {
            break;
        }
        wa->p = p;
        wa->ctx = ctxs[i];
        if (pthread_create(&p->threads[i], NULL, worker, wa) != 0) {
            free(wa);
            break;
        }
        p->n_threads++;
    }
    if (p->n_threads < workers) {
        pool_free(p);
        return NULL;
    }
    return p;
}

/* Write batch b (DONE) and make it free again. */
static void write_batch(struct line_pool *p, struct batch *b)
{
    if (!b->ok) {
        p->failed = true;
    } else if (!p->failed && b->out.len &&
               !cli_write_out(p->f, b->out.buf, b->out.len)) {
        p->failed = true;
    }
    b->n = 0;
    b->used = 0;
    b->state = BATCH_FREE;
    p->write = (p->write + 1) % p->n_batches;
}

/*
 * Write the batches formatted so far, in order; with wait, block until
 * the batch to write next is formatted and write at least that one.
 */
static void write_done(struct line_pool *p, bool wait)
{
    struct batch *b = &p->batches[p->write];

    pthread_mutex_lock(&p->lock);
    while (wait && (b->state == BATCH_FILLED || b->state == BATCH_BUSY)) {
        pthread_cond_wait(&p->done, &p->lock);
    }
    pthread_mutex_unlock(&p->lock);
    for (;;) {
        b = &p->batches[p->write];
        pthread_mutex_lock(&p->lock);
        if (b->state != BATCH_DONE) {
            pthread_mutex_unlock(&p->lock);
            return;
        }
        pthread_mutex_unlock(&p->lock);
        /* DONE is the reader's thread's to change: no lock to write. */
        write_batch(p, b);
    }
}

/* Hand the batch being filled to the workers and move on to the next. */
static void submit(struct line_pool *p)
{
    struct batch *b = &p->batches[p->fill];

    pthread_mutex_lock(&p->lock);
    b->state = BATCH_FILLED;
    pthread_cond_signal(&p->filled);
    pthread_mutex_unlock(&p->lock);
    p->fill = (p->fill + 1) % p->n_batches;
    write_done(p, false);
    /* The ring is full when the next batch to fill is the next to write. */
    while (p->batches[p->fill].state != BATCH_FREE) {
        write_done(p, true);
    }
}

/* Bytes at the batch's end for n bytes, keeping 8-byte alignment. */
static uint8_t *take_bytes(struct batch *b, size_t n)
{
    uint8_t *at = b->bytes + b->used;

    b->used += (n + 7) & ~(size_t)7;
    return at;
}

bool line_pool_add(struct line_pool *p, const struct qtrace_record *rec,
                   const char *note)
{
    struct batch *b = &p->batches[p->fill];
    size_t note_len = note ? strlen(note) + 1 : 0;
    size_t room = (((size_t)rec->size + 7) & ~(size_t)7) +
                  ((note_len + 7) & ~(size_t)7);
    struct qtrace_record *copy;

    if (room > BATCH_BYTES) {
        return false;   /* a record is < 64 KiB: only a huge note */
    }
    if (b->n == BATCH_RECORDS || BATCH_BYTES - b->used < room) {
        submit(p);
        b = &p->batches[p->fill];
    }
    copy = &b->recs[b->n];
    *copy = *rec;
    copy->data = take_bytes(b, rec->size);
    /*
     * Most records are 32 to 64 bytes: two copies of 32 bytes that
     * overlap cover them without a call of memcpy per record.
     */
    if (rec->size >= 32 && rec->size <= 64) {
        memcpy((uint8_t *)copy->data, rec->data, 32);
        memcpy((uint8_t *)copy->data + rec->size - 32,
               rec->data + rec->size - 32, 32);
    } else {
        memcpy((uint8_t *)copy->data, rec->data, rec->size);
    }
    b->notes[b->n++] = note ? memcpy(take_bytes(b, note_len), note,
                                     note_len) : NULL;
    return !p->failed;
}

bool line_pool_finish(struct line_pool *p)
{
    bool ok;

    if (p->batches[p->fill].n) {
        submit(p);
    }
    while (p->write != p->fill) {
        write_done(p, true);
    }
    ok = !p->failed;
    pool_free(p);
    return ok;
}
