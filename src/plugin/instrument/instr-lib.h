/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * One loaded instrumentation library as the host keeps it: shared between
 * the loader (instr-load.c) and the host calls (instr-host.c).
 */
#ifndef QTRACE_PLUGIN_INSTR_LIB_H
#define QTRACE_PLUGIN_INSTR_LIB_H

#include "qtrace/err.h"
#include "qtrace/instrument.h"

#define INSTR_MAX_LIBS 16

/* Where a library is in its life (instr-runtime.c moves it on). */
enum instr_lib_state {
    INSTR_LIB_LOADED,                   /* its hooks are called */
    INSTR_LIB_UNLOADING,                /* hooks cleared, awaiting the
                                           quiescent point */
    INSTR_LIB_UNLOADED,                 /* fini ran, dlclose'd */
};

struct instr_lib {
    struct qtrace_instr_host host;      /* first: the library's handle */
    const char *path;
    uint32_t index;                     /* its id: 1 + slot, never reused */
    void *dl;
    void (*fini)(void);
    bool registering;                   /* inside qtrace_instr_init */
    bool qi;                            /* speaks the qemu-instr API */
    int state;                          /* enum instr_lib_state; atomic */
    uint64_t unload_gen;                /* flush generation it waits for */
    qtrace_instr_vcpu_fn vcpu_init;
    void *vcpu_init_data;
    qtrace_instr_vcpu_fn vcpu_exit;
    void *vcpu_exit_data;
    qtrace_instr_tb_trans_fn tb_trans;
    void *tb_trans_data;
    qtrace_instr_syscall_fn syscall;
    void *syscall_data;
    qtrace_instr_syscall_ret_fn syscall_ret;
    void *syscall_ret_data;
    qtrace_instr_func_fn func_entry;
    void *func_entry_data;
    qtrace_instr_func_fn func_exit;
    void *func_exit_data;
    /* Its own events (instr-events.c): read per event, set in init. */
    char ev_lib[32];                    /* the name they go under */
    uint32_t ev_n;                      /* registered events, 0: none */
    uint16_t ev_first;                  /* catalog id of its event 1 */
    uint16_t *ev_payload;               /* per event: argument bytes */
    uint16_t *ev_size;                  /* per event: record bytes */
    char ev_why[160];                   /* why register_events refused */
};

/*
 * The libraries loaded, in load order. vCPU threads read them without a
 * lock: a slot is filled, then instr_n_libs is stored with release (read
 * it with instr_libs_count); a slot is never reused, and an unloaded
 * library's hooks are NULL.
 */
extern struct instr_lib instr_libs[INSTR_MAX_LIBS];
extern size_t instr_n_libs;

static inline size_t instr_libs_count(void)
{
    return __atomic_load_n(&instr_n_libs, __ATOMIC_ACQUIRE);
}

/*
 * Load and initialise lib (a free slot) from spec: dlopen, API, version,
 * init guarded against a crash (on the calling thread only). Returns 0,
 * or -1 with err; the caller then closes it with instr_lib_discard.
 */
struct instr_spec;
struct instr_env;
int instr_lib_open(struct instr_lib *lib, const struct instr_spec *spec,
                   const struct instr_env *env, struct qtrace_err *err);

/* Undo a refused instr_lib_open: dlclose, forget its events, zero it. */
void instr_lib_discard(struct instr_lib *lib);

/* Stop every hook of lib (unload): its callbacks are no longer called. */
void instr_host_clear(struct instr_lib *lib);

/*
 * After install: registration follows run-time rules (register_events
 * EINVAL, func callbacks only if the call tracker already calls the
 * libraries).
 */
void instr_host_seal(void);
bool instr_events_sealed(void);
void instr_events_seal(void);

/*
 * instr-runtime.c: keep a copy of env for libraries loaded later, and
 * return it with the flush that is safe from any thread (install).
 */
const struct instr_env *instr_runtime_setup(const struct instr_env *env);
/* Exit: unloads still waiting are dropped (fini comes from exit). */
void instr_runtime_stop(void);

/* Fill lib->host with the host's calls and what env says. */
struct instr_env;
void instr_host_fill(struct instr_lib *lib, const struct instr_env *env);

/* QEMU's handle of instruction i of tb, or NULL (translation time). */
struct qemu_plugin_insn;
struct qemu_plugin_insn *instr_host_insn(const struct qtrace_instr_tb *tb,
                                         uint32_t i);

/* The host calls of a library's own events (instr-events.c). */
void instr_events_setup(const struct instr_env *env);
int instr_events_register(const struct qtrace_instr_host *h,
                          const struct qtrace_instr_events *events);
int instr_events_emit(const struct qtrace_instr_host *h, unsigned int vcpu,
                      uint32_t event, const void *payload, size_t len);
/* Forget what lib registered (it is being unloaded). */
void instr_events_release(struct instr_lib *lib);
/* Forget every library's events (all are being unloaded). */
void instr_events_reset(void);

#endif /* QTRACE_PLUGIN_INSTR_LIB_H */
