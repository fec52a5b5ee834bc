/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * backend=ust's start: the probes live in libqtrace-ust.so so that only
 * a QEMU asked for LTTng loads liblttng-ust (its constructor connects to
 * the session daemon and starts two listener threads). Install time,
 * QEMU's main thread.
 */
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "ust-load.h"

#define UST_MODULE "libqtrace-ust.so"

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
    static void *handle;            /* never closed: LTTng keeps using it */
    char dir[PATH_MAX];
    char path[PATH_MAX + sizeof(UST_MODULE) + 1];

    if (handle) {
        return 0;
    }
    if (plugin_dir(dir, sizeof(dir)) < 0) {
        qtrace_err_set(err, "backend=ust: cannot find libqtrace.so's "
                       "directory");
        return -1;
    }
    snprintf(path, sizeof(path), "%s/%s", dir, UST_MODULE);
    handle = dlopen(path, RTLD_NOW);
    if (!handle) {
        qtrace_err_set(err, "backend=ust: %s", dlerror());
        return -1;
    }
    return 0;
}
