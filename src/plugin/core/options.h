/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The plugin's key=value options (-plugin libqtrace.so,KEY=VALUE,...),
 * parsed from one table at install time. An unknown key or a bad value
 * fails the load with one line naming it.
 */
#ifndef QTRACE_PLUGIN_OPTIONS_H
#define QTRACE_PLUGIN_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "evsel.h"
#include "filter.h"
#include "../window/window.h"

/* One instr= option and the instr-arg= values that followed it. */
struct instr_spec {
    char *path;
    int argc;
    char **argv;
};

struct options {
    char *out;                  /* out=: native trace path, NULL = none */
    char *log;                  /* log=: execlog-style text, or "stderr" */
    char *uftrace;              /* uftrace=: data directory, NULL = none */
    char *status_file;          /* status=: END totals at exit, or NULL */
    char *ctl;                  /* ctl=: control socket path, or NULL */
    struct evsel sel;           /* events= */
    struct filter filter;       /* range=, ifilter=, afilter= */
    size_t chunk_bytes;         /* chunk=: per-vCPU buffer size */
    size_t buffer_bytes;        /* buffer=: all buffers together */
    bool events_given;          /* events= appeared */
    char *etrace;               /* etrace=: PATH or unix:PATH, NULL = none */
    uint32_t etrace_flags;      /* etrace-flags= (ETRACE_F_*), default exec */
    bool etrace_stop;           /* etrace-peer-lost=stop */
    int etrace_wait_s;          /* etrace-wait=: 0 = forever */
    int etrace_stall_s;         /* etrace-stall= */
    bool packed;                /* encoding=packed (default) or raw */
    bool lossy;                 /* lossy=on: drop chunks, never wait */
    bool phys_check;            /* phys-check=on: ask QEMU every access */
    bool timeline;              /* timeline=on: host clock stamps */
    bool compress;              /* compress=zstd[:LEVEL] (default) or off */
    int zstd_level;             /* its level */
    uint32_t flush_ms;          /* flush=: oldest unwritten record, ms */
    size_t ring_bytes;          /* ring=: per-vCPU flight recorder, 0 off */
    unsigned int backends;      /* backend=: QTRACE_TRACE_BACKEND_* bits */
    char *backend_file;         /* backend-file=: simple's file, or NULL
                                   for trace-PID */
    char *backend_log;          /* backend-log=: log's file, NULL: stderr */
    struct instr_spec *instr;   /* instr=, in order, with their args */
    size_t n_instr;
    struct window_spec window;  /* start-at=, stop-after= */
};

/* Defaults; cat must outlive opts. */
void options_init(struct options *opts, const struct qtrace_catalog *cat);
void options_fini(struct options *opts);

/*
 * Parse argv ("key=value" each). Returns 0, or -EINVAL with err reading
 * "KEY=VALUE: reason".
 */
int options_parse(struct options *opts, int argc, char **argv,
                  struct qtrace_err *err);

/* The option table as help text, one "key=VALUE  what" per line. */
const char *options_help(void);

#endif /* QTRACE_PLUGIN_OPTIONS_H */
