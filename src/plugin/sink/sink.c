/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What every sink shares: reporting a failure once (see sink.h). */
#include <stdio.h>

#include "sink.h"

void sink_fail(struct sink *s, const char *why)
{
    char line[1024];

    if (s->failed) {
        return;
    }
    s->failed = true;
    /*
     * QEMU's plugin log is invisible without -d plugin, so the message
     * also goes to stderr: a user must learn that the output is short.
     */
    snprintf(line, sizeof(line), "qtrace: %s=%s: %s; tracing to it stopped",
             s->ops->kind, s->target ? s->target : "?", why);
    fprintf(stderr, "%s\n", line);
}
