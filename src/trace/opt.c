/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * QEMU's --trace and -msg options and their QTRACE_TRACE and QTRACE_MSG
 * twins in the environment: patterns, events files, the trace file name
 * and log timestamps, then the start of the backends. Runs on the program's thread at start-up (not thread-safe
 * against itself: call it from one thread, as QEMU parses its options).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace-int.h"

#define OPT_ENV "QTRACE_TRACE"      /* ';'-separated --trace arguments */
#define MSG_ENV "QTRACE_MSG"        /* a -msg argument */

static char *trace_file;            /* file=, owned here */

const char *opt_trace_file(void)
{
    return trace_file;
}

/* Strip the line's end and surrounding blanks in place. */
static char *trim(char *s)
{
    char *end = s + strlen(s);

    while (*s == ' ' || *s == '\t') {
        s++;
    }
    while (end > s && strchr(" \t\r\n", end[-1])) {
        *--end = '\0';
    }
    return s;
}

/* events=FILE: one pattern per line, "-pattern" disables, '#' comments. */
static bool read_events_file(const char *path)
{
    FILE *f = fopen(path, "r");
    char line[1024];

    if (!f) {
        ctl_warn("events=%s: %s", path, strerror(errno));
        return false;
    }
    while (fgets(line, sizeof(line), f)) {
        char *p = trim(line);

        if (*p && *p != '#') {
            trace_enable_events(p);
        }
    }
    if (ferror(f)) {
        ctl_warn("events=%s: %s", path, strerror(EIO));
        fclose(f);
        return false;
    }
    fclose(f);
    return true;
}

/* One item of a --trace argument: "PATTERN" or "key=value". */
static bool apply_item(const char *item)
{
    const char *eq = strchr(item, '=');

    if (!eq) {
        trace_enable_events(item);
        return true;
    }
    if (strncmp(item, "enable=", 7) == 0) {
        trace_enable_events(eq + 1);
    } else if (strncmp(item, "events=", 7) == 0) {
        return read_events_file(eq + 1);
    } else if (strncmp(item, "file=", 5) == 0) {
        free(trace_file);
        trace_file = strdup(eq + 1);
    } else {
        ctl_warn("--trace %s: unknown key '%.*s' (known: enable, events, "
                   "file)", item, (int)(eq - item), item);
        return false;
    }
    return true;
}

/* Apply each item of s, split at any of seps; false at the first bad one. */
static bool apply_list(const char *s, const char *seps)
{
    char *copy = strdup(s);
    char *save = NULL;
    char *item;
    bool ok = true;

    if (!copy) {
        ctl_warn("--trace %s: %s", s, strerror(ENOMEM));
        return false;
    }
    for (item = strtok_r(copy, seps, &save); item && ok;
         item = strtok_r(NULL, seps, &save)) {
        item = trim(item);
        if (*item) {
            ok = apply_item(item);
        }
    }
    free(copy);
    return ok;
}

bool trace_opt_parse(const char *optarg)
{
    return apply_list(optarg ? optarg : "", ",");
}

void trace_init_file(void)
{
    unsigned int backends = control_backends();

    if (backends & QTRACE_TRACE_BACKEND_SIMPLE) {
        st_set_trace_file(trace_file);
    } else if ((backends & QTRACE_TRACE_BACKEND_LOG) && trace_file) {
        backend_log_set_file(trace_file);
    }
}

bool trace_msg_parse(const char *optarg)
{
    if (optarg && strcmp(optarg, "timestamp=on") == 0) {
        trace_log_set_timestamp(true);
    } else if (optarg && strcmp(optarg, "timestamp=off") == 0) {
        trace_log_set_timestamp(false);
    } else {
        ctl_warn("-msg %s: expected timestamp=on or timestamp=off",
                 optarg ? optarg : "");
        return false;
    }
    return true;
}

bool trace_init_backends(void)
{
    const char *env = getenv(OPT_ENV);
    const char *msg = getenv(MSG_ENV);
    unsigned int backends = control_backends();

    if (env && !apply_list(env, ";,")) {
        return false;
    }
    if (msg && !trace_msg_parse(msg)) {
        return false;
    }
    if (backends & QTRACE_TRACE_BACKEND_SYSLOG) {
        backend_syslog_start();
    }
    if (backends & QTRACE_TRACE_BACKEND_FTRACE) {
        backend_ftrace_start();
    }
    if ((backends & QTRACE_TRACE_BACKEND_SIMPLE) && !backend_simple_start()) {
        return false;
    }
    trace_init_file();
    return true;
}
