/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Guest that ends badly on purpose, after a while of ordinary work. Known
 * by construction:
 *
 *   crash segv   spins for SPIN_ROUNDS rounds, calls crash_marker(), then
 *                crash_store() stores through a NULL pointer: the last
 *                block executed is in crash_store (SIGSEGV, status 139)
 *   crash abort  the same, but crash_store() is not reached: abort()
 *                after crash_marker() (SIGABRT, status 134)
 *   crash spin   spins in crash_spin() until it is killed
 *
 * The functions are not inlined, so that their addresses in the symbol
 * table (nm) bound the blocks a trace says ran in them.
 */
#include <stdlib.h>
#include <string.h>

#define SPIN_ROUNDS 100000

volatile unsigned long crash_sink;  /* keeps the loops from being folded */
int *volatile crash_null;           /* NULL, unknown to the optimiser */

/*
 * A round is one long block (64 volatile updates, a few hundred
 * instructions): QEMU then runs a few million blocks a second rather than
 * hundreds of millions, so a trace of a killed spin stays small enough
 * for a test to read whole.
 */
#define SINK1(i, k) (crash_sink += (i) ^ (k))
#define SINK8(i, k) (SINK1(i, k), SINK1(i, k + 1), SINK1(i, k + 2), \
                     SINK1(i, k + 3), SINK1(i, k + 4), SINK1(i, k + 5), \
                     SINK1(i, k + 6), SINK1(i, k + 7))
#define SINK64(i) (SINK8(i, 0), SINK8(i, 8), SINK8(i, 16), SINK8(i, 24), \
                   SINK8(i, 32), SINK8(i, 40), SINK8(i, 48), SINK8(i, 56))

__attribute__((noinline)) void crash_spin(unsigned long rounds)
{
    unsigned long i;

    for (i = 0; rounds == 0 || i < rounds; i++) {
        SINK64(i);
    }
}

__attribute__((noinline)) void crash_marker(void)
{
    crash_sink ^= 0x5a5a;
}

__attribute__((noinline)) void crash_store(void)
{
    *crash_null = 42;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "segv";

    if (strcmp(mode, "spin") == 0) {
        crash_spin(0);
    }
    crash_spin(SPIN_ROUNDS);
    crash_marker();
    if (strcmp(mode, "abort") == 0) {
        abort();
    }
    crash_store();
    return 0;
}
