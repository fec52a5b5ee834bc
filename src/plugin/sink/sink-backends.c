/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The tracing backends sink (backend=): the plugin's selected events,
 * decoded from the chunks on the writer thread as a reader decodes them,
 * sent to the backends of the tracing runtime (src/trace/, the code
 * libqtrace-trace is built from) under the plugin's own catalog. The vCPU
 * threads never see a backend: they fill their buffers as always.
 *
 * Each backend is one row of out_table: how it starts and how it takes
 * one record. The text backends (log, syslog, ftrace) share the record's
 * "name format-output" line, formatted once; simple writes the arguments
 * in QEMU's simpletrace layout. A backend that cannot take a record
 * counts it; the counts go into the END chunk and on stderr at exit.
 * ust and dtrace fire the tracepoints and SDT probes generated from the
 * plugin's catalog (backend-probes.h; ust's in a module of its own,
 * ust-load.c), which decode a record only when an LTTng session or an
 * attached tracer wants its event. Another backend
 * plugs in as one more row here and its name in backend-list.c.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../trace/simple-format.h"
#include "../../trace/simple-ring.h"
#include "../../trace/trace-int.h"
#include "../backend-probes.h"
#include "qtrace/reader.h"
#include "qtrace/trace-emit.h"
#include "sink-records.h"
#include "sink.h"
#if QTRACE_PLUGIN_HAVE_UST
#include "ust-load.h"
#endif

#define LINE_BYTES 1024             /* the log backend's own cut */

struct sink_backends {
    struct sink base;
    unsigned int mask;              /* QTRACE_TRACE_BACKEND_* running */
    bool text;                      /* some backend takes the text line */
    const struct qtrace_catalog *cat;
    bool selected[QTRACE_MAX_EVENTS];
    struct qtrace_fmt *fmts[QTRACE_MAX_EVENTS];    /* text backends */
    struct sink_records recs;
    uint64_t sent;                  /* records handed to the backends */
    uint64_t simple_dropped;        /* refused by the simple backend */
    size_t simple_unflushed;        /* bytes put in its ring since the
                                       last flush */
};

/*
 * The runtime's view of the catalog. Registered groups stay in its
 * registry for the life of the process, so they are static, not part of
 * a sink that is freed at exit.
 */
static struct trace_event rt_events[QTRACE_MAX_EVENTS];
static uint16_t rt_dstate[QTRACE_MAX_EVENTS];
static struct trace_event_group rt_group = { .name = "qtrace-plugin" };
static bool rt_registered;

/* One backend as the sink drives it. */
struct backend_out {
    unsigned int bit;
    /* Open or start it; 0 or -1 with err set. */
    int (*start)(const struct sink_backends_cfg *cfg,
                 struct qtrace_err *err);
    /* One record; line is "name format-output" when sb->text. */
    void (*emit)(struct sink_backends *sb, const struct qtrace_record *rec,
                 const char *line);
};

static int start_log(const struct sink_backends_cfg *cfg,
                     struct qtrace_err *err)
{
    const char *msg;

    if (!backend_log_set_file(cfg->log_path)) {
        qtrace_err_set(err, "backend-log=%s: %s", cfg->log_path,
                       strerror(errno ? errno : EIO));
        return -1;
    }
    /* QEMU's process, not the writer thread that happens to print. */
    backend_log_set_thread_id((long)getpid());
    /* As for any program of the runtime: QTRACE_MSG=timestamp=off. */
    msg = getenv("QTRACE_MSG");
    if (msg && !trace_msg_parse(msg)) {
        qtrace_err_set(err, "backend=log: QTRACE_MSG=%s: not understood",
                       msg);
        return -1;
    }
    return 0;
}

static void emit_log(struct sink_backends *sb,
                     const struct qtrace_record *rec, const char *line)
{
    (void)sb;
    (void)rec;
    qtrace_trace_log("%s", line);
}

static int start_simple(const struct sink_backends_cfg *cfg,
                        struct qtrace_err *err)
{
    char def[32];
    const char *path = cfg->simple_path;

    if (!path) {
        snprintf(def, sizeof(def), "trace-%ld", (long)getpid());
        path = def;
    }
    if (!backend_simple_start()) {
        qtrace_err_set(err, "backend=simple: cannot start its writer");
        return -1;
    }
    st_set_trace_file(path);
    /* st_set_trace_file() says why on stderr when the file won't open. */
    if (!st_set_trace_file_enabled(true)) {
        qtrace_err_set(err, "backend-file=%s: cannot be written", path);
        return -1;
    }
    return 0;
}

/* Bytes of rec's arguments in simpletrace layout. */
static size_t simple_args_bytes(const struct qtrace_record *rec)
{
    size_t bytes = 0, len;
    unsigned int i;

    for (i = 0; i < rec->ev->n_args; i++) {
        if (rec->ev->args[i].type == QTRACE_ARG_STR) {
            qtrace_record_bytes(rec, i, &len);
            bytes += 4 + (len < ST_STR_MAX ? len : ST_STR_MAX);
        } else {
            bytes += 8;
        }
    }
    return bytes;
}

static bool arg_is_signed(enum qtrace_arg_type t)
{
    return t == QTRACE_ARG_I8 || t == QTRACE_ARG_I16 ||
           t == QTRACE_ARG_I32 || t == QTRACE_ARG_I64;
}

/* A record's bytes in the ring besides its arguments. */
#define ST_RECORD_BYTES (8 + ST_EVENT_HEAD_BYTES)

/*
 * The plugin's writer is the ring's only producer, so it can keep the
 * ring from ever filling: past half of it, the ring is written out (on
 * this thread, which may block; the vCPUs never wait for it unless the
 * chunk pool runs out, as with any slow sink). Lossless, like the
 * plugin's default.
 */
static void make_room(struct sink_backends *sb, size_t bytes)
{
    sb->simple_unflushed += bytes;
    if (sb->simple_unflushed > st_ring.size / 2) {
        st_flush_trace_buffer();
        sb->simple_unflushed = bytes;
    }
}

/*
 * As QEMU's simple backend lays arguments out: a string as u32 length
 * and bytes, anything else as a u64 (signed ones sign-extended). A byte
 * array (tb_trans's code) is a pointer to QEMU's tracetool, so one u64;
 * there is no pointer to give, so it holds the array's length.
 */
static void emit_simple(struct sink_backends *sb,
                        const struct qtrace_record *rec, const char *line)
{
    struct qtrace_st_rec st;
    const struct qtrace_event_desc *ev = rec->ev;
    const uint8_t *bytes;
    unsigned int i;
    size_t len, args;

    (void)line;
    args = simple_args_bytes(rec);
    make_room(sb, ST_RECORD_BYTES + args);
    if (qtrace_st_begin(&st, &rt_events[ev->id - 1], args) < 0) {
        sb->simple_dropped++;
        return;
    }
    for (i = 0; i < ev->n_args; i++) {
        enum qtrace_arg_type t = ev->args[i].type;

        if (t == QTRACE_ARG_STR) {
            bytes = qtrace_record_bytes(rec, i, &len);
            qtrace_st_str(&st, (const char *)bytes,
                          (uint32_t)(len < ST_STR_MAX ? len : ST_STR_MAX));
        } else if (t == QTRACE_ARG_BYTES) {
            qtrace_record_bytes(rec, i, &len);
            qtrace_st_u64(&st, len);
        } else if (arg_is_signed(t)) {
            qtrace_st_u64(&st, (uint64_t)qtrace_record_i64(rec, i));
        } else {
            qtrace_st_u64(&st, qtrace_record_u64(rec, i));
        }
    }
    qtrace_st_end(&st);
}

static int start_ftrace(const struct sink_backends_cfg *cfg,
                        struct qtrace_err *err)
{
    (void)cfg;
    backend_ftrace_start();
    if (!backend_ftrace_ready()) {
        qtrace_err_set(err, "backend=ftrace: no writable trace_marker "
                       "(tracefs)");
        return -1;
    }
    return 0;
}

static void emit_ftrace(struct sink_backends *sb,
                        const struct qtrace_record *rec, const char *line)
{
    (void)sb;
    (void)rec;
    qtrace_trace_ftrace("%s", line);
}

static int start_syslog(const struct sink_backends_cfg *cfg,
                        struct qtrace_err *err)
{
    (void)cfg;
    (void)err;
    backend_syslog_start();
    return 0;
}

static void emit_syslog(struct sink_backends *sb,
                        const struct qtrace_record *rec, const char *line)
{
    (void)sb;
    (void)rec;
    qtrace_trace_syslog("%s", line);
}

/*
 * The tracepoints' module, whose loading registers provider "qtrace"
 * with the session daemon; from then on a session's enable-event
 * switches the tracepoints on.
 */
static int start_ust(const struct sink_backends_cfg *cfg,
                     struct qtrace_err *err)
{
    (void)cfg;
#if QTRACE_PLUGIN_HAVE_UST
    return ust_load(err);
#else
    qtrace_err_set(err, "backend=ust: not in this build");
    return -1;
#endif
}

/* Nothing to start: the probes are notes a tracer finds on its own. */
static int start_dtrace(const struct sink_backends_cfg *cfg,
                        struct qtrace_err *err)
{
    (void)cfg;
    (void)err;
    return 0;
}

static void emit_ust(struct sink_backends *sb,
                     const struct qtrace_record *rec, const char *line)
{
    (void)sb;
    (void)line;
#if QTRACE_PLUGIN_HAVE_UST
    ust_emit(rec);
#else
    (void)rec;
#endif
}

static void emit_dtrace(struct sink_backends *sb,
                        const struct qtrace_record *rec, const char *line)
{
    (void)sb;
    (void)line;
    backend_probes_emit(rec, QTRACE_TRACE_BACKEND_DTRACE);
}

static const struct backend_out out_table[] = {
    { QTRACE_TRACE_BACKEND_LOG, start_log, emit_log },
    { QTRACE_TRACE_BACKEND_SIMPLE, start_simple, emit_simple },
    { QTRACE_TRACE_BACKEND_FTRACE, start_ftrace, emit_ftrace },
    { QTRACE_TRACE_BACKEND_SYSLOG, start_syslog, emit_syslog },
    { QTRACE_TRACE_BACKEND_UST, start_ust, emit_ust },
    { QTRACE_TRACE_BACKEND_DTRACE, start_dtrace, emit_dtrace },
};

#define N_OUTS (sizeof(out_table) / sizeof(out_table[0]))
#define TEXT_BACKENDS (QTRACE_TRACE_BACKEND_LOG | \
                       QTRACE_TRACE_BACKEND_FTRACE | \
                       QTRACE_TRACE_BACKEND_SYSLOG)

/* "name format-output" of rec into line. */
static void format_line(struct sink_backends *sb,
                        const struct qtrace_record *rec, char *line)
{
    int n = snprintf(line, LINE_BYTES, "%s ", rec->ev->name);

    if (n < 0 || n >= LINE_BYTES) {
        return;
    }
    qtrace_fmt_record(sb->fmts[rec->ev->id], rec, line + n,
                      LINE_BYTES - (size_t)n);
}

static int emit_record(void *arg, const struct chunk *c,
                       const struct qtrace_rec *r)
{
    struct sink_backends *sb = arg;
    const struct qtrace_record rec = {
        .ev = qtrace_catalog_get(sb->cat, r->id),
        .data = (const uint8_t *)r, .size = r->size, .vcpu = c->vcpu,
        .stream = c->stream, .time = r->time,
    };
    char line[LINE_BYTES] = "";
    size_t i;

    if (!rec.ev || !sb->selected[r->id]) {
        return 0;
    }
    if (sb->text) {
        format_line(sb, &rec, line);
    }
    for (i = 0; i < N_OUTS; i++) {
        if (sb->mask & out_table[i].bit) {
            out_table[i].emit(sb, &rec, line);
        }
    }
    sb->sent++;
    return 0;
}

static int backends_chunk(struct sink *s, const struct chunk *c)
{
    struct sink_backends *sb = (struct sink_backends *)s;
    char why[160];

    if (sink_records_each(&sb->recs, c, emit_record, sb, why,
                          sizeof(why)) < 0) {
        sink_fail(s, why);
        return -EIO;
    }
    return 0;
}

static void backends_end(struct sink *s, char *buf, size_t len)
{
    struct sink_backends *sb = (struct sink_backends *)s;

    snprintf(buf, len, "backend_records=%" PRIu64 "\n", sb->sent);
    if (sb->mask & QTRACE_TRACE_BACKEND_SIMPLE) {
        size_t used = strlen(buf);

        snprintf(buf + used, len - used,
                 "backend_simple_dropped=%" PRIu64 "\n", sb->simple_dropped);
    }
}

static int backends_close(struct sink *s, const char *end)
{
    struct sink_backends *sb = (struct sink_backends *)s;

    (void)end;
    if (sb->mask & QTRACE_TRACE_BACKEND_SIMPLE) {
        /* Written and closed now: QEMU's exit may skip atexit handlers. */
        st_set_trace_file_enabled(false);
        if (sb->simple_dropped) {
            fprintf(stderr, "qtrace: backend=simple: %" PRIu64 " of %" PRIu64
                    " records dropped (the file has a dropped record for "
                    "them)\n", sb->simple_dropped, sb->sent);
        }
    }
    return 0;
}

static void backends_free(struct sink *s)
{
    struct sink_backends *sb = (struct sink_backends *)s;
    size_t i;

    for (i = 0; i < QTRACE_MAX_EVENTS; i++) {
        qtrace_fmt_free(sb->fmts[i]);
    }
    sink_records_fini(&sb->recs);
    free(s->target);
    free(sb);
}

static const struct sink_ops sink_backends_ops = {
    .kind = "backend",
    .chunk = backends_chunk,
    .end = backends_end,
    .close = backends_close,
    .free = backends_free,
};

/* The catalog as one group of the runtime, every event on for it. */
static void register_catalog(const struct qtrace_catalog *cat,
                             unsigned int mask)
{
    unsigned int id;

    if (rt_registered) {
        return;
    }
    for (id = 1; id <= cat->n_events && id < QTRACE_MAX_EVENTS; id++) {
        rt_dstate[id - 1] = 1;
        rt_events[id - 1] = (struct trace_event){
            .name = cat->events[id].name, .dstate = &rt_dstate[id - 1],
            .sstate = true,
        };
    }
    rt_group.events = rt_events;
    rt_group.n_events = id - 1;
    rt_group.backends = mask;
    trace_event_register_group(&rt_group);
    rt_registered = true;
}

static int start_outs(const struct sink_backends_cfg *cfg,
                      struct qtrace_err *err)
{
    size_t i;

    for (i = 0; i < N_OUTS; i++) {
        if ((cfg->mask & out_table[i].bit) &&
            out_table[i].start(cfg, err) < 0) {
            return -1;
        }
    }
    return 0;
}

/* The selected events, and their formats when a text backend runs. */
static int select_events(struct sink_backends *sb,
                         const struct sink_backends_cfg *cfg)
{
    unsigned int id;

    for (id = 1; id <= sb->cat->n_events && id < QTRACE_MAX_EVENTS; id++) {
        sb->selected[id] = cfg->selected[id];
        if (sb->selected[id] && sb->text) {
            sb->fmts[id] = qtrace_fmt_new(&sb->cat->events[id]);
            if (!sb->fmts[id]) {
                return -ENOMEM;
            }
        }
    }
    return 0;
}

struct sink *sink_backends_new(const struct sink_backends_cfg *cfg,
                               struct qtrace_err *err)
{
    struct sink_backends *sb = calloc(1, sizeof(*sb));

    if (!sb || sink_records_init(&sb->recs, cfg->cat) < 0) {
        qtrace_err_set(err, "backend: %s", strerror(ENOMEM));
        free(sb);
        return NULL;
    }
    sb->base.ops = &sink_backends_ops;
    sb->base.target = strdup("tracing backends");
    sb->cat = cfg->cat;
    sb->mask = cfg->mask;
    sb->text = (cfg->mask & TEXT_BACKENDS) != 0;
    if (select_events(sb, cfg) < 0) {
        qtrace_err_set(err, "backend: %s", strerror(ENOMEM));
        backends_free(&sb->base);
        return NULL;
    }
    register_catalog(cfg->cat, cfg->mask);
    if (start_outs(cfg, err) < 0) {
        backends_free(&sb->base);
        return NULL;
    }
    return &sb->base;
}
