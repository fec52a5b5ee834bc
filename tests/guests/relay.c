/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Relay guest: threads hand a token round a ring of pipes, so that the
 * order of their work across threads is known, for host-time ordering
 * (timeline=on, qtrace dump --merge):
 *
 *   relay T R   T threads (2 to 16) pass the token R times round the
 *               ring. Thread t reads the token (a number k) from its own
 *               pipe, marks it, runs spin(), then writes k + 1 into
 *               thread (t + 1) % T's pipe; main writes token 0 into
 *               thread 0's pipe, joins the threads, prints
 *               "relay: N hand-overs, ok" (N = T * R) and exits 0.
 *
 * The mark of token k is the system call lseek(-1, MARK_BASE + k,
 * SEEK_CUR) (fd -1: it fails with EBADF and does nothing else), made
 * through syscall() so that its second argument is MARK_BASE + k on
 * every architecture (0x51ec0000 + k).
 *
 * Known by construction:
 *   marks  T * R, of tokens 0 .. T * R - 1, made in that order in time
 *          (mark k + 1 comes after mark k's thread wrote k + 1), mark k
 *          by thread k % T, two marks in a row never by one thread
 *   spin   the spin() of token k runs after mark k and before mark
 *          k + 1 (before the end for the last); no other thread runs
 *          spin() then; each run of spin() is the same SPIN iterations
 *   exit   0
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#define MAX_THREADS 16
#define MARK_BASE 0x51ec0000L
#define SPIN 2000

struct relay {
    pthread_t thread;
    unsigned int index;
    int in;                         /* read end of its own pipe */
    int out;                        /* write end of the next one's */
};

static unsigned long rounds;

/* The volatile keeps the loop: instructions on this vCPU are the point. */
static unsigned long __attribute__((noinline)) spin(unsigned long seed)
{
    volatile unsigned long x = seed;
    unsigned int i;

    for (i = 0; i < SPIN; i++) {
        x = x * 33 + i;
    }
    return x;
}

static void __attribute__((noinline)) mark(unsigned long k)
{
    syscall(SYS_lseek, -1, MARK_BASE + (long)k, SEEK_CUR);
}

static void *relay_run(void *arg)
{
    struct relay *r = arg;
    unsigned long k, i;

    for (i = 0; i < rounds; i++) {
        if (read(r->in, &k, sizeof(k)) != (ssize_t)sizeof(k)) {
            exit(1);
        }
        mark(k);
        spin(k);
        k++;
        if (write(r->out, &k, sizeof(k)) != (ssize_t)sizeof(k)) {
            exit(1);
        }
    }
    return NULL;
}

int main(int argc, char **argv)
{
    struct relay r[MAX_THREADS];
    int fds[MAX_THREADS][2];
    unsigned long n, t, zero = 0;

    if (argc != 3) {
        fprintf(stderr, "usage: relay THREADS ROUNDS\n");
        return 2;
    }
    n = strtoul(argv[1], NULL, 10);
    rounds = strtoul(argv[2], NULL, 10);
    if (n < 2 || n > MAX_THREADS || rounds < 1) {
        fprintf(stderr, "relay: 2 to %d threads, 1 round or more\n",
                MAX_THREADS);
        return 2;
    }
    for (t = 0; t < n; t++) {
        if (pipe(fds[t]) != 0) {
            return 1;
        }
    }
    for (t = 0; t < n; t++) {
        r[t].index = (unsigned int)t;
        r[t].in = fds[t][0];
        r[t].out = fds[(t + 1) % n][1];
        if (pthread_create(&r[t].thread, NULL, relay_run, &r[t]) != 0) {
            return 1;
        }
    }
    if (write(fds[0][1], &zero, sizeof(zero)) != (ssize_t)sizeof(zero)) {
        return 1;
    }
    for (t = 0; t < n; t++) {
        pthread_join(r[t].thread, NULL);
    }
    printf("relay: %lu hand-overs, ok\n", n * rounds);
    return 0;
}
