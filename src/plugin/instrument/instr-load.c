/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Loading instrumentation libraries (instr.h): dlopen, the API version
 * check, qtrace_instr_init. Any refusal unloads what was loaded so far.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "instr.h"
#include "instr-lib.h"

typedef int (*instr_init_fn)(const struct qtrace_instr_host *host, int argc,
                             const char **argv, char *errmsg);

struct instr_lib instr_libs[INSTR_MAX_LIBS];
size_t instr_n_libs;

/* Checks the version the library declares against the host's major. */
static int check_version(struct instr_lib *lib, struct qtrace_err *err)
{
    const uint32_t *version = dlsym(lib->dl, "qtrace_instr_api_version");
    unsigned int major;

    if (!version) {
        qtrace_err_set(err, "instr=%s: no qtrace_instr_api_version (the "
                       "library must use QTRACE_INSTR_DECLARE())", lib->path);
        return -1;
    }
    major = *version >> 16;
    if (major != QTRACE_INSTR_API_MAJOR) {
        qtrace_err_set(err, "instr=%s: built for instrumentation API %u.%u, "
                       "this qtrace speaks %d.%d", lib->path, major,
                       *version & 0xffff, QTRACE_INSTR_API_MAJOR,
                       QTRACE_INSTR_API_MINOR);
        return -1;
    }
    return 0;
}

static int load_one(struct instr_lib *lib, const struct instr_spec *spec,
                    const struct instr_env *env, struct qtrace_err *err)
{
    char why[QTRACE_INSTR_ERRMSG_MAX + 1] = "";
    instr_init_fn init;
    int ret;

    lib->path = spec->path;
    lib->index = (uint32_t)(lib - instr_libs) + 1;
    /* Local: two libraries may both define functions of the same name. */
    lib->dl = dlopen(spec->path, RTLD_NOW | RTLD_LOCAL);
    if (!lib->dl) {
        qtrace_err_set(err, "instr=%s: %s", spec->path, dlerror());
        return -1;
    }
    if (check_version(lib, err) < 0) {
        return -1;
    }
    init = (instr_init_fn)dlsym(lib->dl, "qtrace_instr_init");
    if (!init) {
        qtrace_err_set(err, "instr=%s: no qtrace_instr_init", spec->path);
        return -1;
    }
    lib->fini = (void (*)(void))dlsym(lib->dl, "qtrace_instr_fini");
    instr_host_fill(lib, env);
    lib->registering = true;
    ret = init(&lib->host, spec->argc, (const char **)spec->argv, why);
    lib->registering = false;
    if (ret != 0) {
        /* A library's message is cut to one line. */
        why[strcspn(why, "\n")] = '\0';
        /* The host's own reason first: the library may not pass it on. */
        qtrace_err_set(err, "instr=%s: qtrace_instr_init failed (%d)%s%s%s%s",
                       spec->path, ret, lib->ev_why[0] ? ": register_events: "
                                                       : "",
                       lib->ev_why, why[0] ? ": " : "", why);
        lib->fini = NULL;
        return -1;
    }
    return 0;
}

static void unload_all(void)
{
    size_t i;

    for (i = instr_n_libs; i-- > 0;) {
        if (instr_libs[i].dl) {
            dlclose(instr_libs[i].dl);
        }
        instr_events_release(&instr_libs[i]);
        memset(&instr_libs[i], 0, sizeof(instr_libs[i]));
    }
    instr_n_libs = 0;
    instr_events_reset();
}

int instr_load_all(const struct instr_spec *specs, size_t n,
                   const struct instr_env *env, struct qtrace_err *err)
{
    size_t i;

    if (n > INSTR_MAX_LIBS) {
        qtrace_err_set(err, "instr=: at most %d libraries", INSTR_MAX_LIBS);
        return -1;
    }
    for (i = 0; i < n; i++) {
        instr_n_libs = i + 1;
        if (load_one(&instr_libs[i], &specs[i], env, err) < 0) {
            instr_n_libs = i;
            if (instr_libs[i].dl) {
                dlclose(instr_libs[i].dl);
            }
            instr_events_release(&instr_libs[i]);
            memset(&instr_libs[i], 0, sizeof(instr_libs[i]));
            instr_fini_all();
            unload_all();
            return -1;
        }
    }
    return 0;
}

void instr_fini_all(void)
{
    size_t i;

    for (i = 0; i < instr_n_libs; i++) {
        /* Once only: QEMU's atexit and a fatal signal may both get here. */
        void (*fini)(void) = __atomic_exchange_n(&instr_libs[i].fini, NULL,
                                                 __ATOMIC_ACQ_REL);

        if (fini) {
            fini();
        }
    }
}
