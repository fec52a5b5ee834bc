/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The qemu-instr layer on the qtrace host (qi-layer.h): at translation,
 * each memory access the decoder finds raises guest_mem_before_trans,
 * and _gen_exec asks the host for a memory callback on that instruction
 * and direction only; at execution, vCPU, system call and memory events
 * go to the callbacks set. Hooks run on vCPU threads; the execution-time
 * ones only load a callback pointer before calling it.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qemu-instr/control.h"
#include "../../../qemu/qemu-plugin.h"
#include "qi-decode.h"
#include "qi-layer.h"
#include "qi-state.h"

typedef void (*qi_cpu_fn)(QICPU *cpu);
typedef void (*qi_trans_fn)(QICPU *cpu, QITCGv_cpu tcg_cpu, QITCGv vaddr,
                            uint8_t info);
typedef void (*qi_exec_fn)(QICPU *cpu, uint64_t vaddr, uint8_t info);
typedef void (*qi_syscall_fn)(QICPU *cpu, uint64_t num, uint64_t a1,
                              uint64_t a2, uint64_t a3, uint64_t a4,
                              uint64_t a5, uint64_t a6, uint64_t a7,
                              uint64_t a8);
typedef void (*qi_syscall_ret_fn)(QICPU *cpu, uint64_t num, uint64_t ret);

#define INSN_BYTES_MAX 16       /* longer than any instruction decoded */

/* The access a guest_mem_before_trans callback is about; its handles. */
struct trans_access {
    struct qtrace_instr_tb *tb;
    uint32_t insn;
    uint64_t pc;
    unsigned int *asked;        /* directions already given a callback */
};

/* The access being raised on this thread, NULL outside the callback. */
static __thread struct trans_access *current_access;

/* The one qemu-instr library; argv is kept, as a main()'s would be. */
static struct {
    void *dl;
    void (*init)(int argc, const char **argv);
    void (*fini)(void);
    const char **argv;          /* path, then the instr-arg values */
    int argc;
} qi_lib;

/* ---- execution time: no lock, no allocation ---- */

static void vcpu_started(unsigned int vcpu, void *data)
{
    qi_cpu_fn cb = (qi_cpu_fn)qi_state_cb(QI_EVENT_ID_GUEST_CPU_ENTER);

    (void)data;
    if (cb) {
        cb(qi_cpu_of(vcpu));
    }
}

static void vcpu_stopped(unsigned int vcpu, void *data)
{
    qi_cpu_fn cb = (qi_cpu_fn)qi_state_cb(QI_EVENT_ID_GUEST_CPU_EXIT);

    (void)data;
    if (cb) {
        cb(qi_cpu_of(vcpu));
    }
}

static void syscall_entered(unsigned int vcpu, int64_t num,
                            const uint64_t a[8], void *data)
{
    qi_syscall_fn cb =
        (qi_syscall_fn)qi_state_cb(QI_EVENT_ID_GUEST_USER_SYSCALL);

    (void)data;
    if (cb) {
        cb(qi_cpu_of(vcpu), (uint64_t)num, a[0], a[1], a[2], a[3], a[4],
           a[5], a[6], a[7]);
    }
}

static void syscall_returned(unsigned int vcpu, int64_t num, int64_t ret,
                             void *data)
{
    qi_syscall_ret_fn cb =
        (qi_syscall_ret_fn)qi_state_cb(QI_EVENT_ID_GUEST_USER_SYSCALL_RET);

    (void)data;
    if (cb) {
        cb(qi_cpu_of(vcpu), (uint64_t)num, (uint64_t)ret);
    }
}

/*
 * An access of an instruction _gen_exec asked for; udata holds the
 * directions asked (QTRACE_INSTR_LOADS/STORES bits). QEMU 7.2 does not
 * filter by direction as asked (a loads-only callback was seen to get
 * the stores), so the filter is here.
 */
static void mem_executed(unsigned int vcpu, const struct qtrace_instr_mem *a,
                         void *udata)
{
    qi_exec_fn cb = (qi_exec_fn)qi_state_cb(QI_EVENT_ID_GUEST_MEM_BEFORE_EXEC);
    unsigned int asked = (unsigned int)(uintptr_t)udata;
    unsigned int shift = 0;

    if (!cb || !(asked & (a->store ? QTRACE_INSTR_STORES :
                                     QTRACE_INSTR_LOADS))) {
        return;
    }
    while (shift < 4 && (1u << shift) < a->size) {
        shift++;
    }
    cb(qi_cpu_of(vcpu), a->vaddr,
       qi_mem_info_make(shift, a->store, a->sign_extended, a->big_endian));
}

/* ---- translation time ---- */

/* Noted here, asked of QEMU once the instruction's accesses are raised. */
void qi_host_gen_exec(QITCGv vaddr, uint8_t info)
{
    struct trans_access *a = current_access;

    /* Only for the access being raised: its block exists only now. */
    if (a && (QITCGv)a == vaddr) {
        *a->asked |= qi_mem_info_is_store(info) ? QTRACE_INSTR_STORES :
                                                  QTRACE_INSTR_LOADS;
    }
}

uint64_t qi_host_trans_pc(QITCGv vaddr)
{
    const struct trans_access *a = current_access;

    return a && (QITCGv)a == vaddr ? a->pc : 0;
}

/* QEMU's disassembly of instruction i, to be freed (NULL if none). */
static char *qemu_text(struct qtrace_instr_tb *tb, uint32_t i)
{
    struct qemu_plugin_insn *insn = instr_host_insn(tb, i);

    return insn ? qemu_plugin_insn_disas(insn) : NULL;
}

/*
 * What to ask QEMU for: the directions asked from QEMU 9.0 (plugin API
 * 2) on; on 7.2 both, as its filter cannot be trusted (mem_executed
 * filters).
 */
static enum qtrace_instr_rw qemu_rw(unsigned int asked)
{
    return qi_state.host->qemu_plugin_api >= 2 ?
           (enum qtrace_instr_rw)asked : QTRACE_INSTR_LOADS_STORES;
}

/* Raise guest_mem_before_trans for each access of instruction i. */
static void raise_insn(qi_trans_fn cb, struct qtrace_instr_tb *tb,
                       uint32_t i)
{
    const struct qtrace_instr_host *h = qi_state.host;
    uint8_t code[INSN_BYTES_MAX], infos[QI_DECODE_MAX];
    size_t len = h->insn_code(tb, i, code, sizeof(code));
    unsigned int asked = 0;
    struct trans_access a = {
        .tb = tb, .insn = i, .pc = h->insn_vaddr(tb, i), .asked = &asked,
    };
    char *text = qi_decode_wants_text() ? qemu_text(tb, i) : NULL;
    size_t n = qi_decode_accesses(code, len, a.pc, text, infos);
    size_t k;

    free(text);
    for (k = 0; k < n; k++) {
        current_access = &a;
        cb(QI_CPU_TRANSLATOR, (QITCGv_cpu)&a, (QITCGv)&a, infos[k]);
        current_access = NULL;
    }
    if (asked) {
        /* One callback per instruction, whatever its accesses asked. */
        h->exec_mem(h, tb, i, qemu_rw(asked), mem_executed,
                    (void *)(uintptr_t)asked);
    }
}

static void block_translated(struct qtrace_instr_tb *tb, void *data)
{
    qi_trans_fn cb =
        (qi_trans_fn)qi_state_cb(QI_EVENT_ID_GUEST_MEM_BEFORE_TRANS);
    uint32_t i, n;

    (void)data;
    /* None or _nop: nothing decoded, nothing asked of QEMU. */
    if (!cb || cb == qi_event_guest_mem_before_trans_nop) {
        return;
    }
    n = qi_state.host->tb_n_insns(tb);
    for (i = 0; i < n; i++) {
        raise_insn(cb, tb, i);
    }
}

/* ---- loading ---- */

int qi_layer_export_api(struct qtrace_err *err)
{
    static void *self;
    Dl_info where;

    if (self) {
        return 0;
    }
    /*
     * QEMU opened libqtrace.so RTLD_LOCAL: a library opened later cannot
     * bind to qi_ctrl_event_set and the rest until it is made global.
     */
    if (!dladdr((void *)qi_ctrl_event_set, &where) || !where.dli_fname) {
        qtrace_err_set(err, "instr=: cannot find libqtrace.so's own path");
        return -1;
    }
    self = dlopen(where.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_GLOBAL);
    if (!self) {
        qtrace_err_set(err, "instr=: %s", dlerror());
        return -1;
    }
    return 0;
}

static int copy_args(const char *path, int argc, char **argv)
{
    int i;

    qi_lib.argv = calloc((size_t)argc + 2, sizeof(*qi_lib.argv));
    if (!qi_lib.argv) {
        return -1;
    }
    qi_lib.argv[0] = path;
    for (i = 0; i < argc; i++) {
        qi_lib.argv[i + 1] = argv[i];
    }
    qi_lib.argc = argc + 1;
    return 0;
}

int qi_layer_attach(struct instr_lib *lib, const struct instr_spec *spec,
                    const struct instr_env *env, struct qtrace_err *err)
{
    const struct qtrace_instr_host *h = &lib->host;

    if (qi_state.host) {
        qtrace_err_set(err, "instr=%s: a second qemu-instr library (the "
                       "qemu-instr API has one set of event callbacks per "
                       "run)", lib->path);
        return -1;
    }
    if (copy_args(lib->path, spec->argc, spec->argv) < 0) {
        qtrace_err_set(err, "instr=%s: out of memory", lib->path);
        return -1;
    }
    qi_lib.dl = lib->dl;
    qi_lib.init = (void (*)(int, const char **))dlsym(lib->dl, "qi_init");
    qi_lib.fini = (void (*)(void))dlsym(lib->dl, "qi_fini");
    qi_decode_setup(env->target, env->system_mode);
    memset(&qi_state, 0, sizeof(qi_state));
    qi_state.host = h;
    qi_state.lib_index = lib->index;
    qi_state.emit_trans = env->emit_user_trans;
    qi_state.flush = env->flush_translations;
    /* Every hook, whatever qi_init sets: callbacks may change later. */
    h->on_vcpu_init(h, vcpu_started, NULL);
    h->on_vcpu_exit(h, vcpu_stopped, NULL);
    h->on_tb_trans(h, block_translated, NULL);
    if (!env->system_mode) {
        h->on_syscall(h, syscall_entered, NULL);
        h->on_syscall_ret(h, syscall_returned, NULL);
    }
    return 0;
}

/*
 * What the library prints reaches its file even if QEMU ends with _exit
 * (user mode does, on exit_group), which skips stdio's own flush.
 */
static void flush_stdio(void)
{
    fflush(stdout);
    fflush(stderr);
}

void qi_layer_call_init(void *ctx)
{
    (void)ctx;
    qi_lib.init(qi_lib.argc, qi_lib.argv);
    flush_stdio();
    __atomic_store_n(&qi_state.started, true, __ATOMIC_RELEASE);
}

void qi_layer_fini(void)
{
    unsigned int id;

    if (qi_lib.fini) {
        qi_lib.fini();
        flush_stdio();
    }
    /* "Reset by QEMU" in the API: vCPUs may still run for a moment. */
    for (id = 1; id < QI_EVENT_ID_COUNT; id++) {
        __atomic_store_n(&qi_state.cb[id], NULL, __ATOMIC_RELEASE);
        __atomic_store_n(&qi_state.trace_on[id], false, __ATOMIC_RELEASE);
    }
}

void qi_layer_detach(void)
{
    memset(&qi_state, 0, sizeof(qi_state));
    free(qi_lib.argv);
    memset(&qi_lib, 0, sizeof(qi_lib));
}
