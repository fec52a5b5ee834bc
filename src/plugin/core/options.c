/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Plugin option table and parsers (see options.h). Each parser checks its
 * value and explains a refusal in a few words; options_parse adds the
 * "key=value: " prefix.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../format/etrace.h"
#include "../../format/zchunk.h"
#include "../sink/backend-list.h"
#include "options.h"
#include "qtrace/trace-control.h"

#define CHUNK_MIN (64u << 10)     /* holds the largest record */
#define CHUNK_MAX (16u << 20)

typedef int (*option_parse_fn)(struct options *opts, const char *value,
                               struct qtrace_err *err);

struct option_desc {
    const char *key;
    option_parse_fn parse;
    const char *help;
};

static int replace_string(char **dst, const char *value,
                          struct qtrace_err *err)
{
    if (!value[0]) {
        qtrace_err_set(err, "empty value");
        return -EINVAL;
    }
    free(*dst);
    *dst = strdup(value);
    return *dst ? 0 : -ENOMEM;
}

static int parse_out(struct options *opts, const char *value,
                     struct qtrace_err *err)
{
    return replace_string(&opts->out, value, err);
}

static int parse_log(struct options *opts, const char *value,
                     struct qtrace_err *err)
{
    return replace_string(&opts->log, value, err);
}

static int parse_uftrace(struct options *opts, const char *value,
                         struct qtrace_err *err)
{
    return replace_string(&opts->uftrace, value, err);
}

static int parse_backend(struct options *opts, const char *value,
                         struct qtrace_err *err)
{
    return backend_list_parse(value, &opts->backends, err);
}

static int parse_backend_file(struct options *opts, const char *value,
                              struct qtrace_err *err)
{
    return replace_string(&opts->backend_file, value, err);
}

static int parse_backend_log(struct options *opts, const char *value,
                             struct qtrace_err *err)
{
    if (strcmp(value, "stderr") == 0) {
        free(opts->backend_log);
        opts->backend_log = NULL;
        return 0;
    }
    return replace_string(&opts->backend_log, value, err);
}

static int parse_status(struct options *opts, const char *value,
                        struct qtrace_err *err)
{
    return replace_string(&opts->status_file, value, err);
}

static int parse_ctl(struct options *opts, const char *value,
                     struct qtrace_err *err)
{
    return replace_string(&opts->ctl, value, err);
}

static int parse_events(struct options *opts, const char *value,
                        struct qtrace_err *err)
{
    opts->events_given = true;
    return evsel_parse(&opts->sel, value, err);
}

static int parse_range(struct options *opts, const char *value,
                       struct qtrace_err *err)
{
    return filter_add_range(&opts->filter, value, err);
}

static int parse_start_at(struct options *opts, const char *value,
                          struct qtrace_err *err)
{
    return window_parse_start(&opts->window, value, err);
}

static int parse_stop_after(struct options *opts, const char *value,
                            struct qtrace_err *err)
{
    return window_parse_stop(&opts->window, value, err);
}

static int parse_stop_at(struct options *opts, const char *value,
                         struct qtrace_err *err)
{
    return window_parse_stop_at(&opts->window, value, err);
}

static int parse_snapshot_at(struct options *opts, const char *value,
                             struct qtrace_err *err)
{
    return window_parse_snapshot_at(&opts->window, value, err);
}

static int parse_ifilter(struct options *opts, const char *value,
                         struct qtrace_err *err)
{
    return filter_add_iprefix(&opts->filter, value, err);
}

static int parse_afilter(struct options *opts, const char *value,
                         struct qtrace_err *err)
{
    return filter_add_addr(&opts->filter, value, err);
}

/* A byte count with an optional k, M or G suffix (powers of 1024). */
static int parse_size(const char *value, size_t min, size_t max,
                      size_t *out, struct qtrace_err *err)
{
    char *end;
    unsigned long long n;
    unsigned int shift = 0;

    errno = 0;
    n = strtoull(value, &end, 0);
    if (value[0] == '-' || end == value || errno) {
        qtrace_err_set(err, "expected a size such as 256k or 4M");
        return -EINVAL;
    }
    switch (*end) {
    case 'k': case 'K': shift = 10; end++; break;
    case 'm': case 'M': shift = 20; end++; break;
    case 'g': case 'G': shift = 30; end++; break;
    default: break;
    }
    if (*end != '\0' || n > (max >> shift) || (n << shift) < min) {
        qtrace_err_set(err, "expected a size from %zu to %zu bytes "
                       "(k, M, G suffixes allowed)", min, max);
        return -EINVAL;
    }
    *out = (size_t)(n << shift);
    return 0;
}

static int parse_chunk(struct options *opts, const char *value,
                       struct qtrace_err *err)
{
    return parse_size(value, CHUNK_MIN, CHUNK_MAX, &opts->chunk_bytes, err);
}

static int parse_buffer(struct options *opts, const char *value,
                        struct qtrace_err *err)
{
    return parse_size(value, 2 * CHUNK_MIN, (size_t)16 << 30,
                      &opts->buffer_bytes, err);
}

/*
 * ring=SIZE: keep the last SIZE bytes of each vCPU's records in memory
 * and write them at a snapshot (docs/cli.md). The minimum, two chunks,
 * is checked once chunk= is known.
 */
static int parse_ring(struct options *opts, const char *value,
                      struct qtrace_err *err)
{
    return parse_size(value, 2 * CHUNK_MIN, (size_t)16 << 30,
                      &opts->ring_bytes, err);
}

static int parse_etrace(struct options *opts, const char *value,
                        struct qtrace_err *err)
{
    return replace_string(&opts->etrace, value, err);
}

static int parse_etrace_flags(struct options *opts, const char *value,
                              struct qtrace_err *err)
{
    return etrace_flags_parse(value, &opts->etrace_flags, err);
}

static int parse_etrace_peer_lost(struct options *opts, const char *value,
                                  struct qtrace_err *err)
{
    if (strcmp(value, "stop") != 0 && strcmp(value, "continue") != 0) {
        qtrace_err_set(err, "expected stop or continue");
        return -EINVAL;
    }
    opts->etrace_stop = strcmp(value, "stop") == 0;
    return 0;
}

/* Whole seconds from min to a day. */
static int parse_seconds(const char *value, int min, int *out,
                         struct qtrace_err *err)
{
    char *end;
    long n;

    errno = 0;
    n = strtol(value, &end, 10);
    if (end == value || *end || errno || n < min || n > 86400) {
        qtrace_err_set(err, "expected seconds from %d to 86400", min);
        return -EINVAL;
    }
    *out = (int)n;
    return 0;
}

static int parse_etrace_wait(struct options *opts, const char *value,
                             struct qtrace_err *err)
{
    return parse_seconds(value, 0, &opts->etrace_wait_s, err);
}

static int parse_etrace_stall(struct options *opts, const char *value,
                              struct qtrace_err *err)
{
    return parse_seconds(value, 1, &opts->etrace_stall_s, err);
}

static int parse_encoding(struct options *opts, const char *value,
                          struct qtrace_err *err)
{
    if (strcmp(value, "packed") == 0) {
        opts->packed = true;
    } else if (strcmp(value, "raw") == 0) {
        opts->packed = false;
    } else {
        qtrace_err_set(err, "expected packed or raw");
        return -EINVAL;
    }
    return 0;
}

/* An on|off option into *flag. */
static int parse_on_off(const char *value, bool *flag,
                        struct qtrace_err *err)
{
    if (strcmp(value, "on") == 0) {
        *flag = true;
    } else if (strcmp(value, "off") == 0) {
        *flag = false;
    } else {
        qtrace_err_set(err, "expected on or off");
        return -EINVAL;
    }
    return 0;
}

static int parse_phys_check(struct options *opts, const char *value,
                            struct qtrace_err *err)
{
    return parse_on_off(value, &opts->phys_check, err);
}

static int parse_lossy(struct options *opts, const char *value,
                       struct qtrace_err *err)
{
    return parse_on_off(value, &opts->lossy, err);
}

static int parse_timeline(struct options *opts, const char *value,
                          struct qtrace_err *err)
{
    return parse_on_off(value, &opts->timeline, err);
}

static int parse_compress(struct options *opts, const char *value,
                          struct qtrace_err *err)
{
    const char *level = value + 5;
    char *end;
    long n;

    if (strcmp(value, "off") == 0) {
        opts->compress = false;
        return 0;
    }
    if (strncmp(value, "zstd", 4) != 0 ||
        (value[4] != '\0' && value[4] != ':')) {
        qtrace_err_set(err, "expected zstd, zstd:LEVEL or off");
        return -EINVAL;
    }
    if (value[4] == ':') {
        errno = 0;
        n = strtol(level, &end, 10);
        if (end == level || *end != '\0' || errno ||
            n < zchunk_min_level() || n > zchunk_max_level()) {
            qtrace_err_set(err, "expected a zstd level from %d to %d",
                           zchunk_min_level(), zchunk_max_level());
            return -EINVAL;
        }
        opts->zstd_level = (int)n;
    }
    opts->compress = true;
    return 0;
}

/*
 * flush=MS: how old the oldest record not yet handed to the sinks may
 * grow; a QEMU killed outright loses at most that much. 0 leaves chunks
 * to fill up, as before the interval existed.
 */
static int parse_flush(struct options *opts, const char *value,
                       struct qtrace_err *err)
{
    char *end;
    long n;

    errno = 0;
    n = strtol(value, &end, 10);
    if (end == value || *end || errno || n < 0 || n > 3600000) {
        qtrace_err_set(err, "expected milliseconds from 0 to 3600000");
        return -EINVAL;
    }
    opts->flush_ms = (uint32_t)n;
    return 0;
}

/* instr=PATH: one more instrumentation library, in load order. */
static int parse_instr(struct options *opts, const char *value,
                       struct qtrace_err *err)
{
    struct instr_spec *grown;

    if (!value[0]) {
        qtrace_err_set(err, "empty value");
        return -EINVAL;
    }
    grown = realloc(opts->instr, (opts->n_instr + 1) * sizeof(*grown));
    if (!grown) {
        return -ENOMEM;
    }
    opts->instr = grown;
    grown[opts->n_instr] = (struct instr_spec){ strdup(value), 0, NULL };
    if (!grown[opts->n_instr].path) {
        return -ENOMEM;
    }
    opts->n_instr++;
    return 0;
}

/* instr-arg=VALUE: one more argument of the last instr= before it. */
static int parse_instr_arg(struct options *opts, const char *value,
                           struct qtrace_err *err)
{
    struct instr_spec *spec;
    char **grown;

    if (!opts->n_instr) {
        qtrace_err_set(err, "no instr= before it (an argument belongs to "
                       "the library named last)");
        return -EINVAL;
    }
    spec = &opts->instr[opts->n_instr - 1];
    /* argv stays NULL-terminated, as a C main's. */
    grown = realloc(spec->argv, (size_t)(spec->argc + 2) * sizeof(*grown));
    if (!grown) {
        return -ENOMEM;
    }
    spec->argv = grown;
    grown[spec->argc] = strdup(value);
    if (!grown[spec->argc]) {
        return -ENOMEM;
    }
    grown[++spec->argc] = NULL;
    return 0;
}

static const struct option_desc option_table[] = {
    { "out", parse_out, "FILE       native trace file (default qtrace.qtr)" },
    { "events", parse_events,
      "PATTERNS   events to record: globs separated by ',' or ';', "
      "-glob disables, @FILE reads patterns from FILE" },
    { "log", parse_log,
      "FILE       execlog-style text log of every instruction (or stderr)" },
    { "uftrace", parse_uftrace,
      "DIR        uftrace data directory of the guest's function calls" },
    { "backend", parse_backend,
      "LIST       also send the selected events to these tracing "
      "backends: log, simple, ftrace, syslog, ust, dtrace (';' between "
      "names)" },
    { "backend-file", parse_backend_file,
      "FILE       the simple backend's file (default trace-PID)" },
    { "backend-log", parse_backend_log,
      "FILE       the log backend's lines (default stderr)" },
    { "status", parse_status,
      "FILE       at exit, write the END chunk's totals there (records, "
      "lost, failed_outputs), even when out= could not be written" },
    { "ctl", parse_ctl,
      "SOCKET     control socket (docs/control.md)" },
    { "range", parse_range,
      "START-END  trace only code in [START, END) (repeatable)" },
    { "start-at", parse_start_at,
      "N|0xADDR|SYMBOL|marker  record each vCPU from the block holding "
      "its instruction N+1 (from 0), from the first block it runs that "
      "holds ADDR or the program's SYMBOL, or from each start marker "
      "(docs/cli.md)" },
    { "stop-at", parse_stop_at,
      "0xADDR|SYMBOL|marker  stop recording each vCPU at the first block "
      "it runs that holds ADDR or SYMBOL, or at each stop marker" },
    { "stop-after", parse_stop_after,
      "N          stop recording each vCPU at the first block starting N "
      "instructions or more after its window opened" },
    { "snapshot-at", parse_snapshot_at,
      "0xADDR|SYMBOL|marker  with ring=: write the rings at each block "
      "holding ADDR or SYMBOL, or at each snapshot marker" },
    { "ifilter", parse_ifilter,
      "PREFIX     instructions whose disassembly starts with PREFIX" },
    { "afilter", parse_afilter, "ADDR       the instruction at ADDR" },
    { "encoding", parse_encoding,
      "packed|raw  packed: blocks through a predictor, short memory "
      "packets (default); raw: one record per event" },
    { "lossy", parse_lossy,
      "on|off     on: when every buffer is full, drop the vCPU's chunk "
      "and record how many records were lost, instead of waiting" },
    { "phys-check", parse_phys_check,
      "on|off     system mode: ask QEMU where every access went, also "
      "where the vCPU's kept translation says, and count at exit where "
      "they differed (a test of that cache; slower)" },
    { "timeline", parse_timeline,
      "on|off     on: stamp each vCPU's chunks and pauses with the host's "
      "clock (the clock event), so that readers put every vCPU on one "
      "timeline (qtrace dump --merge)" },
    { "compress", parse_compress,
      "zstd[:LEVEL]|off  compress the trace file's chunks on the writer "
      "thread (default zstd:1; negative levels are faster)" },
    { "chunk", parse_chunk, "SIZE       per-vCPU buffer (default 1M)" },
    { "flush", parse_flush,
      "MS         write what each vCPU recorded at least every MS "
      "milliseconds (default 200; 0: only full chunks)" },
    { "ring", parse_ring,
      "SIZE       flight recorder: keep only the last SIZE bytes of "
      "records per vCPU (at least two chunks) and write them at exit, "
      "on a crash and at the control socket's snapshot" },
    { "buffer", parse_buffer,
      "SIZE       all buffers together (default 64M); a full buffer "
      "makes the vCPU wait" },
    { "etrace", parse_etrace,
      "PATH       Xilinx etrace to PATH, or unix:PATH for a socket peer" },
    { "etrace-flags", parse_etrace_flags,
      "LIST       none, exec, disas, mem, cpu, gpio, all (default exec)" },
    { "etrace-peer-lost", parse_etrace_peer_lost,
      "continue|stop  a lost socket peer stops etrace only (default) "
      "or QEMU" },
    { "etrace-wait", parse_etrace_wait,
      "SECONDS    wait for a socket peer to connect (default 0: forever)" },
    { "etrace-stall", parse_etrace_stall,
      "SECONDS    drop a socket peer that takes no data this long "
      "(default 10)" },
    { "instr", parse_instr,
      "PATH       load this instrumentation library (repeatable; see "
      "docs/instrument.md)" },
    { "instr-arg", parse_instr_arg,
      "VALUE      an argument of the library named by the last instr= "
      "before it (repeatable)" },
};

void options_init(struct options *opts, const struct qtrace_catalog *cat)
{
    memset(opts, 0, sizeof(*opts));
    evsel_init(&opts->sel, cat);
    filter_init(&opts->filter);
    /*
     * Each full chunk wakes the writer thread; on a virtual machine that
     * wake-up costs tens of microseconds, so chunks are big.
     */
    opts->chunk_bytes = 1u << 20;
    opts->packed = true;
    opts->compress = true;
    opts->zstd_level = 1;
    opts->buffer_bytes = 64u << 20;
    opts->etrace_flags = ETRACE_F_EXEC;
    opts->etrace_stall_s = 10;
    opts->flush_ms = 200;
}

static void free_instr(struct options *opts)
{
    size_t i;
    int k;

    for (i = 0; i < opts->n_instr; i++) {
        for (k = 0; k < opts->instr[i].argc; k++) {
            free(opts->instr[i].argv[k]);
        }
        free(opts->instr[i].argv);
        free(opts->instr[i].path);
    }
    free(opts->instr);
    opts->instr = NULL;
    opts->n_instr = 0;
}

void options_fini(struct options *opts)
{
    free(opts->out);
    free(opts->log);
    free(opts->etrace);
    free(opts->uftrace);
    free(opts->status_file);
    free(opts->ctl);
    free(opts->backend_file);
    free(opts->backend_log);
    opts->backend_file = opts->backend_log = NULL;
    free_instr(opts);
    filter_fini(&opts->filter);
    window_spec_fini(&opts->window);
    opts->out = opts->log = opts->etrace = opts->uftrace = NULL;
}

static const struct option_desc *find_option(const char *key, size_t len)
{
    size_t i;

    for (i = 0; i < sizeof(option_table) / sizeof(option_table[0]); i++) {
        if (strlen(option_table[i].key) == len &&
            strncmp(option_table[i].key, key, len) == 0) {
            return &option_table[i];
        }
    }
    return NULL;
}

/* "out, events, ..." for error messages. */
static const char *option_keys(void)
{
    static char keys[512];
    size_t i, used = 0;

    if (keys[0]) {
        return keys;
    }
    for (i = 0; i < sizeof(option_table) / sizeof(option_table[0]); i++) {
        int n = snprintf(keys + used, sizeof(keys) - used, "%s%s",
                         i ? ", " : "", option_table[i].key);

        if (n < 0 || (size_t)n >= sizeof(keys) - used) {
            break;
        }
        used += (size_t)n;
    }
    return keys;
}

/* Symbolic links followed to a path that does not exist yet, at most. */
#define LINK_DEPTH_MAX 8

/* The target of the symbolic link path, relative to path's directory. */
static char *read_link_target(const char *path)
{
    char target[4096];
    const char *slash = strrchr(path, '/');
    ssize_t n = readlink(path, target, sizeof(target) - 1);
    char *joined;

    if (n < 0) {
        return NULL;
    }
    target[n] = '\0';
    if (target[0] == '/' || !slash) {
        return strdup(target);
    }
    if (asprintf(&joined, "%.*s/%s", (int)(slash - path), path,
                 target) < 0) {
        return NULL;
    }
    return joined;
}

/*
 * The file path names or would create, without "..", "." or symbolic
 * links: an existing path resolved whole; a dangling link followed; a
 * new name as its resolved directory plus its last component. NULL when
 * that directory does not exist either (the open will fail) or memory
 * runs out.
 */
static char *canonical_path(const char *path, int depth)
{
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    char *dir, *resolved, *joined = NULL;
    struct stat st;

    resolved = realpath(path, NULL);
    if (resolved) {
        return resolved;
    }
    if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode) &&
        depth < LINK_DEPTH_MAX) {
        char *target = read_link_target(path);

        resolved = target ? canonical_path(target, depth + 1) : NULL;
        free(target);
        return resolved;
    }
    if (!base[0] || strcmp(base, ".") == 0 || strcmp(base, "..") == 0) {
        return NULL;
    }
    dir = slash ? strndup(path, (size_t)(slash - path + 1)) : strdup(".");
    resolved = dir ? realpath(dir, NULL) : NULL;
    if (resolved && asprintf(&joined, "%s/%s",
                             strcmp(resolved, "/") ? resolved : "",
                             base) < 0) {
        joined = NULL;
    }
    free(dir);
    free(resolved);
    return joined;
}

/*
 * Two outputs on one file would interleave or overwrite each other and
 * leave a file no reader accepts: out=t.qtr,log=t.qtr. Files are the
 * same by name, by device and inode when they exist already, and by
 * where they would be created when they do not (out=./x,log=x;
 * out=d/../x; a directory reached through a symbolic link).
 */
static bool same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    char *ca, *cb;
    bool same;

    if (strcmp(a, b) == 0) {
        return true;
    }
    if (stat(a, &sa) == 0 && stat(b, &sb) == 0) {
        return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
    }
    ca = canonical_path(a, 0);
    cb = canonical_path(b, 0);
    same = ca && cb && strcmp(ca, cb) == 0;
    free(ca);
    free(cb);
    return same;
}

static int check_outputs_distinct(const struct options *opts,
                                  struct qtrace_err *err)
{
    const struct {
        const char *key, *path;
    } outs[] = {
        { "out", opts->out },
        { "log", opts->log && strcmp(opts->log, "stderr") ? opts->log
                                                            : NULL },
        { "uftrace", opts->uftrace },
        { "etrace", opts->etrace && strncmp(opts->etrace, "unix:", 5)
                        ? opts->etrace : NULL },
        { "status", opts->status_file },
        { "ctl", opts->ctl },
        { "backend-file", opts->backend_file },
        { "backend-log", opts->backend_log },
    };
    size_t n = sizeof(outs) / sizeof(outs[0]), i, j;

    for (i = 0; i < n; i++) {
        for (j = i + 1; j < n && outs[i].path; j++) {
            if (outs[j].path && same_file(outs[i].path, outs[j].path)) {
                qtrace_err_set(err, "%s=%s and %s=%s: one file for two "
                               "outputs (each would spoil the other)",
                               outs[i].key, outs[i].path, outs[j].key,
                               outs[j].path);
                return -EINVAL;
            }
        }
    }
    return 0;
}

/* A backend's file without that backend would silently stay empty. */
static int check_backend_outputs(const struct options *opts,
                                 struct qtrace_err *err)
{
    if (opts->backend_file &&
        !(opts->backends & QTRACE_TRACE_BACKEND_SIMPLE)) {
        qtrace_err_set(err, "backend-file=%s: needs backend=simple",
                       opts->backend_file);
        return -EINVAL;
    }
    if (opts->backend_log && !(opts->backends & QTRACE_TRACE_BACKEND_LOG)) {
        qtrace_err_set(err, "backend-log=%s: needs backend=log",
                       opts->backend_log);
        return -EINVAL;
    }
    return 0;
}

int options_parse(struct options *opts, int argc, char **argv,
                  struct qtrace_err *err)
{
    int i;

    for (i = 0; i < argc; i++) {
        const char *arg = argv[i];
        const char *eq = strchr(arg, '=');
        const struct option_desc *desc;
        struct qtrace_err why = { "" };
        int ret;

        if (!eq) {
            qtrace_err_set(err, "%s: expected KEY=VALUE", arg);
            return -EINVAL;
        }
        desc = find_option(arg, (size_t)(eq - arg));
        if (!desc) {
            qtrace_err_set(err, "%s: unknown option (known: %s)", arg,
                           option_keys());
            return -EINVAL;
        }
        ret = desc->parse(opts, eq + 1, &why);
        if (ret < 0) {
            size_t vlen = strlen(eq + 1);

            if (!why.msg[0]) {
                snprintf(why.msg, sizeof(why.msg), "%s", strerror(-ret));
            }
            /* "events=x: x: no event matches" reads better without the echo */
            if (strncmp(why.msg, eq + 1, vlen) == 0 && why.msg[vlen] == ':') {
                qtrace_err_set(err, "%.*s=%s", (int)(eq - arg), arg,
                               why.msg);
            } else {
                qtrace_err_set(err, "%s: %s", arg, why.msg);
            }
            return ret;
        }
    }
    evsel_apply_implications(&opts->sel);
    if (check_backend_outputs(opts, err) < 0 ||
        check_outputs_distinct(opts, err) < 0) {
        return -EINVAL;
    }
    if (opts->ring_bytes && opts->ring_bytes < 2 * opts->chunk_bytes) {
        qtrace_err_set(err, "ring=%zu: must hold at least two chunks of "
                       "%zu bytes (chunk=)", opts->ring_bytes,
                       opts->chunk_bytes);
        return -EINVAL;
    }
    if (opts->chunk_bytes * 2 > opts->buffer_bytes) {
        qtrace_err_set(err, "buffer=%zu: must hold at least two chunks "
                       "of %zu bytes", opts->buffer_bytes, opts->chunk_bytes);
        return -EINVAL;
    }
    return 0;
}

const char *options_help(void)
{
    static char help[4096];
    size_t i, used = 0;

    if (help[0]) {
        return help;
    }
    for (i = 0; i < sizeof(option_table) / sizeof(option_table[0]); i++) {
        int n = snprintf(help + used, sizeof(help) - used, "  %s=%s\n",
                         option_table[i].key, option_table[i].help);

        if (n < 0 || (size_t)n >= sizeof(help) - used) {
            break;
        }
        used += (size_t)n;
    }
    return help;
}
