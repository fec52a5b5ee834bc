/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Benchmark workload: short blocks, CPU bound. A branchy integer state
 * machine whose blocks hold a handful of instructions each, so the
 * per-block cost of a tracer dominates. Prints a checksum so the work
 * cannot be optimised away. Usage: work-blocks [ITERATIONS]
 */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 0) : 20000000;
    unsigned long x = 12345, sum = 0, i;

    for (i = 0; i < n; i++) {
        x = x * 6364136223846793005ul + 1442695040888963407ul;
        switch ((x >> 60) & 3) {
        case 0:
            sum += x >> 3;
            break;
        case 1:
            sum ^= x;
            break;
        case 2:
            sum -= x >> 7;
            break;
        default:
            sum += i;
            break;
        }
        if (sum & 1) {
            sum >>= 1;
        }
    }
    printf("work-blocks: %lu\n", sum);
    return 0;
}
