/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Benchmark workload: call heavy. Naive recursive Fibonacci plus a loop
 * over small non-inlined functions called through a pointer, so calls and
 * returns are a large share of the executed blocks. Usage: work-calls [N]
 */
#include <stdio.h>
#include <stdlib.h>

static __attribute__((noinline)) unsigned long fib(unsigned int n)
{
    return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

static __attribute__((noinline)) unsigned long twice(unsigned long x)
{
    return x * 2;
}

static __attribute__((noinline)) unsigned long plus3(unsigned long x)
{
    return x + 3;
}

int main(int argc, char **argv)
{
    unsigned int n = argc > 1 ? (unsigned int)strtoul(argv[1], NULL, 0) : 27;
    unsigned long (*ops[2])(unsigned long) = { twice, plus3 };
    unsigned long acc = fib(n), i;

    for (i = 0; i < 1000000; i++) {
        acc = ops[i & 1](acc) & 0xffffffff;
    }
    printf("work-calls: %lu\n", acc);
    return 0;
}
