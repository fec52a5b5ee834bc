/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The ftrace backend: each event is one write of "name args" to tracefs's
 * trace_marker, so it lands in the kernel's ring buffer beside kernel
 * events. Found at start-up; where there is no writable tracefs (most
 * containers, no root) one note says so and events go nowhere.
 */
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "qtrace/trace-emit.h"
#include "trace-int.h"

#define FTRACE_LINE_MAX 1024        /* the kernel takes up to a page */

static int marker_fd = -1;

/* tracefs's own mount point first, then the old one under debugfs. */
static const char *const marker_paths[] = {
    "/sys/kernel/tracing/trace_marker",
    "/sys/kernel/debug/tracing/trace_marker",
};

void backend_ftrace_start(void)
{
    size_t i;

    if (__atomic_load_n(&marker_fd, __ATOMIC_ACQUIRE) >= 0) {
        return;                     /* trace_init_backends() called again */
    }
    for (i = 0; i < sizeof(marker_paths) / sizeof(marker_paths[0]); i++) {
        int fd = open(marker_paths[i], O_WRONLY | O_CLOEXEC);

        if (fd >= 0) {
            __atomic_store_n(&marker_fd, fd, __ATOMIC_RELEASE);
            return;
        }
    }
    ctl_warn("ftrace: no writable trace_marker (tracefs not mounted at "
               "/sys/kernel/tracing, or no permission): ftrace events are "
               "not written");
}

bool backend_ftrace_ready(void)
{
    return __atomic_load_n(&marker_fd, __ATOMIC_ACQUIRE) >= 0;
}

void qtrace_trace_ftrace(const char *fmt, ...)
{
    int fd = __atomic_load_n(&marker_fd, __ATOMIC_ACQUIRE);
    char line[FTRACE_LINE_MAX];
    va_list ap;
    int n;

    if (fd < 0) {
        return;
    }
    va_start(ap, fmt);
    n = vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    if (n < 0) {
        return;
    }
    if ((size_t)n >= sizeof(line)) {
        n = (int)sizeof(line) - 1;
    }
    if (write(fd, line, (size_t)n) < 0) {
        /* The kernel refused the line; nothing to report it to. */
        return;
    }
}
