/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A library with the entry points of both APIs: refused, neither init
 * runs (each would print).
 */
#include <stdio.h>

#include "qemu-instr/control.h"
#include "qtrace/instrument.h"

QTRACE_INSTR_DECLARE();

int qtrace_instr_init(const struct qtrace_instr_host *host, int argc,
                      const char **argv, char *errmsg)
{
    (void)host;
    (void)argc;
    (void)argv;
    (void)errmsg;
    fprintf(stderr, "init called\n");
    return 0;
}

void qi_init(int argc, const char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "init called\n");
}
