/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Loading instrumentation libraries (instr.h): dlopen, which API the
 * library speaks (qtrace's, or qemu-instr's through qi/), the API version
 * check, and the init call, guarded against a crash. Any refusal unloads
 * what was loaded so far. Install thread, or the control thread for a
 * library loaded at run time (instr-runtime.c).
 */
#include <dlfcn.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "instr.h"
#include "instr-lib.h"
#include "qi/qi-layer.h"

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
                       "library must use QTRACE_INSTR_DECLARE(), or export "
                       "qi_init)", lib->path);
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

/* ---- running an init function, guarded against a crash ---- */

static sigjmp_buf guard_jump;
static volatile sig_atomic_t guard_signal;
static pthread_t guard_thread;          /* the thread running the call */

/* The signals a crashing init raises in the calling thread. */
static const int guarded_signals[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE };
#define N_GUARDED (sizeof(guarded_signals) / sizeof(guarded_signals[0]))

/* The handlers in force before the guard (QEMU's own). */
static struct sigaction guard_saved[N_GUARDED];

static void restore_handlers(void)
{
    size_t i;

    for (i = 0; i < N_GUARDED; i++) {
        sigaction(guarded_signals[i], &guard_saved[i], NULL);
    }
}

/*
 * The handlers are process-wide, and at run time vCPU threads run
 * meanwhile (QEMU user mode takes SIGSEGV for its own page protection):
 * a signal of another thread goes back to QEMU's handler, which gets it
 * when the faulting instruction runs again (or at once, for one sent).
 */
static void init_crashed(int sig, siginfo_t *info, void *uc)
{
    (void)uc;
    if (!pthread_equal(pthread_self(), guard_thread)) {
        restore_handlers();
        if (info && info->si_code <= 0) {
            pthread_kill(pthread_self(), sig);
        }
        return;
    }
    guard_signal = sig;
    siglongjmp(guard_jump, 1);
}

static const char *signal_name(int sig)
{
    switch (sig) {
    case SIGSEGV: return "SIGSEGV";
    case SIGBUS: return "SIGBUS";
    case SIGILL: return "SIGILL";
    case SIGFPE: return "SIGFPE";
    default: return "signal";
    }
}

/*
 * call(ctx) with temporary handlers for the crash signals, QEMU's own
 * restored afterwards. Returns 0, or the signal that ended the call
 * (what the library did before it stays done; the caller unloads it).
 * One guarded call at a time: install, then the control thread only.
 */
static int call_guarded(void (*call)(void *), void *ctx)
{
    struct sigaction crash;
    sigset_t crashes, mask;
    size_t i;
    volatile int sig = 0;

    memset(&crash, 0, sizeof(crash));
    crash.sa_sigaction = init_crashed;
    sigemptyset(&crash.sa_mask);
    crash.sa_flags = SA_NODEFER | SA_SIGINFO;
    sigemptyset(&crashes);
    guard_thread = pthread_self();
    for (i = 0; i < N_GUARDED; i++) {
        sigaction(guarded_signals[i], NULL, &guard_saved[i]);
        sigaddset(&crashes, guarded_signals[i]);
    }
    for (i = 0; i < N_GUARDED; i++) {
        sigaction(guarded_signals[i], &crash, NULL);
    }
    /*
     * The control thread blocks every signal: a fault it cannot take
     * would kill the process instead of reaching the handler.
     */
    pthread_sigmask(SIG_UNBLOCK, &crashes, &mask);
    guard_signal = 0;
    if (sigsetjmp(guard_jump, 1) == 0) {
        call(ctx);
    } else {
        sig = guard_signal;
    }
    pthread_sigmask(SIG_SETMASK, &mask, NULL);
    restore_handlers();
    return sig;
}

/* What a qtrace-API init call needs, and what it returned. */
struct qtrace_init_call {
    instr_init_fn init;
    struct instr_lib *lib;
    const struct instr_spec *spec;
    char *why;
    int ret;
};

static void call_qtrace_init(void *ctx)
{
    struct qtrace_init_call *c = ctx;

    c->ret = c->init(&c->lib->host, c->spec->argc,
                     (const char **)c->spec->argv, c->why);
}

/* ---- the two APIs ---- */

/* Which API lib speaks: 1 qtrace's, 2 qemu-instr's; -1 with err. */
static int pick_api(struct instr_lib *lib, struct qtrace_err *err)
{
    bool qtrace = dlsym(lib->dl, "qtrace_instr_api_version") ||
                  dlsym(lib->dl, "qtrace_instr_init");
    bool qi = dlsym(lib->dl, "qi_init") != NULL;

    if (qtrace && qi) {
        qtrace_err_set(err, "instr=%s: exports both qtrace_instr_init and "
                       "qi_init (a library speaks one API)", lib->path);
        return -1;
    }
    if (qi) {
        return 2;
    }
    if (!qtrace && dlsym(lib->dl, "qi_fini")) {
        qtrace_err_set(err, "instr=%s: no qi_init (a qemu-instr library "
                       "must export it)", lib->path);
        return -1;
    }
    return 1;
}

/* A qemu-instr library: the qi layer registers, then qi_init runs. */
static int init_qi(struct instr_lib *lib, const struct instr_spec *spec,
                   const struct instr_env *env, struct qtrace_err *err)
{
    int sig;

    instr_host_fill(lib, env);
    lib->registering = true;
    if (qi_layer_attach(lib, spec, env, err) < 0) {
        lib->registering = false;
        return -1;
    }
    sig = call_guarded(qi_layer_call_init, NULL);
    lib->registering = false;
    if (sig) {
        qtrace_err_set(err, "instr=%s: qi_init crashed (%s)", spec->path,
                       signal_name(sig));
        qi_layer_detach();
        return -1;
    }
    lib->fini = qi_layer_fini;
    return 0;
}

static int init_qtrace(struct instr_lib *lib, const struct instr_spec *spec,
                       const struct instr_env *env, struct qtrace_err *err)
{
    char why[QTRACE_INSTR_ERRMSG_MAX + 1] = "";
    struct qtrace_init_call call = { .lib = lib, .spec = spec, .why = why };
    int ret, sig;

    if (check_version(lib, err) < 0) {
        return -1;
    }
    call.init = (instr_init_fn)dlsym(lib->dl, "qtrace_instr_init");
    if (!call.init) {
        qtrace_err_set(err, "instr=%s: no qtrace_instr_init", spec->path);
        return -1;
    }
    instr_host_fill(lib, env);
    lib->registering = true;
    sig = call_guarded(call_qtrace_init, &call);
    lib->registering = false;
    if (sig) {
        qtrace_err_set(err, "instr=%s: qtrace_instr_init crashed (%s)",
                       spec->path, signal_name(sig));
        return -1;
    }
    ret = call.ret;
    lib->fini = (void (*)(void))dlsym(lib->dl, "qtrace_instr_fini");
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

int instr_lib_open(struct instr_lib *lib, const struct instr_spec *spec,
                   const struct instr_env *env, struct qtrace_err *err)
{
    int api;

    lib->path = spec->path;
    lib->index = (uint32_t)(lib - instr_libs) + 1;
    lib->state = INSTR_LIB_LOADED;
    /* Local: two libraries may both define functions of the same name. */
    lib->dl = dlopen(spec->path, RTLD_NOW | RTLD_LOCAL);
    if (!lib->dl) {
        qtrace_err_set(err, "instr=%s: %s", spec->path, dlerror());
        return -1;
    }
    api = pick_api(lib, err);
    if (api < 0) {
        return -1;
    }
    lib->qi = api == 2;
    return api == 2 ? init_qi(lib, spec, env, err) :
                      init_qtrace(lib, spec, env, err);
}

void instr_lib_discard(struct instr_lib *lib)
{
    if (lib->dl) {
        dlclose(lib->dl);
    }
    instr_events_release(lib);
    memset(lib, 0, sizeof(*lib));
}

static void unload_all(void)
{
    size_t i;

    qi_layer_detach();
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
    if (n > 0 && qi_layer_export_api(err) < 0) {
        return -1;
    }
    /* The libraries get the flush that is safe at run time too. */
    env = instr_runtime_setup(env);
    for (i = 0; i < n; i++) {
        instr_n_libs = i + 1;
        if (instr_lib_open(&instr_libs[i], &specs[i], env, err) < 0) {
            instr_n_libs = i;
            instr_lib_discard(&instr_libs[i]);
            instr_fini_all();
            unload_all();
            return -1;
        }
    }
    return 0;
}

void instr_fini_all(void)
{
    size_t i, n = instr_libs_count();

    /* An unload still waiting for its quiescent point gives up. */
    instr_runtime_stop();
    for (i = 0; i < n; i++) {
        /* Once only: QEMU's atexit and a fatal signal may both get here. */
        void (*fini)(void) = __atomic_exchange_n(&instr_libs[i].fini, NULL,
                                                 __ATOMIC_ACQ_REL);

        if (fini) {
            fini();
        }
    }
}
