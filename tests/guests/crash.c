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

#define SPIN_ROUNDS 5000

volatile unsigned long crash_sink;  /* keeps the loops from being folded */
int *volatile crash_null;           /* NULL, unknown to the optimiser */

volatile double crash_real = 1e300;

/* Four divisions: QEMU emulates each in a soft-float helper call. */
#define DIV4 crash_real /= 1.0000001; crash_real /= 1.0000001; \
             crash_real /= 1.0000001; crash_real /= 1.0000001

/*
 * Each round is one block made slow by its floating-point divisions: a
 * second of spinning makes a trace small enough to dump quickly.
 */
__attribute__((noinline)) void crash_spin(unsigned long rounds)
{
    unsigned long i;

    for (i = 0; rounds == 0 || i < rounds; i++) {
        DIV4; DIV4; DIV4; DIV4; DIV4; DIV4; DIV4; DIV4;
        DIV4; DIV4; DIV4; DIV4; DIV4; DIV4; DIV4; DIV4;
        crash_sink += i;
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
