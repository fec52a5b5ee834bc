/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The control commands (see ctl-cmd.h): QEMU's monitor names and output
 * where QEMU has them (info trace-events, trace-event, trace-file), our
 * own otherwise. Control thread only.
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../cli/did-you-mean.h"
#include "../buffer/flush.h"
#include "../buffer/pack.h"
#include "../buffer/vbuf.h"
#include "../core/vcpu.h"
#include "../window/window.h"
#include "ctl-cmd.h"
#include "ctl-line.h"
#include "ctl-switch.h"

static const struct ctl_ops *ops;
static char file_name[4096];        /* the trace file now, "" for none */

typedef void (*ctl_cmd_fn)(struct ctl_reply *r, int argc, char **argv);

struct ctl_cmd {
    const char *name;
    ctl_cmd_fn run;
    const char *help;               /* "ARGS  what it does" */
};

/* Append text, whole or not at all: a reply never ends mid-line. */
static void reply_text(struct ctl_reply *r, const char *text)
{
    size_t n = strlen(text);

    if (r->len + n < sizeof(r->text)) {
        memcpy(r->text + r->len, text, n + 1);
        r->len += n;
    }
}

static void __attribute__((format(printf, 2, 3)))
reply_line(struct ctl_reply *r, const char *fmt, ...)
{
    char line[4200];
    va_list ap;
    size_t n;

    va_start(ap, fmt);
    vsnprintf(line, sizeof(line) - 1, fmt, ap);
    va_end(ap);
    n = strlen(line);
    line[n] = '\n';
    line[n + 1] = '\0';
    reply_text(r, line);
}

static void __attribute__((format(printf, 2, 3)))
reply_error(struct ctl_reply *r, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(r->err, sizeof(r->err), fmt, ap);
    va_end(ap);
}

/* ---- info trace-events, info instr, trace-event ---- */

static void info_trace_events(struct ctl_reply *r, int argc, char **argv)
{
    const char *pattern = argc > 2 ? argv[2] : "*";
    unsigned int id, matched = 0;

    if (argc > 3) {
        reply_error(r, "info trace-events: one pattern at most");
        return;
    }
    for (id = 1; id <= ops->cat->n_events; id++) {
        const char *name = ops->cat->events[id].name;

        if (fnmatch(pattern, name, 0) == 0) {
            reply_line(r, "%s : state %u", name,
                       ops->event_is_on(id) ? 1u : 0u);
            matched++;
        }
    }
    if (!matched) {
        reply_error(r, "%s: no event matches", pattern);
    }
}

/* Every library loaded in this run, unloaded ones too: ids stay. */
static void info_instr(struct ctl_reply *r, int argc)
{
    const char *path, *api, *state;
    unsigned int id;

    if (argc != 2) {
        reply_error(r, "info instr: takes no argument");
        return;
    }
    for (id = 1; ops->instr_info &&
                 ops->instr_info(id, &path, &api, &state) == 0; id++) {
        reply_line(r, "%u %s %s %s", id, state, api, path);
    }
}

static void cmd_info(struct ctl_reply *r, int argc, char **argv)
{
    if (argc >= 2 && strcmp(argv[1], "trace-events") == 0) {
        info_trace_events(r, argc, argv);
    } else if (argc >= 2 && strcmp(argv[1], "instr") == 0) {
        info_instr(r, argc);
    } else {
        reply_error(r, "info: expected 'info trace-events [PATTERN]' or "
                    "'info instr'");
    }
}

static int parse_on_off(const char *word, bool *on)
{
    if (strcmp(word, "on") == 0 || strcmp(word, "off") == 0) {
        *on = word[1] == 'n';
        return 0;
    }
    return -1;
}

/* Why event_set refused an event (docs/control.md, trace-event). */
static const char *refusal(int err)
{
    switch (err) {
    case -ENOTSUP:
        return "is switched at run time only in a trace of blocks "
               "(exec_tb recorded)";
    case -ENOSPC:
        return "cannot be switched again: 256 switches in this run";
    default:
        return "cannot be switched while the guest runs (it shapes the "
               "trace from its start)";
    }
}

static void cmd_trace_event(struct ctl_reply *r, int argc, char **argv)
{
    const char *refused = NULL;
    unsigned int id, matched = 0, n_refused = 0;
    int err = 0, ret;
    bool on;

    if (argc != 3 || parse_on_off(argv[2], &on) < 0) {
        reply_error(r, "trace-event: expected 'trace-event PATTERN on|off'");
        return;
    }
    for (id = 1; id <= ops->cat->n_events; id++) {
        const char *name = ops->cat->events[id].name;

        if (fnmatch(argv[1], name, 0) != 0) {
            continue;
        }
        matched++;
        if (ops->event_is_on(id) != on &&
            (ret = ops->event_set(id, on)) < 0) {
            if (!refused) {
                refused = name;
                err = ret;
            }
            n_refused++;
        }
    }
    if (!matched) {
        reply_error(r, "%s: no event matches", argv[1]);
    } else if (n_refused == 1) {
        reply_error(r, "%s %s", refused, refusal(err));
    } else if (n_refused > 1) {
        reply_error(r, "%s %s (and %u more of the events matched); the "
                    "others were switched", refused, refusal(err),
                    n_refused - 1);
    }
}

/* ---- trace-file, stats: mostly the writer thread's work ---- */

static void queue_request(struct ctl_reply *r, enum writer_req_kind kind)
{
    r->req.kind = kind;
    r->req.path = r->path;
    r->async = true;
}

/* Make every vCPU take its slow path soon, where it follows the state. */
static void ask_all_vcpus(void)
{
    static struct vbuf *vbs[MAX_VCPUS];
    size_t i, n = flush_watched(vbs, MAX_VCPUS);

    for (i = 0; i < n; i++) {
        vbuf_ask_flush(vbs[i]);
    }
}

static void print_file_state(struct ctl_reply *r)
{
    if (!file_name[0]) {
        reply_line(r, "No trace file (out=) is written.");
        return;
    }
    reply_line(r, "Trace file \"%s\" %s.", file_name,
               vbuf_state_is_on() ? "on" : "off");
}

static void cmd_trace_file(struct ctl_reply *r, int argc, char **argv)
{
    bool on;

    if (argc == 1) {
        print_file_state(r);
    } else if (argc == 2 && parse_on_off(argv[1], &on) == 0) {
        if (vbuf_state_is_on() != on) {
            vbuf_state_set(on);
            ask_all_vcpus();
        }
    } else if (argc == 2 && strcmp(argv[1], "flush") == 0) {
        queue_request(r, WRITER_REQ_FLUSH);
    } else if (argc == 3 && strcmp(argv[1], "set") == 0) {
        if (snprintf(r->path, sizeof(r->path), "%s", argv[2]) >=
            (int)sizeof(r->path)) {
            reply_error(r, "trace-file set: path too long");
            return;
        }
        queue_request(r, WRITER_REQ_FILE);
    } else {
        reply_error(r, "trace-file: expected 'trace-file [on|off|flush|set "
                    "FILE]'");
    }
}

/* snapshot [FILE]: ring= only; the writer says so otherwise. */
static void cmd_snapshot(struct ctl_reply *r, int argc, char **argv)
{
    if (argc > 2) {
        reply_error(r, "snapshot: expected 'snapshot [FILE]'");
        return;
    }
    if (argc == 2 && snprintf(r->path, sizeof(r->path), "%s", argv[1]) >=
        (int)sizeof(r->path)) {
        reply_error(r, "snapshot: path too long");
        return;
    }
    queue_request(r, WRITER_REQ_SNAPSHOT);
    if (argc == 1) {
        r->req.path = NULL;
    }
}

static void cmd_stats(struct ctl_reply *r, int argc, char **argv)
{
    (void)argv;
    if (argc != 1) {
        reply_error(r, "stats: takes no argument");
        return;
    }
    r->req.insns = ctl_switch_insns_now();
    queue_request(r, WRITER_REQ_STATS);
}

/* The tracing window (its triggers) and each vCPU's. */
static void cmd_window(struct ctl_reply *r, int argc, char **argv)
{
    char text[sizeof(r->text)];

    (void)argv;
    if (argc != 1) {
        reply_error(r, "window: takes no argument");
        return;
    }
    window_fmt(text, sizeof(text));
    reply_text(r, text);
}

/*
 * The window's triggers, each as if its option were given now:
 * start-at WHEN, stop-at WHEN|none, snapshot-at WHEN|none, stop-after N.
 */
static void cmd_window_trigger(struct ctl_reply *r, int argc, char **argv)
{
    static const struct {
        const char *name;
        int (*set)(const char *value, struct qtrace_err *err);
    } triggers[] = {
        { "start-at", window_ctl_start_at },
        { "stop-at", window_ctl_stop_at },
        { "snapshot-at", window_ctl_snapshot_at },
        { "stop-after", window_ctl_stop_after },
    };
    struct qtrace_err err = { "" };
    size_t i;

    for (i = 0; strcmp(triggers[i].name, argv[0]) != 0; i++) {
    }
    if (argc != 2) {
        reply_error(r, "%s: expected '%s %s'", argv[0], argv[0],
                    i == 3 ? "N" : i == 0 ? "WHEN" : "WHEN|none");
        return;
    }
    if (triggers[i].set(argv[1], &err) < 0) {
        reply_error(r, "%s", err.msg);
        return;
    }
    /* Recording vCPUs take their slow path soon and flush from there. */
    ask_all_vcpus();
}

/* ---- instrumentation libraries ---- */

static void cmd_instr_load(struct ctl_reply *r, int argc, char **argv)
{
    struct qtrace_err err = { "" };
    unsigned int id;

    if (argc < 2) {
        reply_error(r, "instr-load: expected 'instr-load PATH [ARG...]'");
        return;
    }
    if (ops->instr_load(argv[1], argc - 2, argv + 2, &id, &err) < 0) {
        reply_error(r, "instr-load: %s", err.msg);
        return;
    }
    reply_line(r, "id %u", id);
    /* Recording vCPUs take their slow path soon, and flush from there. */
    ask_all_vcpus();
}

/* A vCPU thread, at the quiescent point: the unload is complete. */
static void unload_done(void *ctx)
{
    struct writer_req *req = ctx;

    req->done(req);
}

static void cmd_instr_unload(struct ctl_reply *r, int argc, char **argv)
{
    struct qtrace_err err = { "" };
    unsigned long id;
    char *end;

    if (argc != 2) {
        reply_error(r, "instr-unload: expected 'instr-unload ID'");
        return;
    }
    id = strtoul(argv[1], &end, 10);
    if (!argv[1][0] || *end || argv[1][0] == '-' || id > UINT32_MAX) {
        reply_error(r, "instr-unload: %s: not an id", argv[1]);
        return;
    }
    /* The reply waits for the library's fini (ctl_cmd_finish). */
    r->req.kind = WRITER_REQ_FLUSH;
    r->req.text[0] = '\0';
    r->req.err[0] = '\0';
    if (ops->instr_unload((unsigned int)id, unload_done, &r->req,
                          &err) < 0) {
        reply_error(r, "instr-unload: %s", err.msg);
        return;
    }
    r->async = true;
    r->served_elsewhere = true;
    ask_all_vcpus();
}

static void cmd_help(struct ctl_reply *r, int argc, char **argv);

static const struct ctl_cmd commands[] = {
    { "help", cmd_help, "                        the commands" },
    { "info", cmd_info,
      "trace-events [PATTERN]  events and their state (1: recorded)" },
    { "info", cmd_info,
      "instr                   libraries: id, state, API, path" },
    { "trace-event", cmd_trace_event,
      "PATTERN on|off   record the matching events or not" },
    { "trace-file", cmd_trace_file,
      "[on|off|flush|set FILE]  the trace file: state, writing, "
      "flush, next file" },
    { "stats", cmd_stats, "                       counters: key value lines" },
    { "snapshot", cmd_snapshot,
      "[FILE]               ring=: write the rings, into the trace or a "
      "new trace FILE" },
    { "window", cmd_window,
      "                      the tracing window and each vCPU's state" },
    { "start-at", cmd_window_trigger,
      "N|0xADDR|SYMBOL|marker  every window waits to open at this "
      "trigger (N from now)" },
    { "stop-at", cmd_window_trigger,
      "0xADDR|SYMBOL|marker|none  every window closes at this trigger" },
    { "stop-after", cmd_window_trigger,
      "N                 close every window N instructions from now" },
    { "snapshot-at", cmd_window_trigger,
      "0xADDR|SYMBOL|marker|none  ring=: write the rings at this trigger" },
    { "instr-load", cmd_instr_load,
      "PATH [ARG...]     load an instrumentation library: its id" },
    { "instr-unload", cmd_instr_unload,
      "ID              unload it (after its fini)" },
};

#define N_COMMANDS (sizeof(commands) / sizeof(commands[0]))

static void cmd_help(struct ctl_reply *r, int argc, char **argv)
{
    size_t i;

    (void)argc;
    (void)argv;
    for (i = 0; i < N_COMMANDS; i++) {
        reply_line(r, "%s %s", commands[i].name, commands[i].help);
    }
}

static void unknown_command(struct ctl_reply *r, const char *word)
{
    struct did_you_mean dym;
    const char *best;
    size_t i;

    did_you_mean_init(&dym, word);
    for (i = 0; i < N_COMMANDS; i++) {
        did_you_mean_consider(&dym, commands[i].name);
    }
    best = did_you_mean_result(&dym);
    if (best) {
        reply_error(r, "unknown command '%.64s' (did you mean '%s'?)", word,
                    best);
    } else {
        reply_error(r, "unknown command '%.64s' (try 'help')", word);
    }
}

void ctl_cmd_setup(const struct ctl_ops *o)
{
    ops = o;
    snprintf(file_name, sizeof(file_name), "%s", o->out ? o->out : "");
}

void ctl_cmd_run(char *line, struct ctl_reply *r)
{
    char *words[CTL_MAX_WORDS];
    const char *why = "";
    int n = ctl_line_split(line, words, CTL_MAX_WORDS, &why);
    size_t i;

    r->len = 0;
    r->text[0] = '\0';
    r->err[0] = '\0';
    r->async = false;
    r->served_elsewhere = false;
    if (n < 0) {
        reply_error(r, "%s", why);
        return;
    }
    if (n == 0) {
        reply_error(r, "empty command (try 'help')");
        return;
    }
    for (i = 0; i < N_COMMANDS; i++) {
        if (strcmp(words[0], commands[i].name) == 0) {
            commands[i].run(r, n, words);
            return;
        }
    }
    unknown_command(r, words[0]);
}

void ctl_cmd_finish(struct ctl_reply *r)
{
    r->async = false;
    if (r->req.err[0]) {
        reply_error(r, "%s", r->req.err);
        return;
    }
    if (r->req.kind == WRITER_REQ_FILE) {
        snprintf(file_name, sizeof(file_name), "%s", r->path);
    }
    reply_text(r, r->req.text);
}
