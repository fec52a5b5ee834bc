/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The log backend: QEMU's trace line, "TID@SEC.USEC:name args", on stderr
 * or the file= of --trace. Runs on the tracing thread; a line is formatted
 * on the stack and written with one write(2), so lines of concurrent
 * threads never mix.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

#include "qtrace/trace-emit.h"
#include "trace-int.h"

#define LOG_LINE_MAX 1024           /* longer lines are cut, not split */

static int log_fd = STDERR_FILENO;
static bool log_timestamp = true;
static long log_thread_id;          /* 0: the tracing thread's own */

void trace_log_set_timestamp(bool on)
{
    __atomic_store_n(&log_timestamp, on, __ATOMIC_RELAXED);
}

bool backend_log_set_file(const char *path)
{
    int fd = STDERR_FILENO;
    int old;

    if (path) {
        fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC,
                  0644);
        if (fd < 0) {
            ctl_warn("file=%s: %s", path, strerror(errno));
            return false;
        }
    }
    old = __atomic_exchange_n(&log_fd, fd, __ATOMIC_ACQ_REL);
    if (old != STDERR_FILENO) {
        close(old);
    }
    return true;
}

void backend_log_set_thread_id(long id)
{
    __atomic_store_n(&log_thread_id, id, __ATOMIC_RELAXED);
}

/* The thread id, as QEMU prints it (the pid on the main thread). */
static long thread_id(void)
{
    long id = __atomic_load_n(&log_thread_id, __ATOMIC_RELAXED);

    return id ? id : (long)gettid();
}

void qtrace_trace_log(const char *fmt, ...)
{
    char line[LOG_LINE_MAX];
    size_t len = 0;
    va_list ap;
    int n;

    if (__atomic_load_n(&log_timestamp, __ATOMIC_RELAXED)) {
        struct timeval now;

        gettimeofday(&now, NULL);
        len = (size_t)snprintf(line, sizeof(line), "%ld@%zu.%06zu:",
                               thread_id(), (size_t)now.tv_sec,
                               (size_t)now.tv_usec);
    }
    va_start(ap, fmt);
    n = vsnprintf(line + len, sizeof(line) - len - 1, fmt, ap);
    va_end(ap);
    if (n < 0) {
        return;
    }
    len += (size_t)n < sizeof(line) - len - 1 ? (size_t)n
                                              : sizeof(line) - len - 2;
    line[len++] = '\n';
    if (write(__atomic_load_n(&log_fd, __ATOMIC_RELAXED), line, len) < 0) {
        /* Nowhere to report a failed diagnostic write; the line is lost. */
        return;
    }
}
