/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * An instrumentation library built for an instrumentation API major the
 * host does not speak: the host must refuse it before calling init.
 */
#include <stdio.h>

#include "qtrace/instrument.h"

__attribute__((visibility("default")))
const uint32_t qtrace_instr_api_version =
    (uint32_t)(QTRACE_INSTR_API_MAJOR + 1) << 16;

int qtrace_instr_init(const struct qtrace_instr_host *h, int argc,
                      const char **argv, char *errmsg)
{
    (void)h;
    (void)argc;
    (void)argv;
    (void)errmsg;
    /* Seen on stderr only if the host wrongly called it. */
    fprintf(stderr, "bad-major: init called\n");
    return 0;
}
