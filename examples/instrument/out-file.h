/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the example libraries share: where their totals go, from an
 * "out=FILE" argument (default: standard error).
 */
#ifndef QTRACE_EXAMPLE_OUT_FILE_H
#define QTRACE_EXAMPLE_OUT_FILE_H

#include <stdio.h>
#include <string.h>

/* The file named by an "out=FILE" argument, or stderr; NULL on failure. */
static inline FILE *example_out_open(int argc, const char **argv)
{
    int i;

    for (i = 0; i < argc; i++) {
        if (strncmp(argv[i], "out=", 4) == 0) {
            return fopen(argv[i] + 4, "w");
        }
    }
    return stderr;
}

static inline void example_out_close(FILE *out)
{
    if (out && out != stderr) {
        fclose(out);
    }
}

#endif /* QTRACE_EXAMPLE_OUT_FILE_H */
