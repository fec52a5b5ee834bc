/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Threaded guest: main starts 4 POSIX threads, each sums its own range of
 * integers into its own slot, and main checks the sums against the closed
 * form, prints one line and exits 0 (1 if a sum is wrong).
 *
 * Known by construction:
 *   vCPU streams  5 in QEMU user mode (main + 4 threads). All 5 meet at a
 *                 barrier before any worker returns, so they are alive at
 *                 the same time and QEMU cannot reuse a vCPU index.
 *   work          worker t adds the integers t*N+1 .. (t+1)*N, N = 10000;
 *                 the sums are 50005000, 150005000, 250005000 and
 *                 350005000, the total 800020000
 *   output        "threads: 4 workers, total 800020000, ok"
 *   exit          0
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

#define NWORKERS 4
#define RANGE 10000u

struct worker {
    pthread_t thread;
    unsigned int index;     /* 0 .. NWORKERS - 1, set by main */
    uint64_t sum;           /* written by the worker, read after join */
};

static pthread_barrier_t all_started;

/*
 * The running sum goes through a volatile so the compiler keeps the loop
 * instead of replacing it by the closed form: the point is to execute
 * instructions on this vCPU.
 */
static uint64_t sum_range(uint64_t first, uint64_t last)
{
    volatile uint64_t sum = 0;
    uint64_t k;

    for (k = first; k <= last; k++) {
        sum += k;
    }
    return sum;
}

static void *worker_run(void *arg)
{
    struct worker *w = arg;
    const uint64_t first = (uint64_t)w->index * RANGE + 1;

    w->sum = sum_range(first, first + RANGE - 1);
    pthread_barrier_wait(&all_started);
    return NULL;
}

static uint64_t expected_sum(unsigned int index)
{
    const uint64_t first = (uint64_t)index * RANGE + 1;
    const uint64_t last = first + RANGE - 1;

    return (first + last) * RANGE / 2;
}

int main(void)
{
    struct worker workers[NWORKERS];
    uint64_t total = 0;
    unsigned int i;
    int ok = 1;

    if (pthread_barrier_init(&all_started, NULL, NWORKERS + 1) != 0) {
        fprintf(stderr, "threads: cannot create the barrier\n");
        return 1;
    }
    for (i = 0; i < NWORKERS; i++) {
        workers[i].index = i;
        workers[i].sum = 0;
        if (pthread_create(&workers[i].thread, NULL, worker_run,
                           &workers[i]) != 0) {
            fprintf(stderr, "threads: cannot start worker %u\n", i);
            return 1;
        }
    }
    pthread_barrier_wait(&all_started);
    for (i = 0; i < NWORKERS; i++) {
        pthread_join(workers[i].thread, NULL);
        if (workers[i].sum != expected_sum(i)) {
            ok = 0;
        }
        total += workers[i].sum;
    }
    pthread_barrier_destroy(&all_started);
    printf("threads: %d workers, total %" PRIu64 ", %s\n", NWORKERS, total,
           ok ? "ok" : "WRONG");
    return ok ? 0 : 1;
}
