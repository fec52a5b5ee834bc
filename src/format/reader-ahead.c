/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The native trace reader, its decoding thread (qtrace_reader_set_ahead):
 * a thread of the reader's own runs the reading (checks, decompression,
 * the packed streams' predictors) and copies the records it hands out
 * into batches; the caller's qtrace_reader_next takes them from there in
 * the same order. A packed stream cannot be split (each chunk goes on
 * from its predictors' state at the chunk before), so the reading stays
 * one sequence, but it runs beside what the caller does with the
 * records: a report's tables, a conversion's output.
 *
 * Batches make a ring used in one order: the thread fills one while the
 * caller takes from another; a few of them bound the memory. A lock is
 * taken once per batch of thousands of records, never per record. Every
 * other call on the reader first stops the thread (the batches it filled
 * stay, the reader's state is where their last record left it), so the
 * reader's state is only ever touched by one thread at a time; the
 * memory budget, which both take from, is atomic.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "reader-int.h"

#define AHEAD_RECORDS 8192u         /* records per batch */
#define AHEAD_BYTES (1u << 20)      /* their bytes (a record is < 64 KiB) */
#define AHEAD_BATCHES 4u            /* one taken, the others filled ahead */

struct ahead_batch {
    size_t n;                       /* records */
    size_t used;                    /* bytes of data */
    bool last;                      /* the reading ended after them */
    int status;                     /* ... with this (0 or -errno) */
    bool moved;                     /* the reading moved on meanwhile: */
    uint64_t offset;                /* ... the progress offset reached */
    struct qtrace_err err;          /* why it stopped, if it failed */
    struct qtrace_record *recs;     /* AHEAD_RECORDS, data into bytes */
    uint8_t *bytes;                 /* AHEAD_BYTES */
};

struct reader_ahead {
    pthread_mutex_t lock;
    pthread_cond_t cond;            /* a batch filled, taken, or stop */
    struct ahead_batch b[AHEAD_BATCHES];
    unsigned int fill;              /* next batch the thread fills */
    unsigned int take;              /* next batch the caller takes */
    unsigned int queued;            /* filled, not yet given back (lock) */
    struct ahead_batch *cur;        /* the batch the caller takes from
                                       (batch take), or NULL */
    bool stop;                      /* the thread is asked to stop (lock) */
    bool running;                   /* a thread was started, not joined */
    bool on;                        /* qtrace_reader_set_ahead(true) */
    bool ended;                     /* a last batch was queued */
    pthread_t thread;
    struct qtrace_reader *rd;
};

/*
 * A record's bytes into a batch, a word at a time: records are small
 * (most 32 or 40 bytes) and a call of memcpy per record was a tenth of
 * the reading thread's time.
 */
static inline const uint8_t *copy_data(uint8_t *to, const uint8_t *from,
                                       uint32_t size)
{
    /* Two copies of a fixed size cover any size between it and twice. */
    if (size >= 32 && size <= 64) {
        memcpy(to, from, 32);
        memcpy(to + size - 32, from + size - 32, 32);
    } else if (size >= 16 && size < 32) {
        memcpy(to, from, 16);
        memcpy(to + size - 16, from + size - 16, 16);
    } else {
        memcpy(to, from, size);
    }
    return to;
}

/* Fill b from the reading; its end (or failure) is noted in b. */
static void fill_batch(struct qtrace_reader *rd, struct ahead_batch *b)
{
    struct qtrace_record *rec;
    size_t n = 0, used = 0;
    int ret;

    b->last = false;
    b->moved = false;
    /* A record's size is 16 bits: 64 KiB of room hold the largest. */
    while (n < AHEAD_RECORDS && AHEAD_BYTES - used >= (64u << 10)) {
        rec = &b->recs[n];
        ret = reader_next_here(rd, rec, &b->err);
        if (ret <= 0) {
            b->last = true;
            b->status = ret;
            break;
        }
        rec->data = copy_data(b->bytes + used, rec->data, rec->size);
        used += ((size_t)rec->size + 7) & ~(size_t)7;
        n++;
        /*
         * The reading entered a chunk (noted only for a progress
         * display): the batch ends there, so that the display moves on
         * chunk by chunk, as without the thread.
         */
        if (rd->ahead_moved) {
            break;
        }
    }
    b->n = n;
    b->used = used;
    if (rd->ahead_moved) {
        b->moved = true;
        b->offset = rd->ahead_off;
        rd->ahead_moved = false;
    }
}

static void *ahead_thread(void *arg)
{
    struct reader_ahead *a = arg;
    struct qtrace_reader *rd = a->rd;
    struct ahead_batch *b;

    rd->ahead_noting = true;
    pthread_mutex_lock(&a->lock);
    for (;;) {
        while (!a->stop && a->queued == AHEAD_BATCHES) {
            pthread_cond_wait(&a->cond, &a->lock);
        }
        if (a->stop) {
            break;
        }
        b = &a->b[a->fill];
        pthread_mutex_unlock(&a->lock);

        fill_batch(rd, b);

        pthread_mutex_lock(&a->lock);
        a->fill = (a->fill + 1) % AHEAD_BATCHES;
        a->queued++;
        pthread_cond_broadcast(&a->cond);
        if (b->last) {
            a->ended = true;
            break;
        }
    }
    pthread_mutex_unlock(&a->lock);
    rd->ahead_noting = false;
    return NULL;
}

/* Stop the thread, if one runs, and wait for it; its batches stay. */
void reader_ahead_pause(const struct qtrace_reader *rd)
{
    struct reader_ahead *a = rd->ahead;

    if (!a || !a->running) {
        return;
    }
    pthread_mutex_lock(&a->lock);
    a->stop = true;
    pthread_cond_broadcast(&a->cond);
    pthread_mutex_unlock(&a->lock);
    pthread_join(a->thread, NULL);
    a->running = false;
    a->stop = false;
}

/* The reading starts again elsewhere: forget what was read ahead. */
void reader_ahead_drop(const struct qtrace_reader *rd)
{
    struct reader_ahead *a = rd->ahead;

    if (!a) {
        return;
    }
    reader_ahead_pause(rd);
    a->queued = 0;
    a->cur = NULL;
    a->rd->ahead_cur = a->rd->ahead_end = NULL;
    a->fill = a->take = 0;
    a->ended = false;
}

static void free_batches(struct reader_ahead *a)
{
    unsigned int i;

    for (i = 0; i < AHEAD_BATCHES; i++) {
        free(a->b[i].recs);
        free(a->b[i].bytes);
    }
}

void reader_ahead_free(struct qtrace_reader *rd)
{
    struct reader_ahead *a = rd->ahead;

    if (!a) {
        return;
    }
    reader_ahead_pause(rd);
    free_batches(a);
    pthread_mutex_destroy(&a->lock);
    pthread_cond_destroy(&a->cond);
    free(a);
    rd->ahead = NULL;
}

int qtrace_reader_set_ahead(struct qtrace_reader *rd, bool on)
{
    struct reader_ahead *a = rd->ahead;
    unsigned int i;

    /* Host times need the decoding on the caller's thread (reader-clock.c). */
    if (rd->clk.id) {
        on = false;
    }
    if (!on || a) {
        if (a) {
            reader_ahead_pause(rd);
            a->on = on;
        }
        return 0;
    }
    a = calloc(1, sizeof(*a));
    if (!a) {
        return -ENOMEM;
    }
    for (i = 0; i < AHEAD_BATCHES; i++) {
        a->b[i].recs = malloc(AHEAD_RECORDS * sizeof(*a->b[i].recs));
        a->b[i].bytes = malloc(AHEAD_BYTES);
        if (!a->b[i].recs || !a->b[i].bytes) {
            free_batches(a);
            free(a);
            return -ENOMEM;
        }
    }
    pthread_mutex_init(&a->lock, NULL);
    pthread_cond_init(&a->cond, NULL);
    a->rd = rd;
    a->on = true;
    rd->ahead = a;
    return 0;
}

/* Give the batch the caller took back to the thread. */
static void give_back(struct reader_ahead *a)
{
    a->rd->ahead_cur = a->rd->ahead_end = NULL;
    pthread_mutex_lock(&a->lock);
    a->cur = NULL;
    a->take = (a->take + 1) % AHEAD_BATCHES;
    a->queued--;
    pthread_cond_broadcast(&a->cond);
    pthread_mutex_unlock(&a->lock);
}

/*
 * The next filled batch, held by the caller; the thread is started when
 * none is queued and the reading goes on. NULL when no batch will come:
 * then the caller reads on its own thread.
 */
static struct ahead_batch *take_batch(struct qtrace_reader *rd,
                                      struct reader_ahead *a)
{
    pthread_mutex_lock(&a->lock);
    if (a->queued == 0 && !a->running) {
        if (!a->on || a->ended || rd->state != RD_READING) {
            pthread_mutex_unlock(&a->lock);
            return NULL;
        }
        if (pthread_create(&a->thread, NULL, ahead_thread, a) != 0) {
            a->on = false;      /* no thread to be had: read here */
            pthread_mutex_unlock(&a->lock);
            return NULL;
        }
        a->running = true;
    }
    while (a->queued == 0) {
        pthread_cond_wait(&a->cond, &a->lock);
    }
    a->cur = &a->b[a->take];
    pthread_mutex_unlock(&a->lock);
    rd->ahead_cur = a->cur->recs;
    rd->ahead_end = a->cur->recs + a->cur->n;
    if (a->cur->moved && rd->progress) {
        rd->progress(rd->progress_arg, a->cur->offset, rd->size);
    }
    return a->cur;
}

/* The batch in hand is used up (qtrace_reader_next took its records). */
int reader_ahead_next(struct qtrace_reader *rd, struct qtrace_record *rec,
                      struct qtrace_err *err)
{
    struct reader_ahead *a = rd->ahead;
    struct ahead_batch *b = a->cur;
    int status;

    for (;;) {
        if (b && !b->last) {
            give_back(a);
        } else if (b) {
            /* The end of the reading: the thread has left, join it. */
            status = b->status;
            if (status < 0) {
                qtrace_err_set(err, "%s", b->err.msg);
            }
            give_back(a);
            reader_ahead_pause(rd);
            return status;
        }
        b = take_batch(rd, a);
        if (!b) {
            return reader_next_here(rd, rec, err);
        }
        if (rd->ahead_cur < rd->ahead_end) {
            *rec = *rd->ahead_cur++;
            return 1;
        }
    }
}
