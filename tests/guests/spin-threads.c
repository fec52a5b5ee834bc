/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Guest whose threads run the same loop at the same time, for counters
 * that vCPUs share (tb_count on QEMU 7.2: plugin/tbcount.h):
 *
 *   spin-threads T N   T threads (1 to 16) meet at a barrier, then each
 *                      runs the same loop of N iterations, with no system
 *                      call; main joins them and prints "T x N", exit 0.
 *
 * Every thread executes the loop's blocks about N times each, so that
 * the executions of those blocks add up to about T * N.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define MAX_THREADS 16

static pthread_barrier_t start;
static unsigned long n_iter;

static void *spin(void *arg)
{
    volatile unsigned long sum = 0;
    unsigned long i;

    (void)arg;
    pthread_barrier_wait(&start);
    for (i = 0; i < n_iter; i++) {
        sum += i;
    }
    return NULL;
}

int main(int argc, char **argv)
{
    pthread_t t[MAX_THREADS];
    unsigned long n_threads, i;

    if (argc != 3) {
        return 2;
    }
    n_threads = strtoul(argv[1], NULL, 10);
    n_iter = strtoul(argv[2], NULL, 10);
    if (n_threads < 1 || n_threads > MAX_THREADS) {
        return 2;
    }
    pthread_barrier_init(&start, NULL, (unsigned int)n_threads);
    for (i = 0; i < n_threads; i++) {
        if (pthread_create(&t[i], NULL, spin, NULL) != 0) {
            return 1;
        }
    }
    for (i = 0; i < n_threads; i++) {
        pthread_join(t[i], NULL);
    }
    printf("%lu x %lu\n", n_threads, n_iter);
    return 0;
}
