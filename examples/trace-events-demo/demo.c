/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * trace-events-demo: a program traced the way QEMU is. Its events are in
 * ./trace-events, its trace.h comes from qtrace-tracetool, and it takes
 * QEMU's --trace option (or QTRACE_TRACE in the environment).
 *
 * For tests, it prints on stdout, with its own printf, the log line each
 * trace call should give ("name args", no timestamp), so what a backend
 * wrote can be checked against something the library did not produce.
 *
 *   trace-events-demo [--trace ARG]... [--msg timestamp=on|off]
 *                     [--jobs N] [--burst N] [--switch-file PATH]
 *                     [--list PATTERN]
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The qtrace tree builds one demo per backend set, each with its header. */
#ifdef DEMO_TRACE_H
#include DEMO_TRACE_H
#else
#include "trace.h"
#endif

struct demo_opts {
    unsigned int jobs;              /* --jobs: demo_job calls */
    unsigned long burst;            /* --burst: extra demo_job calls,
                                       not echoed (to fill the buffer) */
    const char *switch_file;        /* --switch-file: simple file after
                                       the first job */
    const char *list;               /* --list: print events and stop */
};

static int usage(void)
{
    fputs("usage: trace-events-demo [--trace ARG]... "
          "[--msg timestamp=on|off] [--jobs N] [--burst N] "
          "[--switch-file PATH] [--list PATTERN]\n", stderr);
    return 2;
}

/* --msg timestamp=on|off, as QEMU's -msg. */
static bool parse_msg(const char *arg)
{
    if (strcmp(arg, "timestamp=on") == 0) {
        trace_log_set_timestamp(true);
    } else if (strcmp(arg, "timestamp=off") == 0) {
        trace_log_set_timestamp(false);
    } else {
        fprintf(stderr, "trace-events-demo: --msg %s: expected "
                "timestamp=on or timestamp=off\n", arg);
        return false;
    }
    return true;
}

/* Options; the --trace ones go to the tracing runtime as they come. */
static int parse_opts(int argc, char **argv, struct demo_opts *o)
{
    int i;

    for (i = 1; i < argc; i++) {
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;

        if (!v) {
            return usage();
        }
        if (strcmp(argv[i], "--trace") == 0) {
            if (!trace_opt_parse(v)) {
                return 1;
            }
        } else if (strcmp(argv[i], "--msg") == 0) {
            if (!parse_msg(v)) {
                return 2;
            }
        } else if (strcmp(argv[i], "--jobs") == 0) {
            o->jobs = (unsigned int)strtoul(v, NULL, 10);
        } else if (strcmp(argv[i], "--burst") == 0) {
            o->burst = strtoul(v, NULL, 10);
        } else if (strcmp(argv[i], "--switch-file") == 0) {
            o->switch_file = v;
        } else if (strcmp(argv[i], "--list") == 0) {
            o->list = v;
        } else {
            return usage();
        }
        i++;
    }
    return 0;
}

/* The events matching pattern and their state, as "info trace-events". */
static void list_events(const char *pattern)
{
    struct trace_event_iter iter;
    struct trace_event *ev;

    trace_event_iter_init_pattern(&iter, pattern);
    while ((ev = trace_event_iter_next(&iter))) {
        printf("%s : state %d\n", trace_event_get_name(ev),
               trace_event_get_state_dynamic(ev) ? 1 : 0);
    }
}

static void run_jobs(const struct demo_opts *o)
{
    static char buffer[64];
    unsigned int i;
    unsigned long b;

    trace_demo_start("demo", (int)o->jobs);
    printf("demo_start name demo jobs %d\n", (int)o->jobs);
    for (i = 0; i < o->jobs; i++) {
        uint64_t cost = (uint64_t)(i + 1) * 0x10001u;
        bool last = i + 1 == o->jobs;

        trace_demo_job(i, cost, last);
        printf("demo_job idx %u cost 0x%" PRIx64 " last %d\n", i, cost,
               last);
        trace_demo_hot(i);          /* "disable": never printed */
        if (i == 0 && o->switch_file) {
            st_set_trace_file(o->switch_file);
        }
    }
    trace_demo_buffer(buffer, sizeof(buffer));
    printf("demo_buffer buf %p len %zu\n", (void *)buffer, sizeof(buffer));
    trace_demo_signed(-5, -70000L, -3);
    printf("demo_signed delta -5 big -70000 small -3\n");
    trace_demo_cpu(buffer, 7);
    printf("demo_cpu cpu=%p n 7\n", (void *)buffer);
    for (b = 0; b < o->burst; b++) {
        trace_demo_job((unsigned int)b, b, false);
    }
    trace_demo_done();
    printf("demo_done done\n");
}

int main(int argc, char **argv)
{
    struct demo_opts o = { .jobs = 3 };
    int ret = parse_opts(argc, argv, &o);

    if (ret != 0) {
        return ret;
    }
    if (!trace_init_backends()) {
        return 1;
    }
    if (o.list) {
        list_events(o.list);
        return 0;
    }
    run_jobs(&o);
    return 0;
}
