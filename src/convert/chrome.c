/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * `qtrace convert --to chrome TRACE OUT.json`: the trace's timelines
 * (timeline.c) as Chrome trace-event JSON, which Perfetto UI and
 * chrome://tracing open: the object form, one thread per vCPU stream of
 * one process, B/E duration events for calls and system calls, i events
 * for the rest. Events are written as the records come, one line each,
 * through a buffered FILE: nothing is held back. Runs in the qtrace
 * command, single-threaded: the FILE is the converter's alone, so it is
 * written without stdio's lock (the _unlocked calls; a lock per
 * character was an eighth of a conversion).
 *
 * Time: ts is in microseconds and the trace's clock is each vCPU's
 * instruction count, written as nanoseconds: ts 12.345 is instruction
 * 12345 of that vCPU; or, in a trace with host clock stamps
 * (timeline=on), the host's time since the trace began, one clock for
 * every vCPU, which otherData.clock says. "displayTimeUnit" comes first
 * in the file (the Perfetto importer only honours it there) and
 * "traceEvents" last (it stops at a top-level key it does not know).
 * Strings are kept to what every importer parses: control characters and
 * bytes that are not UTF-8 become '?'.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "convert.h"
#include "timeline.h"

/* The guest's process in the JSON: there is only one. */
#define CHROME_PID 1

struct conv_chrome {
    FILE *f;
    char *buf;                      /* f's buffer */
    struct timeline *tl;
    bool any_event;                 /* an event was written: comma first */
    const char *out;                /* the file being written */
};

static const char file_head[] = "{\"displayTimeUnit\":\"ns\",";

/* Length of the UTF-8 sequence at s (n bytes left), or 0 if invalid. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
    unsigned char lo = 0x80, hi = 0xbf;
    size_t len, i;

    if (s[0] < 0xc2 || s[0] > 0xf4) {
        return 0;
    }
    len = s[0] < 0xe0 ? 2 : s[0] < 0xf0 ? 3 : 4;
    if (s[0] == 0xe0) {
        lo = 0xa0;                  /* no overlong forms */
    } else if (s[0] == 0xed) {
        hi = 0x9f;                  /* no surrogates */
    } else if (s[0] == 0xf0) {
        lo = 0x90;
    } else if (s[0] == 0xf4) {
        hi = 0x8f;                  /* nothing past U+10FFFF */
    }
    if (n < len || s[1] < lo || s[1] > hi) {
        return 0;
    }
    for (i = 2; i < len; i++) {
        if (s[i] < 0x80 || s[i] > 0xbf) {
            return 0;
        }
    }
    return len;
}

/* s (n bytes) as a JSON string, quotes included. */
static void put_str(FILE *f, const char *str, size_t n)
{
    const unsigned char *s = (const unsigned char *)str;
    size_t i = 0;

    putc_unlocked('"', f);
    while (i < n) {
        unsigned char c = s[i];
        size_t len;

        if (c == '"' || c == '\\') {
            putc_unlocked('\\', f);
            putc_unlocked(c, f);
        } else if (c == '\n') {
            fputs_unlocked("\\n", f);
        } else if (c == '\t') {
            fputs_unlocked("\\t", f);
        } else if (c < 0x20 || c == 0x7f) {
            putc_unlocked('?', f);
        } else if (c < 0x80) {
            putc_unlocked(c, f);
        } else if ((len = utf8_len(s + i, n - i)) > 0) {
            fwrite_unlocked(s + i, 1, len, f);
            i += len;
            continue;
        } else {
            putc_unlocked('?', f);
        }
        i++;
    }
    putc_unlocked('"', f);
}

static void put_cstr(FILE *f, const char *s)
{
    put_str(f, s, strlen(s));
}

/* Instructions or nanoseconds as microseconds: 12345 -> 12.345. */
static void put_ts(FILE *f, uint64_t insns)
{
    fprintf(f, "%" PRIu64 ".%03u", insns / 1000, (unsigned)(insns % 1000));
}

static void put_arg(FILE *f, const struct timeline_arg *a)
{
    size_t i;

    put_cstr(f, a->name);
    putc_unlocked(':', f);
    switch (a->type) {
    case TL_ARG_I64:
        fprintf(f, "%" PRId64, a->i);
        break;
    case TL_ARG_HEX:
        fprintf(f, "\"0x%" PRIx64 "\"", a->u);
        break;
    case TL_ARG_BOOL:
        fputs_unlocked(a->u ? "true" : "false", f);
        break;
    case TL_ARG_STR:
        put_str(f, a->s ? a->s : "", a->len);
        break;
    case TL_ARG_BYTES:
        putc_unlocked('"', f);
        for (i = 0; i < a->len; i++) {
            fprintf(f, "%02x", (unsigned char)a->s[i]);
        }
        putc_unlocked('"', f);
        break;
    default:
        fprintf(f, "%" PRIu64, a->u);
        break;
    }
}

/* The start of an event object, after the comma of the one before. */
static void open_event(struct conv_chrome *c, const char *ph)
{
    fputs_unlocked(c->any_event ? ",\n{\"ph\":\"" : "{\"ph\":\"", c->f);
    fputs_unlocked(ph, c->f);
    fprintf(c->f, "\",\"pid\":%d", CHROME_PID);
    c->any_event = true;
}

static void put_event(struct conv_chrome *c, const char *ph,
                      const struct timeline_event *e)
{
    FILE *f = c->f;
    unsigned int i;

    open_event(c, ph);
    if (e->stream != TIMELINE_GLOBAL) {
        fprintf(f, ",\"tid\":%" PRIu32, e->stream);
    }
    fputs_unlocked(",\"ts\":", f);
    put_ts(f, e->time);
    if (ph[0] == 'i') {
        /* Records of no vCPU belong to the process as a whole. */
        fputs_unlocked(e->stream == TIMELINE_GLOBAL ? ",\"s\":\"p\""
                                                    : ",\"s\":\"t\"", f);
    }
    if (e->cat) {
        fputs_unlocked(",\"cat\":", f);
        put_cstr(f, e->cat);
    }
    if (e->name) {
        fputs_unlocked(",\"name\":", f);
        put_cstr(f, e->name);
    }
    if (e->n_args) {
        fputs_unlocked(",\"args\":{", f);
        for (i = 0; i < e->n_args; i++) {
            if (i) {
                putc_unlocked(',', f);
            }
            put_arg(f, &e->args[i]);
        }
        putc_unlocked('}', f);
    }
    putc_unlocked('}', f);
}

/* A metadata event: name (process_name, ...) and one argument. */
static void put_meta(struct conv_chrome *c, const char *name, uint32_t tid,
                     const char *key, const char *str, long num)
{
    open_event(c, "M");
    if (tid != TIMELINE_GLOBAL) {
        fprintf(c->f, ",\"tid\":%" PRIu32, tid);
    }
    fputs_unlocked(",\"name\":", c->f);
    put_cstr(c->f, name);
    fputs_unlocked(",\"args\":{", c->f);
    put_cstr(c->f, key);
    putc_unlocked(':', c->f);
    if (str) {
        put_cstr(c->f, str);
    } else {
        fprintf(c->f, "%ld", num);
    }
    fputs_unlocked("}}", c->f);
}

static int on_track(void *arg, uint32_t stream, uint32_t vcpu,
                    struct qtrace_err *err)
{
    struct conv_chrome *c = arg;
    char name[64];

    (void)err;
    put_meta(c, "thread_name", stream, "name",
             timeline_track_name(stream, vcpu, name, sizeof(name)), 0);
    put_meta(c, "thread_sort_index", stream, "sort_index", NULL,
             (long)stream);
    return 0;
}

static int on_begin(void *arg, const struct timeline_event *e,
                    struct qtrace_err *err)
{
    (void)err;
    put_event(arg, "B", e);
    return 0;
}

static int on_end(void *arg, const struct timeline_event *e,
                  struct qtrace_err *err)
{
    (void)err;
    put_event(arg, "E", e);
    return 0;
}

static int on_instant(void *arg, const struct timeline_event *e,
                      struct qtrace_err *err)
{
    (void)err;
    put_event(arg, "i", e);
    return 0;
}

static const struct timeline_ops chrome_timeline_ops = {
    on_track, on_begin, on_end, on_instant,
};

static void put_meta_key(const char *key, const char *value, void *arg)
{
    FILE *f = arg;

    putc_unlocked(',', f);
    put_cstr(f, key);
    putc_unlocked(':', f);
    put_cstr(f, value);
}

/*
 * The header: how to read the times, and the trace's META keys as they
 * are (arch, qemu, mode, binary...), which Perfetto lists as metadata.
 */
static void put_head(struct conv_chrome *c, struct qtrace_reader *rd,
                     const char *trace_path)
{
    char name[320];

    fputs_unlocked(file_head, c->f);
    fputs_unlocked("\"otherData\":{\"producer\":"
                   "\"qtrace convert --to chrome\",\"source\":", c->f);
    put_cstr(c->f, trace_path);
    if (timeline_is_host(c->tl)) {
        fputs_unlocked(",\"clock\":\"host time: nanoseconds of the recording "
              "host's CLOCK_MONOTONIC since the trace began, one clock for "
              "every vCPU, each record placed between the stamps of its "
              "vCPU by its instruction count (qtrace docs/format.md, "
              "Timeline)\"", c->f);
    } else {
        fputs_unlocked(",\"clock\":\"guest instructions of each vCPU, counted "
              "from 0 per vCPU, written as nanoseconds (ts 1.000 us = 1000 "
              "instructions)\"", c->f);
    }
    qtrace_reader_meta_each(rd, put_meta_key, c->f);
    fputs_unlocked("},\n\"traceEvents\":[\n", c->f);
    snprintf(name, sizeof(name), "%s %s", timeline_program(c->tl),
             timeline_is_host(c->tl) ? "[host time]" :
             "[1 ns = 1 guest instruction]");
    put_meta(c, "process_name", TIMELINE_GLOBAL, "name", name, 0);
}

static int chrome_begin(struct conv *cv, const char *out,
                        struct qtrace_err *err)
{
    struct conv_chrome *c = cv->priv;
    int e;

    c->out = out;
    c->tl = timeline_new(cv->rd, cv->want, &chrome_timeline_ops, c, err);
    if (!c->tl) {
        return -ENOMEM;
    }
    c->f = fopen(out, "w");
    if (!c->f) {
        e = errno;
        qtrace_err_set(err, "%s: %s", out, strerror(e));
        return -e;
    }
    /* Millions of small writes: a large buffer, fewer system calls. */
    c->buf = malloc(1 << 20);
    if (c->buf) {
        setvbuf(c->f, c->buf, _IOFBF, 1 << 20);
    }
    put_head(c, cv->rd, cv->trace_path);
    return 0;
}

static int chrome_record(struct conv *cv, const struct qtrace_record *rec,
                         struct qtrace_err *err)
{
    struct conv_chrome *c = cv->priv;
    int ret = timeline_record(c->tl, rec, err);

    if (ret == 0 && ferror(c->f)) {
        qtrace_err_set(err, "%s: %s", c->out, strerror(errno ? errno : EIO));
        return -EIO;
    }
    return ret;
}

/* Close the file, saying why it could not be written. */
static int close_out(struct conv_chrome *c, const char *out,
                     struct qtrace_err *err)
{
    bool bad = ferror(c->f) != 0;
    int e = 0;

    if (fclose(c->f) != 0 || bad) {
        e = errno ? errno : EIO;
    }
    c->f = NULL;
    free(c->buf);
    c->buf = NULL;
    if (e) {
        qtrace_err_set(err, "%s: %s", out, strerror(e));
        return -e;
    }
    return 0;
}

static int chrome_end(struct conv *cv, bool complete, struct qtrace_err *err)
{
    struct conv_chrome *c = cv->priv;
    int ret = 0;

    (void)complete;
    if (!c->tl || !c->f) {
        timeline_free(c->tl);
        free(c->buf);
        return c->f ? close_out(c, c->out, err) : 0;
    }
    ret = timeline_finish(c->tl, err);
    fputs_unlocked("\n]}\n", c->f);
    if (ret == 0) {
        ret = timeline_check_shown(c->tl, cv->trace_path, err);
    }
    if (ret == 0) {
        ret = close_out(c, c->out, err);
    } else {
        fclose(c->f);
        c->f = NULL;
        free(c->buf);
        c->buf = NULL;
    }
    timeline_free(c->tl);
    c->tl = NULL;
    return ret;
}

static bool chrome_is_own(const char *out)
{
    char head[sizeof(file_head) - 1];
    FILE *f = fopen(out, "rb");
    size_t n;

    if (!f) {
        return false;
    }
    n = fread(head, 1, sizeof(head), f);
    fclose(f);
    return n == sizeof(head) && memcmp(head, file_head, n) == 0;
}

const struct conv_ops conv_chrome_ops = {
    .name = "chrome",
    .summary = "Chrome trace-event JSON (Perfetto UI, chrome://tracing)",
    .priv_size = sizeof(struct conv_chrome),
    .out_kind = "a Chrome trace-event JSON file written by qtrace",
    .takes_events = true,
    .default_hidden = timeline_default_hidden,
    .is_own = chrome_is_own,
    .begin = chrome_begin,
    .record = chrome_record,
    .end = chrome_end,
};
