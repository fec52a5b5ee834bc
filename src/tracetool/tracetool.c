/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * qtrace-tracetool: trace-events (QEMU's syntax) to C. With --backends and
 * --format it writes a program's trace.h or trace.c for libqtrace-trace,
 * as QEMU's scripts/tracetool.py does; with three file names it writes
 * the plugin's record structs and catalog (the project's own build).
 * The ust backend adds an LTTng provider header (--format=ust-events-h),
 * the dtrace backend QEMU's .d and .stp files (--format=d, stap).
 * --plugin reads qtrace's own catalog for the plugin's ust and dtrace
 * probes (--format=plugin-c, gen-plugin.c). --instr=LIB writes an
 * instrumentation library's header for its own events (gen-instr.c).
 * Options and errors here, the outputs in gen-*.c.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmt-check.h"
#include "gen.h"
#include "qtrace/catalog.h"
#include "qtrace/trace-control.h"

#define TT_NAME "qtrace-tracetool"

#define TT_MAX_INPUT (16u << 20)    /* a catalog is a few KiB; refuse junk */

/* Read a whole file into a NUL-terminated buffer. */
static char *tt_read_file(const char *path, const char **why)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    size_t len = 0;
    size_t cap = 0;
    size_t n;

    if (!f) {
        *why = strerror(errno);
        return NULL;
    }
    for (;;) {
        if (len + 4096 + 1 > cap) {
            char *nbuf;

            cap = cap ? cap * 2 : 16384;
            if (cap > TT_MAX_INPUT) {
                *why = "file too large";
                goto fail;
            }
            nbuf = realloc(buf, cap);
            if (!nbuf) {
                *why = strerror(ENOMEM);
                goto fail;
            }
            buf = nbuf;
        }
        n = fread(buf + len, 1, cap - len - 1, f);
        len += n;
        if (n == 0) {
            break;
        }
    }
    if (ferror(f)) {
        *why = strerror(EIO);
        goto fail;
    }
    if (memchr(buf, '\0', len)) {
        *why = "file contains a NUL byte";
        goto fail;
    }
    buf[len] = '\0';
    fclose(f);
    return buf;

fail:
    free(buf);
    fclose(f);
    return NULL;
}

static const char *tt_basename(const char *path)
{
    const char *slash = strrchr(path, '/');

    return slash ? slash + 1 : path;
}

/* One generated file: what to write and where. */
struct tt_output {
    const char *path;
    const struct qtrace_catalog *cat;
    const char *src;                /* trace-events name for comments */
    const char *format;             /* records-h, records-c, h, c,
                                       ust-events-h, d, stap */
    const char *h_name;             /* header the .c includes; instr-h:
                                       the library's name */
    const struct gen_program *gp;   /* h and c only */
};

static void tt_generate(FILE *f, const struct tt_output *o)
{
    if (strcmp(o->format, "records-h") == 0) {
        gen_records_h(f, o->cat, o->src);
    } else if (strcmp(o->format, "records-c") == 0) {
        gen_records_c(f, o->cat, o->src, o->h_name);
    } else if (strcmp(o->format, "h") == 0) {
        gen_program_h(f, o->cat, o->gp);
    } else if (strcmp(o->format, "ust-events-h") == 0) {
        gen_ust_events_h(f, o->cat, o->gp);
    } else if (strcmp(o->format, "d") == 0) {
        gen_dtrace_d(f, o->cat, o->gp);
    } else if (strcmp(o->format, "stap") == 0) {
        gen_dtrace_stap(f, o->cat, o->gp);
    } else if (strcmp(o->format, "plugin-c") == 0) {
        gen_plugin_c(f, o->cat, o->gp);
    } else if (strcmp(o->format, "instr-h") == 0) {
        gen_instr_h(f, o->cat, o->h_name, o->src);
    } else {
        gen_program_c(f, o->cat, o->gp);
    }
}

/*
 * Write through "<path>.tmp" and rename, so a failed run never leaves a
 * half-written file that a later build would take for up to date.
 */
static int tt_write_file(const struct tt_output *o)
{
    size_t n = strlen(o->path) + 5;
    char *tmp = malloc(n);
    FILE *f;
    int ok;

    if (!tmp) {
        fprintf(stderr, TT_NAME ": %s: %s\n", o->path, strerror(ENOMEM));
        return -1;
    }
    snprintf(tmp, n, "%s.tmp", o->path);
    f = fopen(tmp, "w");
    if (!f) {
        fprintf(stderr, TT_NAME ": %s: %s\n", tmp, strerror(errno));
        free(tmp);
        return -1;
    }
    tt_generate(f, o);
    ok = !ferror(f);
    ok = (fclose(f) == 0) && ok;
    if (!ok || rename(tmp, o->path) < 0) {
        fprintf(stderr, TT_NAME ": %s: %s\n", o->path, strerror(errno));
        remove(tmp);
        free(tmp);
        return -1;
    }
    free(tmp);
    return 0;
}

/* Backends by name. */
static const struct {
    const char *name;
    unsigned int bit;
} tt_backends[] = {
    { "nop", QTRACE_TRACE_BACKEND_NOP },
    { "log", QTRACE_TRACE_BACKEND_LOG },
    { "simple", QTRACE_TRACE_BACKEND_SIMPLE },
    { "ftrace", QTRACE_TRACE_BACKEND_FTRACE },
    { "syslog", QTRACE_TRACE_BACKEND_SYSLOG },
    { "ust", QTRACE_TRACE_BACKEND_UST },
    { "dtrace", QTRACE_TRACE_BACKEND_DTRACE },
};

/* Parse "log,simple" into a backend mask; prints and returns -1 if bad. */
static int tt_parse_backends(const char *list, unsigned int *mask)
{
    const char *p = list;

    *mask = 0;
    while (*p) {
        size_t n = strcspn(p, ",");
        size_t i;
        bool found = false;

        for (i = 0; i < sizeof(tt_backends) / sizeof(tt_backends[0]); i++) {
            if (strlen(tt_backends[i].name) == n &&
                strncmp(tt_backends[i].name, p, n) == 0) {
                found = true;
                break;
            }
        }
        if (!found) {
            fprintf(stderr, TT_NAME ": --backends=%s: unknown backend "
                    "'%.*s' (known: nop, log, simple, ftrace, syslog, ust, "
                    "dtrace)\n", list, (int)n, p);
            return -1;
        }
        *mask |= tt_backends[i].bit;
        p += n + (p[n] == ',');
    }
    if (!*mask) {
        fprintf(stderr, TT_NAME ": --backends=%s: no backend\n", list);
        return -1;
    }
    return 0;
}

static bool tt_is_ident(const char *s)
{
    size_t i;

    if (!s[0] || (s[0] >= '0' && s[0] <= '9')) {
        return false;
    }
    for (i = 0; s[i]; i++) {
        if (!(s[i] == '_' || (s[i] >= 'a' && s[i] <= 'z') ||
              (s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= '0' && s[i] <= '9'))) {
            return false;
        }
    }
    return true;
}

/* Read and parse path, then check every format; prints on failure. */
static int tt_load(const char *path, enum fmt_check_mode mode,
                   struct qtrace_catalog *cat)
{
    struct qtrace_err err;
    const char *why = NULL;
    char *text = tt_read_file(path, &why);
    unsigned int i;
    int ret;

    if (!text) {
        fprintf(stderr, TT_NAME ": %s: %s\n", path, why);
        return -1;
    }
    ret = qtrace_catalog_parse(cat, text, &err);
    free(text);
    if (ret < 0) {
        fprintf(stderr, TT_NAME ": %s:%s\n", path, err.msg);
        return -1;
    }
    for (i = 1; i <= cat->n_events; i++) {
        if (strchr(cat->events[i].name, ':')) {
            /* LIB:EVENT is what a trace's catalog makes of --instr. */
            fprintf(stderr, TT_NAME ": %s:%u:1: %s: ':' is for a library's "
                    "events in a trace; name the event alone and the "
                    "library with --instr=LIB\n", path,
                    cat->events[i].line, cat->events[i].name);
            qtrace_catalog_fini(cat);
            return -1;
        }
        if (fmt_check_event(&cat->events[i], mode, &err) < 0) {
            fprintf(stderr, TT_NAME ": %s:%s\n", path, err.msg);
            qtrace_catalog_fini(cat);
            return -1;
        }
    }
    return 0;
}

/* The project's own build: TRACE_EVENTS OUT_H OUT_C, the plugin's C. */
static int tt_main_records(char **argv)
{
    struct qtrace_catalog cat;
    struct tt_output o = { 0 };
    int ret;

    if (tt_load(argv[0], FMT_CHECK_RECORDS, &cat) < 0) {
        return 1;
    }
    o.cat = &cat;
    o.src = tt_basename(argv[0]);
    o.path = argv[1];
    o.format = "records-h";
    ret = tt_write_file(&o);
    if (ret == 0) {
        o.path = argv[2];
        o.format = "records-c";
        o.h_name = tt_basename(argv[1]);
        ret = tt_write_file(&o);
    }
    qtrace_catalog_fini(&cat);
    return ret == 0 ? 0 : 1;
}

/* "trace.c" -> "trace.h", the header the generated .c includes. */
static void tt_header_of(const char *out, char *buf, size_t size)
{
    size_t n;

    snprintf(buf, size, "%s", tt_basename(out));
    n = strlen(buf);
    if (n >= 2 && strcmp(buf + n - 2, ".c") == 0) {
        buf[n - 1] = 'h';
    } else {
        snprintf(buf, size, "trace.h");
    }
}

struct tt_opts {
    const char *backends;           /* --backends=LIST */
    const char *format;             /* --format=h|c|d|stap */
    const char *group;              /* --group=NAME, default "all" */
    const char *binary;             /* --binary=PATH (stap only) */
    const char *header;             /* --header=NAME, the .c's include */
    const char *target_type;        /* --target-type (stap prefix) */
    const char *target_name;        /* --target-name (stap prefix) */
    const char *probe_prefix;       /* --probe-prefix (stap) */
    const char *instr;              /* --instr=LIB: a library's events */
    bool plugin;                    /* --plugin: qtrace's own catalog */
};

static int tt_usage(void)
{
    fputs("usage: " TT_NAME " --backends=LIST "
          "--format=h|c|ust-events-h|d|stap [--group=NAME]\n"
          "                        [--binary=PATH] [--probe-prefix=PREFIX] "
          "[--header=NAME]\n"
          "                        [--plugin [--format=plugin-c]]\n"
          "                        TRACE_EVENTS OUT\n"
          "       " TT_NAME " --instr=LIB TRACE_EVENTS OUT_H   "
          "(an instrumentation\n"
          "                        library's own events)\n"
          "       " TT_NAME " TRACE_EVENTS OUT_H OUT_C   "
          "(qtrace's own record catalog)\n"
          "backends: nop, log, simple, ftrace, syslog, ust, dtrace\n",
          stderr);
    return 2;
}

/* "--key=value" or "--key value"; advances *i past what it used. */
static const char *tt_opt_value(int argc, char **argv, int *i,
                                const char *key)
{
    size_t n = strlen(key);

    if (strncmp(argv[*i], key, n) != 0) {
        return NULL;
    }
    if (argv[*i][n] == '=') {
        return argv[*i] + n + 1;
    }
    if (argv[*i][n] == '\0' && *i + 1 < argc) {
        return argv[++*i];
    }
    return NULL;
}

static int tt_parse_opts(int argc, char **argv, struct tt_opts *o,
                         char **pos, int *n_pos)
{
    static const char *const keys[] = {
        "--backends", "--format", "--group", "--binary", "--header",
        "--target-type", "--target-name", "--probe-prefix", "--instr",
    };
    int i;

    *n_pos = 0;
    for (i = 1; i < argc; i++) {
        const char **slot[] = { &o->backends, &o->format, &o->group,
                                &o->binary, &o->header, &o->target_type,
                                &o->target_name, &o->probe_prefix,
                                &o->instr };
        const char *v = NULL;
        size_t k;

        if (strcmp(argv[i], "--plugin") == 0) {
            o->plugin = true;
            continue;
        }
        if (argv[i][0] != '-' || argv[i][1] == '\0') {
            if (*n_pos == 3) {
                return tt_usage();
            }
            pos[(*n_pos)++] = argv[i];
            continue;
        }
        for (k = 0; k < sizeof(keys) / sizeof(keys[0]) && !v; k++) {
            v = tt_opt_value(argc, argv, &i, keys[k]);
            if (v && slot[k]) {
                *slot[k] = v;
            }
        }
        if (!v) {
            fprintf(stderr, TT_NAME ": %s: unknown option\n", argv[i]);
            return tt_usage();
        }
    }
    return 0;
}

/*
 * The formats the chosen backends make: h and c always, ust-events-h
 * with ust, d and stap with dtrace (stap also needs --binary).
 */
static int tt_check_format(const struct tt_opts *o, unsigned int backends)
{
    static const struct {
        const char *name;
        unsigned int needs;         /* backend bit, 0: any */
    } formats[] = {
        { "h", 0 }, { "c", 0 },
        { "ust-events-h", QTRACE_TRACE_BACKEND_UST },
        { "d", QTRACE_TRACE_BACKEND_DTRACE },
        { "stap", QTRACE_TRACE_BACKEND_DTRACE },
        { "plugin-c", 0 },
    };
    size_t i;

    for (i = 0; i < sizeof(formats) / sizeof(formats[0]); i++) {
        if (strcmp(o->format, formats[i].name) == 0) {
            break;
        }
    }
    if (i == sizeof(formats) / sizeof(formats[0])) {
        fprintf(stderr, TT_NAME ": --format=%s: unknown format (known: h, "
                "c, ust-events-h, d, stap)\n", o->format);
        return -1;
    }
    if (strcmp(o->format, "plugin-c") == 0 && !o->plugin) {
        fprintf(stderr, TT_NAME ": --format=plugin-c: needs --plugin\n");
        return -1;
    }
    if (formats[i].needs && !(backends & formats[i].needs)) {
        fprintf(stderr, TT_NAME ": --format=%s: needs the %s backend in "
                "--backends\n", o->format,
                formats[i].needs == QTRACE_TRACE_BACKEND_UST ? "ust"
                                                             : "dtrace");
        return -1;
    }
    if (strcmp(o->format, "stap") == 0 && !o->binary) {
        fprintf(stderr, TT_NAME ": --format=stap: needs --binary=PATH, the "
                "program the probes are in\n");
        return -1;
    }
    return 0;
}

/*
 * What LTTng-UST cannot express: its TP_ARGS takes at most ten
 * arguments (the vcpu property's implicit one counts).
 */
static int tt_check_ust(const char *path, const struct qtrace_catalog *cat)
{
    unsigned int i;

    for (i = 1; i <= cat->n_events; i++) {
        const struct qtrace_event_desc *ev = &cat->events[i];

        if (!ev->disabled && ev->n_args > GEN_UST_MAX_ARGS) {
            fprintf(stderr, TT_NAME ": %s:%u:1: %s: %u arguments, the ust "
                    "backend takes at most %d (LTTng's TP_ARGS)\n", path,
                    ev->line, ev->name, ev->n_args, GEN_UST_MAX_ARGS);
            return -1;
        }
    }
    return 0;
}

/*
 * In the plugin's catalog "disable" means off until events= selects the
 * event, not compiled out: each one gets its tracepoint and probe.
 */
static void tt_keep_all_events(struct qtrace_catalog *cat)
{
    unsigned int i;

    for (i = 1; i <= cat->n_events; i++) {
        cat->events[i].disabled = false;
    }
}

/*
 * The stap probes' prefix, as QEMU's tracetool: --probe-prefix, else
 * qemu.TYPE.NAME from --target-type and --target-name, else
 * qemu.BINARY with the binary's file name.
 */
static void tt_probe_prefix(const struct tt_opts *o, char *buf, size_t size)
{
    if (o->probe_prefix) {
        snprintf(buf, size, "%s", o->probe_prefix);
    } else if (o->target_type && o->target_name) {
        snprintf(buf, size, "qemu.%s.%s", o->target_type, o->target_name);
    } else {
        /* A probe point's parts are identifiers: "my-prog" is my_prog. */
        size_t i;

        snprintf(buf, size, "qemu.%s", o->binary ? tt_basename(o->binary)
                                                 : "program");
        for (i = strlen("qemu."); buf[i]; i++) {
            if (!(buf[i] == '_' || (buf[i] >= 'a' && buf[i] <= 'z') ||
                  (buf[i] >= 'A' && buf[i] <= 'Z') ||
                  (buf[i] >= '0' && buf[i] <= '9'))) {
                buf[i] = '_';
            }
        }
    }
}

/*
 * What a library's events cannot have: strings and byte arrays (its
 * records are fixed-size, filled on the stack) and the vcpu property
 * (every call names its vCPU). Prints FILE:LINE:1 and returns -1.
 */
static int tt_check_instr_events(const char *path,
                                 const struct qtrace_catalog *cat,
                                 const char *lib)
{
    unsigned int i, k;

    if (cat->n_events == 0) {
        fprintf(stderr, TT_NAME ": %s: no event\n", path);
        return -1;
    }
    for (i = 1; i <= cat->n_events; i++) {
        const struct qtrace_event_desc *ev = &cat->events[i];

        if (ev->vcpu) {
            fprintf(stderr, TT_NAME ": %s:%u:1: %s: property 'vcpu': a "
                    "library's event always names its vCPU, drop it\n",
                    path, ev->line, ev->name);
            return -1;
        }
        if (strlen(lib) + 1 + strlen(ev->name) >= sizeof(ev->name)) {
            fprintf(stderr, TT_NAME ": %s:%u:1: %s: '%s:%s' too long (max "
                    "%zu characters)\n", path, ev->line, ev->name, lib,
                    ev->name, sizeof(ev->name) - 1);
            return -1;
        }
        for (k = 0; k < ev->n_args; k++) {
            const struct qtrace_arg_desc *a = &ev->args[k];

            if (a->type == QTRACE_ARG_STR || a->type == QTRACE_ARG_BYTES) {
                fprintf(stderr, TT_NAME ": %s:%u:1: %s: argument '%s' (%s): "
                        "a library's events are fixed-size records, with "
                        "no strings or byte arrays\n", path, ev->line,
                        ev->name, a->name, a->ctype);
                return -1;
            }
        }
    }
    return 0;
}

/* --instr=LIB TRACE_EVENTS OUT_H: a library's own events. */
static int tt_main_instr(const struct tt_opts *o, char **pos)
{
    struct qtrace_catalog cat;
    struct tt_output out = { 0 };
    int ret;

    if (!tt_is_ident(o->instr) || strlen(o->instr) > 31) {
        fprintf(stderr, TT_NAME ": --instr=%s: not a C identifier of at most "
                "31 characters\n", o->instr);
        return 1;
    }
    if (tt_load(pos[0], FMT_CHECK_RECORDS, &cat) < 0) {
        return 1;
    }
    if (tt_check_instr_events(pos[0], &cat, o->instr) < 0) {
        qtrace_catalog_fini(&cat);
        return 1;
    }
    out.path = pos[1];
    out.cat = &cat;
    out.src = tt_basename(pos[0]);
    out.format = "instr-h";
    out.h_name = o->instr;
    ret = tt_write_file(&out);
    qtrace_catalog_fini(&cat);
    return ret == 0 ? 0 : 1;
}

int main(int argc, char **argv)
{
    struct tt_opts o = { .group = "all" };
    struct gen_program gp = { 0 };
    struct qtrace_catalog cat;
    struct tt_output out = { 0 };
    char *pos[3];
    char h_name[256];
    char prefix[256];
    int n_pos;
    int ret;

    if (tt_parse_opts(argc, argv, &o, pos, &n_pos) != 0) {
        return 2;
    }
    if (o.instr) {
        return o.backends || o.format || n_pos != 2 ? tt_usage()
                                                    : tt_main_instr(&o, pos);
    }
    if (!o.backends && !o.format && n_pos == 3) {
        return tt_main_records(pos);
    }
    if (!o.backends || !o.format || n_pos != 2) {
        return tt_usage();
    }
    if (tt_parse_backends(o.backends, &gp.backends) < 0) {
        return 1;
    }
    if (tt_check_format(&o, gp.backends) < 0) {
        return 1;
    }
    if (!tt_is_ident(o.group) || strlen(o.group) > 48) {
        fprintf(stderr, TT_NAME ": --group=%s: not a C identifier of at most "
                "48 characters\n", o.group);
        return 1;
    }
    if (tt_load(pos[0], o.plugin ? FMT_CHECK_RECORDS : FMT_CHECK_PROGRAM,
                &cat) < 0) {
        return 1;
    }
    if (o.plugin) {
        tt_keep_all_events(&cat);
    }
    if ((gp.backends & QTRACE_TRACE_BACKEND_UST) &&
        tt_check_ust(pos[0], &cat) < 0) {
        qtrace_catalog_fini(&cat);
        return 1;
    }
    tt_probe_prefix(&o, prefix, sizeof(prefix));
    gp.binary = o.binary;
    gp.plugin = o.plugin;
    gp.probe_prefix = prefix;
    tt_header_of(pos[1], h_name, sizeof(h_name));
    gp.group = o.group;
    gp.src = tt_basename(pos[0]);
    gp.h_name = o.header ? o.header : h_name;
    out.path = pos[1];
    out.cat = &cat;
    out.format = o.format;
    out.gp = &gp;
    ret = tt_write_file(&out);
    qtrace_catalog_fini(&cat);
    return ret == 0 ? 0 : 1;
}
