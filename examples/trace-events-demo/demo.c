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
 *                     [--jobs N] [--burst N] [--threads N]
 *                     [--switch-file PATH] [--file-cycle 1]
 *                     [--flush-check PATH] [--wait-file PATH]
 *                     [--list PATTERN]
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L  /* clock_gettime(), nanosleep() under -std=c11 */
#endif
#include <inttypes.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

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
    unsigned int threads;           /* --threads: more threads doing
                                       the jobs at the same time */
    const char *switch_file;        /* --switch-file: simple file after
                                       the first job */
    bool file_cycle;                /* --file-cycle: simple file off after
                                       job 0, on again after job 1 */
    const char *flush_check;        /* --flush-check: flush after job 0
                                       and print this file's size */
    const char *list;               /* --list: print events and stop */
    const char *wait_file;          /* --wait-file: trace only once this
                                       file exists (lets a test look at
                                       the running program first) */
};

static int usage(void)
{
    fputs("usage: trace-events-demo [--trace ARG]... "
          "[--msg timestamp=on|off] [--jobs N] [--burst N] "
          "[--threads N] [--switch-file PATH] [--file-cycle 1] "
          "[--flush-check PATH] [--wait-file PATH] [--list PATTERN]\n",
          stderr);
    return 2;
}

/* Options; --trace and --msg go to the tracing runtime as they come. */
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
            if (!trace_msg_parse(v)) {
                return 2;
            }
        } else if (strcmp(argv[i], "--jobs") == 0) {
            o->jobs = (unsigned int)strtoul(v, NULL, 10);
        } else if (strcmp(argv[i], "--burst") == 0) {
            o->burst = strtoul(v, NULL, 10);
        } else if (strcmp(argv[i], "--threads") == 0) {
            o->threads = (unsigned int)strtoul(v, NULL, 10);
        } else if (strcmp(argv[i], "--file-cycle") == 0) {
            o->file_cycle = strcmp(v, "1") == 0;
        } else if (strcmp(argv[i], "--flush-check") == 0) {
            o->flush_check = v;
        } else if (strcmp(argv[i], "--switch-file") == 0) {
            o->switch_file = v;
        } else if (strcmp(argv[i], "--wait-file") == 0) {
            o->wait_file = v;
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

/* The trace-file monitor commands, as the demo's options ask. */
static void file_commands(const struct demo_opts *o, unsigned int done)
{
    if (done == 0 && o->switch_file) {
        st_set_trace_file(o->switch_file);
    }
    if (done == 0 && o->file_cycle) {
        st_set_trace_file_enabled(false);
    }
    if (done == 1 && o->file_cycle) {
        st_set_trace_file_enabled(true);
    }
    if (done == 0 && o->flush_check) {
        struct stat st;

        st_flush_trace_buffer();
        if (stat(o->flush_check, &st) == 0) {
            fprintf(stderr, "flushed %lld\n", (long long)st.st_size);
        }
    }
}

/* Jobs first..first+n-1, each traced and echoed (one printf per line). */
static void do_jobs(const struct demo_opts *o, unsigned int first,
                    unsigned int n)
{
    unsigned int i;

    for (i = first; i < first + n; i++) {
        uint64_t cost = (uint64_t)(i + 1) * 0x10001u;
        bool last = i + 1 == o->jobs;

        trace_demo_job(i, cost, last);
        printf("demo_job idx %u cost 0x%" PRIx64 " last %d\n", i, cost,
               last);
        trace_demo_hot(i);          /* "disable": never printed */
        if (first == 0) {
            file_commands(o, i);
        }
    }
}

struct worker {
    pthread_t thread;
    const struct demo_opts *o;
    unsigned int first;             /* its jobs: first .. first+jobs-1 */
};

static void *worker_main(void *arg)
{
    struct worker *w = arg;

    do_jobs(w->o, w->first, w->o->jobs);
    return NULL;
}

/* --threads: each thread does its own range of jobs, all at once. */
static void run_threads(const struct demo_opts *o)
{
    struct worker w[64];
    unsigned int n = o->threads < 64 ? o->threads : 64;
    unsigned int t;

    for (t = 0; t < n; t++) {
        w[t].o = o;
        w[t].first = (t + 1) * o->jobs;
        if (pthread_create(&w[t].thread, NULL, worker_main, &w[t]) != 0) {
            n = t;
            break;
        }
    }
    for (t = 0; t < n; t++) {
        pthread_join(w[t].thread, NULL);
    }
}

static uint64_t now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/*
 * --burst: n demo_job calls back to back, not echoed; the time they took
 * goes to stderr ("burst N calls T ns"), to measure a backend's cost.
 */
static void burst(unsigned long n)
{
    uint64_t t0 = now_ns();
    unsigned long b;

    for (b = 0; b < n; b++) {
        trace_demo_job((unsigned int)b, b, false);
    }
    if (n) {
        fprintf(stderr, "burst %lu calls %" PRIu64 " ns\n", n,
                now_ns() - t0);
    }
}

static void run_jobs(const struct demo_opts *o)
{
    static char buffer[64];

    trace_demo_start("demo", (int)o->jobs);
    printf("demo_start name demo jobs %d\n", (int)o->jobs);
    do_jobs(o, 0, o->jobs);
    run_threads(o);
    trace_demo_buffer(buffer, sizeof(buffer));
    printf("demo_buffer buf %p len %zu\n", (void *)buffer, sizeof(buffer));
    trace_demo_signed(-5, -70000L, -3);
    printf("demo_signed delta -5 big -70000 small -3\n");
    trace_demo_cpu(buffer, 7);
    printf("demo_cpu cpu=%p n 7\n", (void *)buffer);
    burst(o->burst);
    trace_demo_done();
    printf("demo_done done\n");
}

/* --wait-file: poll every 10 ms, for at most 30 s. */
static void wait_for_file(const char *path)
{
    const struct timespec tick = { .tv_nsec = 10 * 1000 * 1000 };
    struct stat st;
    int i;

    for (i = 0; i < 3000 && stat(path, &st) != 0; i++) {
        nanosleep(&tick, NULL);
    }
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
    if (o.wait_file) {
        wait_for_file(o.wait_file);
    }
    run_jobs(&o);
    return 0;
}
