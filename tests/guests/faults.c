/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Guest that takes memory faults all the time: QEMU user mode meets each
 * as a host SIGSEGV in its own handler and delivers the guest's SIGSEGV,
 * which the guest catches and jumps out of.
 *
 *   faults PATH   until PATH exists: a round of work and a read of an
 *                 unmapped address (caught), then "faults N" on stdout
 *                 (N: the faults caught, one per round), exit 0.
 */
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

static sigjmp_buf back;
static volatile unsigned long caught;

static void on_segv(int sig)
{
    (void)sig;
    caught++;
    siglongjmp(back, 1);
}

/* A loop the compiler keeps: volatile sum. */
static void work(void)
{
    volatile unsigned long sum = 0;
    int i;

    for (i = 0; i < 2000; i++) {
        sum += (unsigned long)i * 7;
    }
}

int main(int argc, char **argv)
{
    volatile int *volatile nowhere = (volatile int *)16;
    struct sigaction sa = { .sa_handler = on_segv };
    volatile unsigned long rounds = 0;

    if (argc != 2) {
        return 2;
    }
    sigemptyset(&sa.sa_mask);
    sigaction(SIGSEGV, &sa, NULL);
    while (access(argv[1], F_OK) != 0) {
        work();
        if (sigsetjmp(back, 1) == 0) {
            (void)*nowhere;
        }
        rounds++;
    }
    printf("faults %lu of %lu\n", caught, rounds);
    return 0;
}
