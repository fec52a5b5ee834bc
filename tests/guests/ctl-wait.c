/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Guest for the control socket tests: it runs until the test says so.
 *
 *   ctl-wait fifo PATH   deterministic: ROUNDS rounds of work (a loop of
 *                        LOOP iterations, then getppid), "ready" on
 *                        stdout, one read of the fifo PATH (it blocks
 *                        until the test writes to it), the same ROUNDS
 *                        rounds again, exit 0. Known by construction:
 *                        2 * ROUNDS getppid calls, one read of PATH.
 *   ctl-wait spin PATH   rounds of work until PATH exists (checked with
 *                        access after each round, then a 10 ms sleep so
 *                        that traces stay small), then exit 0.
 */
#include <fcntl.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define ROUNDS 50
#define LOOP 20000

/* A loop the compiler keeps: volatile sum. */
static void work(void)
{
    volatile unsigned long sum = 0;
    int i;

    for (i = 0; i < LOOP; i++) {
        sum += (unsigned long)i * 7;
    }
}

static void rounds(int n)
{
    int i;

    for (i = 0; i < n; i++) {
        work();
        syscall(SYS_getppid);
    }
}

static int run_fifo(const char *path)
{
    char buf[64];
    int fd;

    rounds(ROUNDS);
    if (write(1, "ready\n", 6) != 6) {
        return 1;
    }
    fd = open(path, O_RDONLY);
    if (fd < 0 || read(fd, buf, sizeof(buf)) < 0) {
        return 1;
    }
    close(fd);
    rounds(ROUNDS);
    return 0;
}

static int run_spin(const char *path)
{
    const struct timespec pause = { 0, 10 * 1000 * 1000 };

    while (access(path, F_OK) != 0) {
        rounds(1);
        nanosleep(&pause, NULL);
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "fifo") == 0) {
        return run_fifo(argv[2]);
    }
    if (argc == 3 && strcmp(argv[1], "spin") == 0) {
        return run_spin(argv[2]);
    }
    return 2;
}
