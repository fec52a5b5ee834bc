/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * One loaded instrumentation library as the host keeps it: shared between
 * the loader (instr-load.c) and the host calls (instr-host.c).
 */
#ifndef QTRACE_PLUGIN_INSTR_LIB_H
#define QTRACE_PLUGIN_INSTR_LIB_H

#include "qtrace/instrument.h"

#define INSTR_MAX_LIBS 16

struct instr_lib {
    struct qtrace_instr_host host;      /* first: the library's handle */
    const char *path;
    uint32_t index;                     /* 1 + place among instr= */
    void *dl;
    void (*fini)(void);
    bool registering;                   /* inside qtrace_instr_init */
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

/* The libraries loaded, in load order; set once at install. */
extern struct instr_lib instr_libs[INSTR_MAX_LIBS];
extern size_t instr_n_libs;

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
