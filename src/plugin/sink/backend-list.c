/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The backend names of backend= (see backend-list.h). */
#include <errno.h>
#include <string.h>

#include "backend-list.h"
#include "qtrace/trace-control.h"

/*
 * ust and dtrace are compiled in where their Debian package was found
 * when configuring (src/plugin/meson.build sets these to 0 or 1).
 */
#if QTRACE_PLUGIN_HAVE_UST
#define UST_BIT QTRACE_TRACE_BACKEND_UST
#else
#define UST_BIT 0
#endif
#if QTRACE_PLUGIN_HAVE_DTRACE
#define DTRACE_BIT QTRACE_TRACE_BACKEND_DTRACE
#else
#define DTRACE_BIT 0
#endif

static const struct {
    const char *name;
    unsigned int bit;               /* 0: known, not in this build */
    const char *needs;              /* what building it takes */
} backend_names[] = {
    { "log", QTRACE_TRACE_BACKEND_LOG, NULL },
    { "simple", QTRACE_TRACE_BACKEND_SIMPLE, NULL },
    { "ftrace", QTRACE_TRACE_BACKEND_FTRACE, NULL },
    { "syslog", QTRACE_TRACE_BACKEND_SYSLOG, NULL },
    { "ust", UST_BIT, "liblttng-ust-dev" },
    { "dtrace", DTRACE_BIT, "systemtap-sdt-dev" },
};

#define N_BACKENDS (sizeof(backend_names) / sizeof(backend_names[0]))

/* One entry (separated by ',' or ';') of len bytes into *mask. */
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
            qtrace_err_set(err, "%.*s: not in this build of the plugin "
                           "(%s was not found when it was configured)",
                           (int)len, name, backend_names[i].needs);
            return -EINVAL;
        }
        *mask |= backend_names[i].bit;
        return 0;
    }
    qtrace_err_set(err, "%.*s: unknown backend (known: log, simple, "
                   "ftrace, syslog, ust, dtrace)", (int)len, name);
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
