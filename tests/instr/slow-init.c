/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A qtrace-API library whose qtrace_instr_init takes a while ("ms=N",
 * default 500): the host's crash guard is in force meanwhile, while the
 * guest goes on (t995-ctl-instr-guard).
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "qtrace/instrument.h"

QTRACE_INSTR_DECLARE();

int qtrace_instr_init(const struct qtrace_instr_host *host, int argc,
                      const char **argv, char *errmsg)
{
    struct timespec nap = { 0, 0 };
    long ms = 500;
    int i;

    (void)host;
    (void)errmsg;
    for (i = 0; i < argc; i++) {
        if (strncmp(argv[i], "ms=", 3) == 0) {
            ms = strtol(argv[i] + 3, NULL, 10);
        }
    }
    nap.tv_sec = ms / 1000;
    nap.tv_nsec = (ms % 1000) * 1000000L;
    nanosleep(&nap, NULL);
    return 0;
}
