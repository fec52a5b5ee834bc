/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Guest with qtrace's marker instructions (include/qtrace/marker.h), for
 * start-at=marker, stop-at=marker and snapshot-at=marker:
 *
 *   markers N   N rounds of: 300 iterations of a loop outside any
 *               window, a start marker, 100 iterations of a loop that
 *               loads and stores, a stop marker; then a snapshot marker
 *               and 20 x 300 more iterations (more than a small ring
 *               holds); the sum on stdout, exit 0.
 *
 * By construction: N start markers and N stop markers executed, in
 * that order, one snapshot marker; the loads and stores of the inner
 * loop (100 x N of each) lie between a start and a stop marker, the
 * outer loop's outside. No system call between the first start marker
 * and the snapshot marker.
 */
#include <stdio.h>
#include <stdlib.h>

#include "qtrace/marker.h"

static volatile unsigned long table[64];

static unsigned long __attribute__((noinline)) outside(unsigned long x)
{
    unsigned long i;

    for (i = 0; i < 300; i++) {
        x = x * 31 + i;
    }
    return x;
}

static unsigned long __attribute__((noinline)) inside(unsigned long r)
{
    unsigned long i, sum = 0;

    for (i = 0; i < 100; i++) {
        table[i % 64] = table[(i + r) % 64] + i;
        sum += table[i % 64];
    }
    return sum;
}

int main(int argc, char **argv)
{
    unsigned long n, r, sum = 0, tail = 0;

    if (argc != 2) {
        return 2;
    }
    n = strtoul(argv[1], NULL, 10);
    for (r = 0; r < n; r++) {
        sum += outside(r);
        qtrace_marker_start();
        sum += inside(r);
        qtrace_marker_stop();
    }
    qtrace_marker_snapshot();
    for (r = 0; r < 20; r++) {
        tail += outside(sum + r) & 0xff;
    }
    sum += tail;
    printf("%lu\n", sum);
    return 0;
}
