/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Guest for coverage tools: built by the test itself, for the host, with
 * gcc --coverage -O0 -g, and run both natively (gcov's counters) and
 * under QEMU user mode (a coverage library's, from the DWARF line table).
 *
 * Known by construction: every line marked RUN executes, every one
 * marked NEVER does not (the branch not taken, the function never
 * called, the loop body whose condition is false from the start); it
 * prints "coverage: 2480" (squares of 0..19: 2470, 9 values above 10,
 * one more for the odd sum) and exits with 0.
 *
 * Laid out so that every line with code has a statement on it: gcov
 * gives a line to a function's header and to a case label, the line
 * table to a closing brace (the epilogue). With the opening brace on the
 * header's line, the closing one after the last statement and labels on
 * their statement's line, both see the same lines.
 */
#include <stdio.h>

static int never_called(int x) { /* NEVER */
    return x * 3; } /* NEVER */

static int square(int x) { /* RUN */
    return x * x; } /* RUN */

static int classify(int x) { /* RUN */
    if (x > 100) { /* RUN */
        return 2; /* NEVER */
    } else if (x > 10) { /* RUN */
        return 1; /* RUN */
    }
    return 0; } /* RUN */

int main(int argc, char **argv) { /* RUN */
    int sum = 0, i; /* RUN */

    (void)argv;
    for (i = 0; i < 20; i++) { /* RUN */
        sum += square(i) + classify(i); /* RUN */
    }
    while (argc > 5) { /* RUN */
        sum += never_called(argc); /* NEVER */
        argc--; /* NEVER */
    }
    switch (sum % 2) { /* RUN */
    case 1: sum++; /* RUN */
        break; /* RUN */
    default: sum--; /* NEVER */
        break; /* NEVER */
    }
    printf("coverage: %d\n", sum); /* RUN */
    return 0; } /* RUN */
