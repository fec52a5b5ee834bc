/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Guest that computes without a system call until it is done:
 *
 *   busy N   N rounds of a 1000-iteration loop (no system call, no new
 *            code after the first round), then the sum on stdout, exit 0.
 */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    volatile unsigned long sum = 0;
    unsigned long n, r;
    int i;

    if (argc != 2) {
        return 2;
    }
    n = strtoul(argv[1], NULL, 10);
    for (r = 0; r < n; r++) {
        for (i = 0; i < 1000; i++) {
            sum += (unsigned long)i ^ r;
        }
    }
    printf("%lu\n", sum);
    return 0;
}
