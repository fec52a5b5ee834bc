/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A qtrace-API library whose qtrace_instr_init crashes (SIGSEGV). */
#include "qtrace/instrument.h"

QTRACE_INSTR_DECLARE();

int qtrace_instr_init(const struct qtrace_instr_host *host, int argc,
                      const char **argv, char *errmsg)
{
    volatile int *volatile nowhere = NULL;

    (void)host;
    (void)argc;
    (void)argv;
    (void)errmsg;
    return *nowhere;
}
