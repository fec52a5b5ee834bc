/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * backend=ust's start and its one call: the tracepoints are in
 * libqtrace-ust.so (generated from trace-events, see backend-probes.h)
 * so that only a QEMU asked for LTTng loads liblttng-ust, whose
 * constructors register with the session daemon, start listener
 * threads and wait for an RCU grace period (some 10 ms). ust_load() runs
 * at install time on QEMU's thread, ust_emit() on the writer thread.
 */
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "qtrace/trace-control.h"
#include "ust-load.h"

#define UST_MODULE "libqtrace-ust.so"

typedef void (*ust_emit_fn)(const struct qtrace_record *rec,
                            unsigned int on);

static ust_emit_fn module_emit;     /* set once by ust_load() */

/* The directory of the file this function is in: libqtrace.so's. */
static int plugin_dir(char *dir, size_t size)
{
    Dl_info info;
    const char *slash;

    if (!dladdr((void *)plugin_dir, &info) || !info.dli_fname) {
        return -1;
    }
    slash = strrchr(info.dli_fname, '/');
    if (!slash) {
        return snprintf(dir, size, ".") < (int)size ? 0 : -1;
    }
    return snprintf(dir, size, "%.*s", (int)(slash - info.dli_fname),
                    info.dli_fname) < (int)size ? 0 : -1;
}

int ust_load(struct qtrace_err *err)
{
    char dir[PATH_MAX];
    char path[PATH_MAX + sizeof(UST_MODULE) + 1];
    void *handle;                   /* never closed: LTTng keeps using it */

    if (module_emit) {
        return 0;
    }
    if (plugin_dir(dir, sizeof(dir)) < 0) {
        qtrace_err_set(err, "backend=ust: cannot find libqtrace.so's "
                       "directory");
        return -1;
    }
    snprintf(path, sizeof(path), "%s/%s", dir, UST_MODULE);
    handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        qtrace_err_set(err, "backend=ust: %s", dlerror());
        return -1;
    }
    module_emit = (ust_emit_fn)dlsym(handle, "backend_probes_emit");
    if (!module_emit) {
        qtrace_err_set(err, "backend=ust: %s: no backend_probes_emit", path);
        return -1;
    }
    return 0;
}

void ust_emit(const struct qtrace_record *rec)
{
    module_emit(rec, QTRACE_TRACE_BACKEND_UST);
}
