/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Runtime control of the plugin through a unix stream socket (ctl=PATH,
 * docs/control.md): one thread of its own serves every client, so that
 * no vCPU ever waits for one. What the commands need of the rest of the
 * plugin comes through struct ctl_ops; the writer thread does the work
 * on the trace (writer_request).
 */
#ifndef QTRACE_PLUGIN_CTL_H
#define QTRACE_PLUGIN_CTL_H

#include <stdbool.h>

#include "qtrace/catalog.h"
#include "qtrace/err.h"

struct ctl_ops {
    const struct qtrace_catalog *cat;   /* the plugin's events */
    /* Whether event id is recorded now. */
    bool (*event_is_on)(unsigned int id);
    /*
     * Record event id from now on, or stop: 0, or -EAGAIN when that
     * needs instrumentation the translated code does not have.
     */
    int (*event_set)(unsigned int id, bool on);
    const char *out;                    /* out= at start, NULL: none */
    /*
     * instr-load: load and initialise the library at path with argv (argc
     * strings): 0 and its *id, or -1 with err (one line).
     */
    int (*instr_load)(const char *path, int argc, char **argv,
                      unsigned int *id, struct qtrace_err *err);
    /*
     * instr-unload: stop library id now; done(ctx) is called from another
     * thread once its fini ran and it is closed. 0, or -1 with err.
     */
    int (*instr_unload)(unsigned int id, void (*done)(void *ctx), void *ctx,
                        struct qtrace_err *err);
    /* info instr: library id (1...): 0 and its fields, -1 past the last. */
    int (*instr_info)(unsigned int id, const char **path, const char **api,
                      const char **state);
};

/*
 * Install time: create the socket at path (mode 0600; an existing
 * socket nobody listens on is replaced, anything else refused), link
 * it from the directory docs/control.md names for `qtrace ctl PID`,
 * and start the thread. ops must outlive ctl_stop. Returns 0, or -errno
 * with err naming path and reason.
 */
int ctl_start(const char *path, const struct ctl_ops *ops,
              struct qtrace_err *err);

/*
 * Stop the thread, close every client and remove the socket and its
 * link (not in a forked child, whose parent still serves them). Before
 * writer_stop; a no-op without ctl_start.
 */
void ctl_stop(void);

#endif /* QTRACE_PLUGIN_CTL_H */
