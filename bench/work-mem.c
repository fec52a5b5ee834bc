/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Benchmark workload: memory heavy. Streams over an 8 MiB array (loads
 * and stores of 8 bytes) and does a dependent random walk through it, so
 * most instructions access memory. Usage: work-mem [PASSES]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define WORDS (1u << 20)

int main(int argc, char **argv)
{
    unsigned long passes = argc > 1 ? strtoul(argv[1], NULL, 0) : 4;
    uint64_t *a = malloc(WORDS * sizeof(*a));
    uint64_t sum = 0, idx = 1;
    unsigned long p, i;

    if (!a) {
        return 1;
    }
    for (i = 0; i < WORDS; i++) {
        a[i] = i * 2654435761u;
    }
    for (p = 0; p < passes; p++) {
        for (i = 1; i < WORDS; i++) {
            a[i] += a[i - 1] ^ p;
        }
        for (i = 0; i < WORDS / 4; i++) {
            idx = (a[idx & (WORDS - 1)] + idx) & (WORDS - 1);
            sum += idx;
        }
    }
    printf("work-mem: %llu\n", (unsigned long long)sum);
    free(a);
    return 0;
}
