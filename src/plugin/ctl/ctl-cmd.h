/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The control commands (docs/control.md): one command line in, one reply
 * out. Runs on the control thread; commands that touch the trace queue a
 * request to the writer thread and are finished when it is served.
 */
#ifndef QTRACE_PLUGIN_CTL_CMD_H
#define QTRACE_PLUGIN_CTL_CMD_H

#include <stdbool.h>
#include <stddef.h>

#include "../buffer/writer.h"
#include "ctl.h"

struct ctl_reply {
    char text[8192];            /* lines before the last, "\n" ended */
    size_t len;                 /* bytes in text */
    char err[512];              /* non-empty: the reply is an error */
    bool async;                 /* req was queued: finish when served */
    bool served_elsewhere;      /* async, but req->done comes from the
                                   command's own work, not the writer */
    char path[4096];            /* trace-file set's FILE, for req */
    struct writer_req req;
};

/* Once, before the first command. */
void ctl_cmd_setup(const struct ctl_ops *ops);

/* Run one command line (modified in place) into r. */
void ctl_cmd_run(char *line, struct ctl_reply *r);

/* After r->req was served: its outcome into r. */
void ctl_cmd_finish(struct ctl_reply *r);

#endif /* QTRACE_PLUGIN_CTL_CMD_H */
