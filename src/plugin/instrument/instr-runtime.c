/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Loading and unloading instrumentation libraries while the guest runs
 * (instr.h, docs/instrument.md "Loading at run time"). The control thread
 * loads and initialises a library, publishes it, and asks for a flush of
 * the translations; a vCPU thread issues that flush (QEMU flushes only
 * for a reset asked from a vCPU), and QEMU's reset callback, which runs
 * when no vCPU is in translated code, is the quiescent point where an
 * unloaded library's fini runs and it is closed.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "instr.h"
#include "instr-lib.h"
#include "qi/qi-layer.h"

static struct {
    struct instr_env env;           /* as at install, flush replaced */
    void (*qemu_flush)(void);       /* the plugin's real flush */
    bool started;                   /* install is over */
    bool exiting;                   /* instr_fini_all has begun */
    /* Flush generations: asked (control thread), reached (quiescent). */
    uint64_t asked_gen;             /* atomic */
    uint64_t done_gen;              /* atomic */
    bool in_flight;                 /* atomic: a vCPU issued a reset */
    pthread_t issuer;               /* the vCPU thread that issued it */
    /* The unload whose reply waits for the quiescent point. */
    void (*unload_done)(void *ctx); /* atomic pointer, NULL: none */
    void *unload_ctx;
    pthread_mutex_t lock;           /* control thread vs quiescent */
} rt = { .lock = PTHREAD_MUTEX_INITIALIZER };

/* Set on the control thread while it loads or unloads. */
static __thread bool on_control_call;

/* ---- the flush, issued by a vCPU ---- */

/*
 * A library (the qemu-instr layer) asks for a flush. At install nothing
 * runs yet and the plugin's flush is direct; on a vCPU thread it is
 * QEMU's safe, asynchronous flush; on the control thread QEMU would
 * drop the callbacks at once without flushing (no current vCPU), so the
 * flush is left to the next vCPU that comes by instr_poll.
 */
static void request_flush(void)
{
    if (!rt.started || !on_control_call) {
        rt.qemu_flush();
        return;
    }
    __atomic_add_fetch(&rt.asked_gen, 1, __ATOMIC_RELEASE);
}

void instr_runtime_request_flush(void)
{
    __atomic_add_fetch(&rt.asked_gen, 1, __ATOMIC_RELEASE);
}

void instr_poll(void)
{
    uint64_t asked = __atomic_load_n(&rt.asked_gen, __ATOMIC_RELAXED);
    bool idle = false;

    if (asked == __atomic_load_n(&rt.done_gen, __ATOMIC_RELAXED) ||
        __atomic_load_n(&rt.exiting, __ATOMIC_RELAXED)) {
        return;
    }
    if (!__atomic_compare_exchange_n(&rt.in_flight, &idle, true, false,
                                     __ATOMIC_ACQ_REL, __ATOMIC_RELAXED)) {
        return;
    }
    rt.issuer = pthread_self();
    rt.qemu_flush();
}

/* Wait (bounded) for vCPU threads inside a non-translated hook. */
static void drain_hooks(void)
{
    struct timespec nap = { 0, 100000 };
    int i;

    for (i = 0; i < 10000 && instr_hooks_busy(); i++) {
        nanosleep(&nap, NULL);
    }
}

/*
 * fini and dlclose of every library whose flush has been reached; the
 * waiting reply goes once none is left waiting.
 */
static void finish_unloads(uint64_t reached)
{
    void (*done)(void *ctx);
    size_t i, n = instr_libs_count();
    bool waiting = false;

    for (i = 0; i < n; i++) {
        struct instr_lib *lib = &instr_libs[i];
        void (*fini)(void);

        if (__atomic_load_n(&lib->state, __ATOMIC_ACQUIRE) !=
            INSTR_LIB_UNLOADING) {
            continue;
        }
        if (lib->unload_gen > reached) {
            waiting = true;
            continue;
        }
        drain_hooks();
        fini = __atomic_exchange_n(&lib->fini, NULL, __ATOMIC_ACQ_REL);
        if (fini) {
            fini();
        }
        if (lib->qi) {
            qi_layer_detach();
        }
        instr_events_release(lib);
        dlclose(lib->dl);
        lib->dl = NULL;
        __atomic_store_n(&lib->state, INSTR_LIB_UNLOADED, __ATOMIC_RELEASE);
    }
    done = waiting ? NULL : __atomic_exchange_n(&rt.unload_done, NULL,
                                                __ATOMIC_ACQ_REL);
    if (done) {
        done(rt.unload_ctx);
    }
}

/*
 * QEMU's reset callback. A reset that a vCPU asked for runs here after
 * tb_flush, with every vCPU out of translated code: no translation made
 * with a hook cleared before now is left, and none is being made.
 */
void instr_quiescent(void)
{
    uint64_t reached;

    if (!__atomic_load_n(&rt.in_flight, __ATOMIC_ACQUIRE)) {
        return;
    }
    if (!pthread_equal(pthread_self(), rt.issuer)) {
        /* Another's reset (ours was ignored meanwhile): ask again. */
        __atomic_store_n(&rt.in_flight, false, __ATOMIC_RELEASE);
        return;
    }
    reached = __atomic_load_n(&rt.asked_gen, __ATOMIC_ACQUIRE);
    pthread_mutex_lock(&rt.lock);
    if (!rt.exiting) {
        finish_unloads(reached);
    }
    pthread_mutex_unlock(&rt.lock);
    __atomic_store_n(&rt.done_gen, reached, __ATOMIC_RELEASE);
    __atomic_store_n(&rt.in_flight, false, __ATOMIC_RELEASE);
}

/* ---- install and exit ---- */

const struct instr_env *instr_runtime_setup(const struct instr_env *env)
{
    if (!rt.qemu_flush) {
        rt.env = *env;
        rt.qemu_flush = env->flush_translations;
        rt.env.flush_translations = request_flush;
    }
    return &rt.env;
}

void instr_runtime_start(void)
{
    instr_host_seal();
    instr_events_seal();
    rt.started = true;
}

void instr_runtime_stop(void)
{
    pthread_mutex_lock(&rt.lock);
    __atomic_store_n(&rt.exiting, true, __ATOMIC_RELAXED);
    __atomic_store_n(&rt.unload_done, NULL, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&rt.lock);
}

/* ---- control thread ---- */

/*
 * dlopen gives a library already open the same handle: one set of its
 * globals would serve two ids, each init overwriting the other's state.
 */
static int check_not_loaded(const char *path, struct qtrace_err *err)
{
    void *dl = dlopen(path, RTLD_NOW | RTLD_NOLOAD | RTLD_LOCAL);
    size_t i, n = instr_n_libs;

    if (!dl) {
        return 0;
    }
    for (i = 0; i < n; i++) {
        if (instr_libs[i].dl == dl &&
            __atomic_load_n(&instr_libs[i].state, __ATOMIC_ACQUIRE) !=
            INSTR_LIB_UNLOADED) {
            dlclose(dl);
            qtrace_err_set(err, "instr=%s: already loaded as id %u (one "
                           "copy of a library per process: load a copy "
                           "under another name)", path,
                           instr_libs[i].index);
            return -1;
        }
    }
    dlclose(dl);
    return 0;
}

static void free_spec(struct instr_spec *spec)
{
    int i;

    if (!spec) {
        return;
    }
    for (i = 0; spec->argv && i < spec->argc; i++) {
        free(spec->argv[i]);
    }
    free(spec->argv);
    free(spec->path);
    free(spec);
}

/* A copy of path and argv, kept for the library's life (as instr=). */
static struct instr_spec *copy_spec(const char *path, int argc, char **argv)
{
    struct instr_spec *spec = calloc(1, sizeof(*spec));
    int i;

    if (!spec || !(spec->path = strdup(path)) ||
        !(spec->argv = calloc((size_t)argc + 1, sizeof(char *)))) {
        free_spec(spec);
        return NULL;
    }
    for (i = 0; i < argc; i++) {
        spec->argv[i] = strdup(argv[i]);
        if (!spec->argv[i]) {
            free_spec(spec);
            return NULL;
        }
        spec->argc = i + 1;
    }
    return spec;
}

int instr_runtime_load(const char *path, int argc, char **argv,
                       unsigned int *id, struct qtrace_err *err)
{
    struct instr_spec *spec;
    struct instr_lib *lib;
    size_t slot = instr_n_libs;
    int ret;

    if (!rt.qemu_flush) {
        qtrace_err_set(err, "%s: the plugin cannot host libraries", path);
        return -1;
    }
    if (slot >= INSTR_MAX_LIBS) {
        qtrace_err_set(err, "%s: at most %d libraries per run (ids are not "
                       "reused)", path, INSTR_MAX_LIBS);
        return -1;
    }
    if (qi_layer_export_api(err) < 0 || check_not_loaded(path, err) < 0) {
        return -1;
    }
    spec = copy_spec(path, argc, argv);
    if (!spec) {
        qtrace_err_set(err, "%s: out of memory", path);
        return -1;
    }
    lib = &instr_libs[slot];
    on_control_call = true;
    ret = instr_lib_open(lib, spec, &rt.env, err);
    on_control_call = false;
    if (ret < 0) {
        instr_lib_discard(lib);
        free_spec(spec);
        return -1;
    }
    /* Publish: the slot is complete before a vCPU can count it. */
    __atomic_store_n(&instr_n_libs, slot + 1, __ATOMIC_RELEASE);
    /* Code translated before has none of its exec_* callbacks. */
    on_control_call = true;
    request_flush();
    on_control_call = false;
    *id = lib->index;
    return 0;
}

int instr_runtime_unload(unsigned int id, void (*done)(void *ctx), void *ctx,
                         struct qtrace_err *err)
{
    struct instr_lib *lib;
    uint64_t gen;

    if (id == 0 || id > instr_n_libs) {
        qtrace_err_set(err, "%u: no library has this id", id);
        return -1;
    }
    lib = &instr_libs[id - 1];
    if (__atomic_load_n(&lib->state, __ATOMIC_ACQUIRE) != INSTR_LIB_LOADED) {
        qtrace_err_set(err, "%u: %s is already unloaded", id, lib->path);
        return -1;
    }
    pthread_mutex_lock(&rt.lock);
    if (rt.unload_done) {
        pthread_mutex_unlock(&rt.lock);
        qtrace_err_set(err, "%u: another unload is waiting for its "
                       "quiescent point", id);
        return -1;
    }
    instr_host_clear(lib);
    /* The generation is asked after the hooks are cleared. */
    gen = __atomic_add_fetch(&rt.asked_gen, 1, __ATOMIC_ACQ_REL);
    lib->unload_gen = gen;
    rt.unload_ctx = ctx;
    __atomic_store_n(&rt.unload_done, done, __ATOMIC_RELEASE);
    __atomic_store_n(&lib->state, INSTR_LIB_UNLOADING, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&rt.lock);
    return 0;
}

int instr_runtime_info(unsigned int id, const char **path, const char **api,
                       const char **state)
{
    const struct instr_lib *lib;

    if (id == 0 || id > instr_libs_count()) {
        return -1;
    }
    lib = &instr_libs[id - 1];
    *path = lib->path;
    *api = lib->qi ? "qemu-instr" : "qtrace";
    switch (__atomic_load_n(&lib->state, __ATOMIC_ACQUIRE)) {
    case INSTR_LIB_LOADED:
        *state = "loaded";
        break;
    case INSTR_LIB_UNLOADING:
        *state = "unloading";
        break;
    default:
        *state = "unloaded";
        break;
    }
    return 0;
}
