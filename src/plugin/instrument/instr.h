/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Hosting user instrumentation libraries (include/qtrace/instrument.h)
 * inside the plugin: loading them at install and at run time (unloading
 * too), and the plugin's hooks that
 * hand QEMU's events to them. Each hook returns at once when no library
 * registered for its event.
 */
#ifndef QTRACE_PLUGIN_INSTR_H
#define QTRACE_PLUGIN_INSTR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "qtrace/err.h"
#include "../../qemu/qemu-plugin.h"
#include "../core/options.h"     /* struct instr_spec */

/* What the libraries are told about the running QEMU. */
struct instr_env {
    const char *target;
    bool system_mode;
    int qemu_api;
    bool device_names;  /* a memory callback may ask for device names */
    /*
     * Appends a user_event record to vcpu's stream (values has 4), or
     * NULL when user_event is not recorded. Called on vcpu's thread.
     */
    void (*emit_user)(unsigned int vcpu, uint32_t lib, uint32_t id,
                      const uint64_t values[4]);
    /*
     * Appends a user_event record to the translation records (time 0, no
     * vCPU), or NULL when user_event is not recorded. Translation time.
     */
    void (*emit_user_trans)(uint32_t lib, uint32_t id,
                            const uint64_t values[4]);
    /*
     * Has QEMU drop every translation, so that code runs under the
     * translation-time decisions taken from now on; asynchronous (the
     * running blocks end first). Any thread.
     */
    void (*flush_translations)(void);
    bool calls;         /* the call tracker can follow this target */
    /* Events of the plugin's catalog: library events take the next ids. */
    unsigned int builtin_events;
    /*
     * Appends a record of catalog id and size bytes whose arguments are
     * the len bytes at payload (the rest zero), or NULL when libraries'
     * events are not recorded. Called on vcpu's thread.
     */
    void (*emit_record)(unsigned int vcpu, uint16_t id, uint16_t size,
                        const void *payload, size_t len);
};

/*
 * Load and initialise every library, in order. Returns 0, or -1 with err
 * naming the library and why; the libraries loaded before are finished
 * and closed again, so the guest never runs half-instrumented.
 */
int instr_load_all(const struct instr_spec *specs, size_t n,
                   const struct instr_env *env, struct qtrace_err *err);

/*
 * The catalog lines of the libraries' own events, in registration order
 * (ids: builtin_events + 1, + 2...), to append to the plugin's catalog
 * before the trace's META is written; NULL when none registered.
 * *first and *n: the ids they take.
 */
const char *instr_events_catalog(unsigned int *first, unsigned int *n);

/*
 * Call the fini of every library still loaded, once, at exit (a second
 * call does nothing; an unloaded library had its fini at unload).
 */
void instr_fini_all(void);

/*
 * Install is over, the trace's catalog written: libraries loaded from
 * now on follow the run-time rules (docs/instrument.md, "Loading at run
 * time"). Install thread, last.
 */
void instr_runtime_start(void);

/*
 * Control thread: load and initialise the library at path with argv
 * (argc strings, copied) as instr= would, publish it, and have the
 * translations flushed by the next vCPU that passes instr_poll, so that
 * code translated before gets its exec_* callbacks. Returns 0 with *id
 * (never reused), or -1 with err (one line, as at install).
 */
int instr_runtime_load(const char *path, int argc, char **argv,
                       unsigned int *id, struct qtrace_err *err);

/*
 * Control thread: stop library id's hooks at once; at the quiescent
 * point after the next flush its fini runs, it is closed, and done(ctx)
 * is called (on a vCPU thread). Returns 0, or -1 with err (no such id,
 * already unloaded, another unload still waiting). At exit a waiting
 * unload is dropped: done is not called, fini comes from instr_fini_all.
 */
int instr_runtime_unload(unsigned int id, void (*done)(void *ctx), void *ctx,
                         struct qtrace_err *err);

/*
 * Library id (1, 2...): 0 with its path, API ("qtrace", "qemu-instr")
 * and state ("loaded", "unloading", "unloaded"); -1 past the last one.
 */
int instr_runtime_info(unsigned int id, const char **path, const char **api,
                       const char **state);

/*
 * Any thread once the guest runs: have the next vCPU that passes
 * instr_poll flush the translations (the plugin's reset callback then
 * runs at the quiescent point).
 */
void instr_runtime_request_flush(void);

/*
 * vCPU thread, outside translated code's hot path (system calls,
 * translation, idle, a record buffer's slow path): issue the flush the
 * control thread asked for. Costs two loads when nothing is asked.
 */
void instr_poll(void);

/*
 * From the plugin's QEMU reset callback (register_callbacks): the
 * quiescent point where unloaded libraries are finished and closed.
 */
void instr_quiescent(void);

/* Whether a thread is inside a library's vCPU or system call hook. */
bool instr_hooks_busy(void);

/* Hooks the plugin calls from its QEMU callbacks. */
void instr_vcpu_init(unsigned int vcpu);
void instr_vcpu_exit(unsigned int vcpu);
void instr_tb_trans(struct qemu_plugin_tb *tb);
void instr_syscall(unsigned int vcpu, int64_t num, const uint64_t args[8]);
void instr_syscall_ret(unsigned int vcpu, int64_t num, int64_t ret);

/*
 * Whether a library registered on_func_entry / on_func_exit: the plugin
 * then runs its call tracker, which hands each entry and exit to
 * instr_func_entry / instr_func_exit on the vCPU's thread (no lock, no
 * allocation there). The host fills func->name.
 */
bool instr_wants_func_entry(void);
bool instr_wants_func_exit(void);
struct qtrace_instr_func;
void instr_func_entry(unsigned int vcpu, struct qtrace_instr_func *func);
void instr_func_exit(unsigned int vcpu, struct qtrace_instr_func *func);

#endif /* QTRACE_PLUGIN_INSTR_H */
