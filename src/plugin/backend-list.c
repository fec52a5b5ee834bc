/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The backend names of backend= (see backend-list.h). */
#include <errno.h>
#include <string.h>

#include "backend-list.h"
#include "qtrace/trace-control.h"

static const struct {
    const char *name;
    unsigned int bit;               /* 0: known, not available */
} backend_names[] = {
    { "log", QTRACE_TRACE_BACKEND_LOG },
    { "simple", QTRACE_TRACE_BACKEND_SIMPLE },
    { "ftrace", QTRACE_TRACE_BACKEND_FTRACE },
    { "syslog", QTRACE_TRACE_BACKEND_SYSLOG },
    /* QEMU's other two: the plugin feeds them once the runtime has them. */
    { "ust", 0 },
    { "dtrace", 0 },
};

#define N_BACKENDS (sizeof(backend_names) / sizeof(backend_names[0]))

/* One entry (separated by ',' or ';') of len bytes of len bytes into *mask. */
static int add_name(const char *name, size_t len, unsigned int *mask,
                    struct qtrace_err *err)
{
    size_t i;

    for (i = 0; i < N_BACKENDS; i++) {
        if (strlen(backend_names[i].name) != len ||
            strncmp(backend_names[i].name, name, len) != 0) {
            continue;
        }
        if (!backend_names[i].bit) {
            qtrace_err_set(err, "%.*s: not available to the plugin yet "
                           "(available: log, simple, ftrace, syslog)",
                           (int)len, name);
            return -EINVAL;
        }
        *mask |= backend_names[i].bit;
        return 0;
    }
    qtrace_err_set(err, "%.*s: unknown backend (known: log, simple, "
                   "ftrace, syslog)", (int)len, name);
    return -EINVAL;
}

int backend_list_parse(const char *list, unsigned int *mask,
                       struct qtrace_err *err)
{
    const char *p = list;

    *mask = 0;
    for (;;) {
        size_t len = strcspn(p, ",;");
        int ret = add_name(p, len, mask, err);

        if (ret < 0) {
            return ret;
        }
        if (!p[len]) {
            return 0;
        }
        p += len + 1;
    }
}

const char *backend_list_name(unsigned int bit)
{
    size_t i;

    for (i = 0; i < N_BACKENDS; i++) {
        if (backend_names[i].bit == bit) {
            return backend_names[i].name;
        }
    }
    return "?";
}
