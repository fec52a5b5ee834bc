/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A sink receives every chunk on the writer thread and turns it into
 * output: the native file, the execlog-style text log, later sockets and
 * foreign formats. One struct sink_ops per kind. A failing sink reports
 * once and stops; it never stops QEMU or the other sinks.
 */
#ifndef QTRACE_PLUGIN_SINK_H
#define QTRACE_PLUGIN_SINK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "qtrace/catalog.h"
#include "qtrace/err.h"
#include "../buffer/vbuf.h"

struct sink;

struct sink_ops {
    const char *kind;           /* "out", "log": the option name */
    /* One chunk: DATA of a vCPU, or the shared translation chunk. */
    int (*chunk)(struct sink *s, const struct chunk *c);
    /*
     * "key=value\n" lines of its own for the END text, written into buf
     * (len bytes) just before every sink closes; NULL: none.
     */
    void (*end)(struct sink *s, char *buf, size_t len);
    /* Flush and close; end holds "key=value\n" totals. */
    int (*close)(struct sink *s, const char *end);
    void (*free)(struct sink *s);
};

struct sink {
    const struct sink_ops *ops;
    char *target;               /* path or "stderr", for messages */
    bool failed;                /* reported once, then ignored */
    uint64_t chunks_lost;       /* chunks not written after a failure */
};

/*
 * Key=value lines about the trace: its META text, or lines learnt later
 * (NULL while there are none yet).
 */
typedef const char *(*sink_meta_fn)(void);

/*
 * Native trace file, created (and checked) now, its header and META
 * chunk written at once so that a QEMU killed at any moment leaves a
 * readable file. What info gives (the user-mode guest binary, known once
 * the guest runs) goes into an INFO chunk just before the first DATA
 * chunk, or at close.
 */
struct sink_file_cfg {
    const char *path;
    sink_meta_fn meta;
    sink_meta_fn info;
    const char *catalog;            /* trace-events text for META */
    bool compress;                  /* zstd DATA chunks */
    int zstd_level;
};

struct sink *sink_file_new(const struct sink_file_cfg *cfg,
                           struct qtrace_err *err);
/* True when s is a native trace file sink. */
bool sink_is_file(const struct sink *s);
/*
 * A new native file at path made like s (same META, catalog and
 * compression), for trace-file set; s is left as it is. Writer thread.
 */
struct sink *sink_file_reopen(const struct sink *s, const char *path,
                              struct qtrace_err *err);
/*
 * execlog-style text; path "stderr" writes to standard error. cat: the
 * catalog the plugin records with (to read packed chunks).
 */
struct sink *sink_log_new(const char *path, const struct qtrace_catalog *cat,
                          struct qtrace_err *err);

/* etrace=: Xilinx etrace to a file or, as "unix:PATH", a socket peer. */
struct sink_etrace_cfg {
    const char *target;             /* PATH or unix:PATH */
    const char *arch;               /* QEMU target name of the guest */
    const struct qtrace_catalog *cat;   /* the plugin's, for packed chunks */
    uint32_t flags;                 /* etrace-flags= (ETRACE_F_*) */
    bool stop_on_loss;              /* etrace-peer-lost=stop */
    int wait_s;                     /* etrace-wait=: 0 waits forever */
    int stall_s;                    /* etrace-stall= */
};
struct sink *sink_etrace_new(const struct sink_etrace_cfg *cfg,
                             struct qtrace_err *err);
/*
 * uftrace data directory (created now) from func_entry/func_exit records;
 * meta gives the guest program and word size at close, when the symbols
 * are written.
 */
struct sink *sink_uftrace_new(const char *dir, sink_meta_fn meta,
                              const struct qtrace_catalog *cat,
                              struct qtrace_err *err);

/*
 * backend=: the selected events (selected[id], by catalog id) sent from
 * the writer thread to the tracing runtime's backends in mask
 * (QTRACE_TRACE_BACKEND_*), started now; an error names the backend that
 * cannot start.
 */
struct sink_backends_cfg {
    unsigned int mask;
    const struct qtrace_catalog *cat;   /* the plugin's */
    const bool *selected;               /* QTRACE_MAX_EVENTS entries */
    const char *simple_path;            /* NULL: trace-PID */
    const char *log_path;               /* NULL: stderr */
};
struct sink *sink_backends_new(const struct sink_backends_cfg *cfg,
                               struct qtrace_err *err);

/* Report a sink failure once, from the writer thread. */
void sink_fail(struct sink *s, const char *why);

#endif /* QTRACE_PLUGIN_SINK_H */
