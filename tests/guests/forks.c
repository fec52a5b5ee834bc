/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Guest that forks: the parent sums a range, forks a child that sums
 * another and exits with status 7, waits for it and prints
 * "forks: child 7". Exits 0 when the child's status came back. Checks
 * that a traced process that forks neither hangs nor loses its own trace.
 */
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

static long sum(long n)
{
    volatile long s = 0;
    long i;

    for (i = 0; i < n; i++) {
        s += i;
    }
    return s;
}

int main(void)
{
    int status = 0;
    pid_t pid;

    sum(200000);
    pid = fork();
    if (pid < 0) {
        perror("fork");
        return 1;
    }
    if (pid == 0) {
        sum(200000);
        _exit(7);
    }
    if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status)) {
        return 1;
    }
    printf("forks: child %d\n", WEXITSTATUS(status));
    return WEXITSTATUS(status) == 7 ? 0 : 1;
}
