/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Memory-heavy guest, for the exactness of the packed encoding:
 *
 *   memheavy THREADS N   each of THREADS worker threads (0: main does the
 *                        work itself) sorts N records with a merge sort
 *                        through a comparison callback (as qsort does),
 *                        counts their keys in an open-addressing hash
 *                        table, walks the table, and chases a pointer
 *                        cycle through N cells; then main prints one
 *                        checksum per worker, exit 0.
 *
 * The accesses mix the kinds an encoder meets: strided (the walks),
 * through pointers (the merge, the comparisons), random (the hash
 * probes, the chase). A worker touches only memory of its own, makes no
 * system call and calls no malloc (glibc's arenas depend on which thread
 * comes first) between its start and its end, on a stack main allocated
 * before starting any thread, so its stream is the same in every run of
 * the same command up to its return from run. After it, glibc's thread
 * exit counts the threads down in a variable they share: one that loses
 * the race there takes its compare-and-swap loop once more.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define MAX_THREADS 8
#define STACK_BYTES (256u << 10)

struct record {
    uint32_t key;
    uint32_t weight;
};

struct work {
    pthread_t thread;
    unsigned int seed;
    size_t n;
    struct record *recs;
    struct record *tmp;             /* the merge's other half */
    uint32_t *table;                /* 2n slots, power of two */
    size_t *next;                   /* the chase's cycle */
    void *stack;                    /* its own: glibc would reuse the
                                       stack of a thread that ended */
    uint64_t sum;
};

static int by_key(const void *a, const void *b)
{
    const struct record *x = a, *y = b;

    return (x->key > y->key) - (x->key < y->key);
}

typedef int (*cmp_fn)(const void *a, const void *b);

/* Top-down merge sort of a[0..n) through tmp, as qsort would sort. */
static void merge_sort(struct record *a, struct record *tmp, size_t n,
                       cmp_fn cmp)
{
    size_t half = n / 2, i = 0, j = half, k = 0;

    if (n < 2) {
        return;
    }
    merge_sort(a, tmp, half, cmp);
    merge_sort(a + half, tmp, n - half, cmp);
    while (i < half && j < n) {
        tmp[k++] = cmp(&a[i], &a[j]) <= 0 ? a[i++] : a[j++];
    }
    while (i < half) {
        tmp[k++] = a[i++];
    }
    while (j < n) {
        tmp[k++] = a[j++];
    }
    for (k = 0; k < n; k++) {
        a[k] = tmp[k];
    }
}

static uint32_t xorshift(uint32_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 17;
    *s ^= *s << 5;
    return *s;
}

static uint64_t hash_and_walk(struct work *w, size_t slots)
{
    uint64_t sum = 0;
    size_t i, h;

    for (i = 0; i < w->n; i++) {
        uint32_t key = w->recs[i].key | 1;

        for (h = key * 2654435761u & (slots - 1);
             w->table[h] && w->table[h] != key; h = (h + 1) & (slots - 1)) {
        }
        w->table[h] = key;
    }
    for (h = 0; h < slots; h++) {
        sum += w->table[h];
    }
    return sum;
}

static uint64_t chase(struct work *w, uint32_t *s)
{
    size_t i, j, at = 0;
    uint64_t sum = 0;

    for (i = 0; i < w->n; i++) {
        w->next[i] = i;
    }
    /* Sattolo's shuffle: one cycle through every cell. */
    for (i = w->n - 1; i > 0; i--) {
        size_t t;

        j = xorshift(s) % i;
        t = w->next[i];
        w->next[i] = w->next[j];
        w->next[j] = t;
    }
    for (i = 0; i < w->n; i++) {
        at = w->next[at];
        sum += at;
    }
    return sum;
}

static void *run(void *arg)
{
    struct work *w = arg;
    uint32_t s = w->seed;
    size_t i, slots = 2;

    while (slots < 2 * w->n) {
        slots *= 2;
    }
    for (i = 0; i < w->n; i++) {
        w->recs[i].key = xorshift(&s);
        w->recs[i].weight = (uint32_t)i;
    }
    merge_sort(w->recs, w->tmp, w->n, by_key);
    w->sum = w->recs[0].key + w->recs[w->n - 1].key;
    w->sum += hash_and_walk(w, slots);
    w->sum += chase(w, &s);
    return NULL;
}

int main(int argc, char **argv)
{
    struct work works[MAX_THREADS];
    unsigned long threads, i;
    size_t n, slots = 2;

    if (argc != 3) {
        return 2;
    }
    threads = strtoul(argv[1], NULL, 10);
    n = strtoul(argv[2], NULL, 10);
    if (threads > MAX_THREADS || n < 2) {
        return 2;
    }
    while (slots < 2 * n) {
        slots *= 2;
    }
    /* Every allocation before any thread: the same addresses each run. */
    for (i = 0; i < (threads ? threads : 1); i++) {
        works[i].seed = 2463534242u + (unsigned int)i;
        works[i].n = n;
        works[i].recs = malloc(n * sizeof(*works[i].recs));
        works[i].tmp = malloc(n * sizeof(*works[i].tmp));
        works[i].table = calloc(slots, sizeof(*works[i].table));
        works[i].next = malloc(n * sizeof(*works[i].next));
        works[i].stack = aligned_alloc(4096, STACK_BYTES);
        if (!works[i].recs || !works[i].tmp || !works[i].table ||
            !works[i].next || !works[i].stack) {
            return 1;
        }
    }
    if (!threads) {
        run(&works[0]);
    }
    for (i = 0; i < threads; i++) {
        pthread_attr_t attr;

        if (pthread_attr_init(&attr) != 0 ||
            pthread_attr_setstack(&attr, works[i].stack, STACK_BYTES) != 0 ||
            pthread_create(&works[i].thread, &attr, run, &works[i]) != 0) {
            return 1;
        }
        pthread_attr_destroy(&attr);
    }
    for (i = 0; i < threads; i++) {
        pthread_join(works[i].thread, NULL);
    }
    for (i = 0; i < (threads ? threads : 1); i++) {
        printf("%llu\n", (unsigned long long)works[i].sum);
    }
    return 0;
}
