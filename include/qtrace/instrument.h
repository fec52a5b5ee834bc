/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The qtrace instrumentation API: what a user library loaded into
 * libqtrace.so (plugin option instr=PATH, qtrace record --instr PATH) sees.
 * The same source builds and runs on every QEMU qtrace supports; where a
 * QEMU cannot give something, the call says so by its return value.
 *
 * A library:
 *   - puts QTRACE_INSTR_DECLARE(); in one source file (the host reads the
 *     API version it was built for before calling anything),
 *   - exports qtrace_instr_init (required) and qtrace_instr_fini
 *     (optional), with the prototypes below,
 *   - registers its callbacks from qtrace_instr_init through the host.
 *
 * Translation-time callbacks decide what costs anything at execution
 * time: an execution-time callback exists only for the blocks,
 * instructions and accesses a library asked for. See docs/instrument.md
 * for threads, what may be called where, and the cost.
 */
#ifndef QTRACE_INSTRUMENT_H
#define QTRACE_INSTRUMENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * A new major breaks libraries built for the older one (the host refuses
 * a library whose major differs from its own); a new minor only adds
 * members at the end of struct qtrace_instr_host and of the structures
 * the host passes (1.1: function callbacks, image, is_io and device).
 */
#define QTRACE_INSTR_API_MAJOR 1
#define QTRACE_INSTR_API_MINOR 1
#define QTRACE_INSTR_API_VERSION \
    ((uint32_t)QTRACE_INSTR_API_MAJOR << 16 | QTRACE_INSTR_API_MINOR)

/* Return values of the host calls (negative: nothing was done). */
#define QTRACE_INSTR_OK 0
#define QTRACE_INSTR_EINVAL (-1)    /* bad argument, or called at the
                                       wrong time (see each call) */
#define QTRACE_INSTR_ENOTSUP (-2)   /* this QEMU cannot give it */
#define QTRACE_INSTR_ENOENT (-3)    /* no such symbol or register */
#define QTRACE_INSTR_EFAULT (-4)    /* guest memory not readable */

/* A block being translated; valid only during the tb_trans callback. */
struct qtrace_instr_tb;
struct qtrace_instr_events;     /* a library's own events (end of file) */

/* One guest memory access, as given to a memory callback. */
struct qtrace_instr_mem {
    uint64_t vaddr;
    uint64_t value;             /* if has_value: the value loaded or stored,
                                   zero-extended (QEMU 9.2+ only) */
    uint64_t paddr;             /* if has_paddr: physical address (system
                                   mode, RAM only) */
    uint8_t size;               /* bytes */
    bool store;
    bool sign_extended;
    bool big_endian;
    bool has_value;
    bool has_paddr;
    /* API 1.1: */
    bool is_io;                 /* system mode: the access reached a
                                   device (MMIO), not RAM */
    const char *device;         /* if is_io: the device's memory region
                                   name as QEMU has it ("hpet"); else NULL.
                                   Valid until fini */
};

/* Which accesses a memory callback wants. */
enum qtrace_instr_rw {
    QTRACE_INSTR_LOADS = 1,
    QTRACE_INSTR_STORES = 2,
    QTRACE_INSTR_LOADS_STORES = 3,
};

/*
 * flags of exec_tb and exec_insn: the callback calls read_reg (QEMU then
 * saves the registers before it; without, read_reg may fail).
 */
#define QTRACE_INSTR_READS_REGS 1u

typedef void (*qtrace_instr_vcpu_fn)(unsigned int vcpu, void *data);
typedef void (*qtrace_instr_tb_trans_fn)(struct qtrace_instr_tb *tb,
                                         void *data);
/* Block or instruction executed; udata is what was passed at translation. */
typedef void (*qtrace_instr_exec_fn)(unsigned int vcpu, void *udata);
typedef void (*qtrace_instr_mem_fn)(unsigned int vcpu,
                                    const struct qtrace_instr_mem *access,
                                    void *udata);
/* args: the 8 system call arguments QEMU passes. */
typedef void (*qtrace_instr_syscall_fn)(unsigned int vcpu, int64_t num,
                                        const uint64_t args[8], void *data);
typedef void (*qtrace_instr_syscall_ret_fn)(unsigned int vcpu, int64_t num,
                                            int64_t ret, void *data);

/*
 * API 1.1: a function call or return as qtrace's call tracker sees it
 * (docs/calls.md: call, return and tail-call instructions and a shadow
 * stack per vCPU; the same events as the func_entry / func_exit records).
 */
struct qtrace_instr_func {
    uint64_t entry;             /* the function's first address */
    uint64_t from;              /* entry: the call or jump instruction
                                   (0: none, a signal handler); exit: 0 */
    uint64_t to;                /* exit: where execution goes on (0 at
                                   the vCPU's end); entry: 0 */
    uint64_t return_addr;       /* the frame's return address, after its
                                   call instruction (0: unknown) */
    uint64_t icount;            /* the vCPU's instruction count then */
    const char *name;           /* symbol holding entry, as the symbol
                                   call finds it; NULL if none */
    uint32_t depth;             /* the frame's depth, 1: outermost */
    uint8_t kind;               /* QTRACE_INSTR_FUNC_* below */
};

/* kind of an entry */
#define QTRACE_INSTR_FUNC_CALL 0        /* a call instruction */
#define QTRACE_INSTR_FUNC_TAIL 1        /* a tail call: replaces the frame */
#define QTRACE_INSTR_FUNC_SIGNAL 2      /* a signal handler QEMU entered */
/* kind of an exit */
#define QTRACE_INSTR_FUNC_RETURN 0      /* a return instruction */
#define QTRACE_INSTR_FUNC_UNWOUND 1     /* left without return (longjmp) */
#define QTRACE_INSTR_FUNC_REPLACED 2    /* replaced by a tail call */
#define QTRACE_INSTR_FUNC_END 3         /* still open when the vCPU ended */

typedef void (*qtrace_instr_func_fn)(unsigned int vcpu,
                                     const struct qtrace_instr_func *func,
                                     void *data);

/*
 * The host's calls. One per library: every call takes it as first
 * argument so the host knows whose callback it registers.
 */
struct qtrace_instr_host {
    uint32_t api_version;       /* the host's QTRACE_INSTR_API_VERSION */
    const char *target;         /* QEMU target name: "x86_64", "aarch64" */
    bool system_mode;           /* false: user mode (syscalls exist) */
    int qemu_plugin_api;        /* QEMU plugin API level (1 on 7.2) */

    /*
     * Registration, from qtrace_instr_init only (later: EINVAL). One
     * callback of each kind per library; data is passed back as is.
     */
    int (*on_vcpu_init)(const struct qtrace_instr_host *h,
                        qtrace_instr_vcpu_fn fn, void *data);
    int (*on_vcpu_exit)(const struct qtrace_instr_host *h,
                        qtrace_instr_vcpu_fn fn, void *data);
    int (*on_tb_trans)(const struct qtrace_instr_host *h,
                       qtrace_instr_tb_trans_fn fn, void *data);
    /* User mode only (system mode: ENOTSUP). */
    int (*on_syscall)(const struct qtrace_instr_host *h,
                      qtrace_instr_syscall_fn fn, void *data);
    int (*on_syscall_ret)(const struct qtrace_instr_host *h,
                          qtrace_instr_syscall_ret_fn fn, void *data);

    /* The block being translated: from the tb_trans callback only. */
    uint64_t (*tb_vaddr)(const struct qtrace_instr_tb *tb);
    uint32_t (*tb_size)(const struct qtrace_instr_tb *tb);     /* bytes */
    uint32_t (*tb_n_insns)(const struct qtrace_instr_tb *tb);
    uint64_t (*insn_vaddr)(const struct qtrace_instr_tb *tb, uint32_t i);
    uint32_t (*insn_size)(const struct qtrace_instr_tb *tb, uint32_t i);
    /* Copies up to len bytes of instruction i's code; returns the count. */
    size_t (*insn_code)(const struct qtrace_instr_tb *tb, uint32_t i,
                        void *dest, size_t len);

    /*
     * Execution-time callbacks of the block being translated: asked from
     * the tb_trans callback, they exist for this block only.
     */
    int (*exec_tb)(const struct qtrace_instr_host *h,
                   struct qtrace_instr_tb *tb, unsigned int flags,
                   qtrace_instr_exec_fn fn, void *udata);
    int (*exec_insn)(const struct qtrace_instr_host *h,
                     struct qtrace_instr_tb *tb, uint32_t i,
                     unsigned int flags, qtrace_instr_exec_fn fn,
                     void *udata);
    int (*exec_mem)(const struct qtrace_instr_host *h,
                    struct qtrace_instr_tb *tb, uint32_t i,
                    enum qtrace_instr_rw rw, qtrace_instr_mem_fn fn,
                    void *udata);

    /*
     * Guest symbol containing addr (user mode: the program's and loaded
     * libraries' ELF symbols). On OK, *name stays valid until fini.
     */
    int (*symbol)(uint64_t addr, const char **name, uint64_t *offset);
    /*
     * Read guest virtual memory of the running vCPU, from an execution
     * callback. ENOTSUP on QEMU before 9.2 (plugin API 1 has no call).
     */
    int (*read_mem)(uint64_t vaddr, void *dest, size_t len);
    /*
     * Read the register called name (GDB's name: "rip", "x0") of the
     * running vCPU, from an execution callback; returns its size in
     * bytes (up to len copied, target byte order). ENOTSUP before
     * QEMU 9.0.
     */
    int (*read_reg)(const char *name, void *dest, size_t len);
    /*
     * Write a user_event record (lib, id, values[0..n-1], n <= 4) into the
     * trace of vcpu, which must be the vCPU running the calling
     * execution or vCPU callback. Returns OK, or ENOTSUP when user_event
     * is not recorded (not selected by events=, or no native trace).
     * No lock, no allocation: callable per event.
     */
    int (*emit)(const struct qtrace_instr_host *h, unsigned int vcpu,
                uint32_t id, const uint64_t *values, unsigned int n);

    /*
     * API 1.1 (a library checks api_version before using them).
     * Function entries and exits, from qtrace_instr_init only, as
     * on_vcpu_init: registering either turns the call tracker on (one
     * callback per executed block while it runs), even when func_entry
     * and func_exit are not recorded. Called on the vCPU's thread, exits
     * innermost first. ENOTSUP when qtrace has no call decoder for the
     * target.
     */
    int (*on_func_entry)(const struct qtrace_instr_host *h,
                         qtrace_instr_func_fn fn, void *data);
    int (*on_func_exit)(const struct qtrace_instr_host *h,
                        qtrace_instr_func_fn fn, void *data);
    /*
     * API 1.1. The ELF file holding guest address addr, as the symbol
     * call knows it (user mode: the program): its host path and load
     * bias (run-time minus ELF address: 0 unless PIE). On OK, *path stays
     * valid until fini. ENOENT outside it; ENOTSUP in system mode.
     */
    int (*image)(uint64_t addr, const char **path, uint64_t *bias);

    /*
     * API 1.1: the library's own events, registered from
     * qtrace_instr_init only, once, before the trace's catalog is
     * written. EINVAL for a catalog the host cannot parse, a name
     * another library registered, or a second call.
     */
    int (*register_events)(const struct qtrace_instr_host *h,
                           const struct qtrace_instr_events *events);
    /*
     * Write the record of registered event (1..n_events) into the trace
     * of vcpu (the vCPU running the calling callback): payload holds
     * its arguments as the layout rule places them after the header,
     * len at least payload_bytes[event - 1]. OK, or ENOTSUP when
     * library events are not recorded (as user_event). No lock, no
     * allocation. The generated trace_LIB_EVENT() calls do this.
     */
    int (*emit_event)(const struct qtrace_instr_host *h, unsigned int vcpu,
                      uint32_t event, const void *payload, size_t len);
};

/* Refusal messages for the host, one line, when init returns non-zero. */
#define QTRACE_INSTR_ERRMSG_MAX 200

/*
 * Called once at plugin load, before the guest runs, or when the library
 * is loaded while the guest runs (control socket: instr-load). argv
 * holds the instr-arg values given after this library's instr= (or the
 * instr-load arguments). Return 0, or non-zero to refuse (QEMU then does
 * not start; at run time the library is not loaded); the host reports
 * errmsg if the library filled it.
 */
__attribute__((visibility("default")))
int qtrace_instr_init(const struct qtrace_instr_host *host, int argc,
                      const char **argv, char *errmsg);

/*
 * Called once at exit, after the last guest instruction, or at unload
 * (control socket: instr-unload) when no vCPU runs translated code
 * (optional).
 */
__attribute__((visibility("default")))
void qtrace_instr_fini(void);

/* The API version the library was built for; read before init. */
#define QTRACE_INSTR_DECLARE() \
    __attribute__((visibility("default"))) \
    const uint32_t qtrace_instr_api_version = QTRACE_INSTR_API_VERSION

/*
 * A library's own events (API 1.1), as qtrace-tracetool --instr=LIB
 * generates them from the library's trace-events file: its catalog
 * lines, each named LIB:EVENT, and the bytes each record's arguments
 * take. See docs/instrument.md, "The library's own events".
 */
struct qtrace_instr_events {
    const char *lib;                /* C identifier, at most 31 chars */
    const char *catalog;            /* trace-events lines, LIB:EVENT(...) */
    uint32_t n_events;              /* lines in catalog; index 1..n */
    const uint16_t *payload_bytes;  /* per event: fixed part after the
                                       16-byte record header */
};

#endif /* QTRACE_INSTRUMENT_H */
