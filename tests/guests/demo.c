/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Guest for `make demo`: a short program with something to look at in a
 * trace: a few small functions, a recursive one, a sort, a checksum, and
 * two system calls made directly (uname, write). Runs in a few
 * milliseconds under QEMU and exits 0.
 *
 * Output is the same on every architecture except the machine name that
 * uname reports (QEMU user mode gives the guest's, e.g. aarch64).
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#define NVALUES 12

/* A fixed linear congruential generator, so every run sorts the same. */
static uint32_t next_random(uint32_t *state)
{
    *state = *state * 1103515245u + 12345u;
    return (*state >> 16) % 1000u;
}

static void fill_values(uint32_t *values, size_t n, uint32_t seed)
{
    size_t i;

    for (i = 0; i < n; i++) {
        values[i] = next_random(&seed);
    }
}

/* Insertion sort: short, and its loads and stores are easy to follow. */
static void sort_values(uint32_t *values, size_t n)
{
    size_t i;
    size_t j;

    for (i = 1; i < n; i++) {
        const uint32_t v = values[i];

        for (j = i; j > 0 && values[j - 1] > v; j--) {
            values[j] = values[j - 1];
        }
        values[j] = v;
    }
}

/* FNV-1a over the values' bytes, least significant byte first. */
static uint32_t checksum_values(const uint32_t *values, size_t n)
{
    uint32_t hash = 2166136261u;
    size_t i;
    unsigned int shift;

    for (i = 0; i < n; i++) {
        for (shift = 0; shift < 32; shift += 8) {
            hash ^= (values[i] >> shift) & 0xffu;
            hash *= 16777619u;
        }
    }
    return hash;
}

/* Deliberately recursive, to give call tracing a tree to show. */
static uint32_t fib(uint32_t n)
{
    return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

static void print_values(const char *label, const uint32_t *values, size_t n)
{
    size_t i;

    printf("%-8s", label);
    for (i = 0; i < n; i++) {
        printf(" %3" PRIu32, values[i]);
    }
    printf("\n");
}

int main(void)
{
    static const char bye[] = "demo: done\n";
    uint32_t values[NVALUES];
    struct utsname uts;

    if (uname(&uts) != 0) {
        strcpy(uts.machine, "unknown");
    }
    printf("demo: qtrace demo guest on %s\n", uts.machine);

    fill_values(values, NVALUES, 2024u);
    print_values("input:", values, NVALUES);
    sort_values(values, NVALUES);
    print_values("sorted:", values, NVALUES);
    printf("checksum: 0x%08" PRIx32 "\n", checksum_values(values, NVALUES));
    printf("fib(15): %" PRIu32 "\n", fib(15));

    /* Flush stdio first so the raw write comes out last. */
    fflush(stdout);
    if (write(STDOUT_FILENO, bye, sizeof(bye) - 1) < 0) {
        return 1;
    }
    return 0;
}
