/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The host's side of include/qtrace/instrument.h: registration, the
 * translation-time view of a block, execution-time callbacks registered
 * with QEMU only where a library asked, and the services a library calls.
 */
#include <glib.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "qtrace/symbols.h"
#include "../../qemu/qemu-compat.h"
#include "instr.h"
#include "instr-lib.h"

/* The block a tb_trans callback sees: valid during that callback only. */
struct qtrace_instr_tb {
    struct qemu_plugin_tb *tb;
    uint32_t n_insns;
    uint32_t size;
};

/* What a memory callback needs, kept as QEMU's udata for one access. */
struct mem_hook {
    qtrace_instr_mem_fn fn;
    void *udata;
    enum qtrace_instr_rw rw;    /* what the library asked for */
};

static struct {
    bool system_mode;
    bool mem_values;            /* QEMU gives the accessed value */
    bool device_names;          /* QEMU may be asked (instr.h) */
    bool mem_rw_unreliable;     /* QEMU 7.2: R and W filter the wrong way */
    bool any_tb_trans;
    bool any_vcpu;
    bool any_syscall;
    bool calls;                 /* the call tracker follows this target */
    bool any_func_entry;
    bool any_func_exit;
    bool sealed;                /* install is over (instr_host_seal) */
    bool calls_feed_entry;      /* the tracker calls instr_func_entry */
    bool calls_feed_exit;       /* ... instr_func_exit */
    unsigned int busy;          /* atomic: threads inside a hook that
                                   runs outside translated code */
    void (*emit_user)(unsigned int vcpu, uint32_t lib, uint32_t id,
                      const uint64_t values[4]);
} host;

/* ---- registration (from qtrace_instr_init) ---- */

static struct instr_lib *registering(const struct qtrace_instr_host *h,
                                     const void *fn)
{
    struct instr_lib *lib = (struct instr_lib *)h;

    return h && fn && lib->registering ? lib : NULL;
}

/*
 * One on_NAME registration call: NAME's hook and data into the library,
 * and host.FLAG set, which tells the plugin's hooks that some library
 * has one. UNAVAILABLE is an expression: true when this run cannot give
 * the event (the call then answers ENOTSUP).
 */
#define DEFINE_ON(NAME, FN_TYPE, FLAG, UNAVAILABLE)                     \
    static int on_##NAME(const struct qtrace_instr_host *h, FN_TYPE fn, \
                         void *data)                                    \
    {                                                                   \
        struct instr_lib *lib = registering(h, fn);                     \
                                                                        \
        if (!lib) {                                                     \
            return QTRACE_INSTR_EINVAL;                                 \
        }                                                               \
        if (UNAVAILABLE) {                                              \
            return QTRACE_INSTR_ENOTSUP;                                \
        }                                                               \
        lib->NAME = fn;                                                 \
        lib->NAME##_data = data;                                        \
        __atomic_store_n(&host.FLAG, true, __ATOMIC_RELEASE);           \
        return QTRACE_INSTR_OK;                                         \
    }

DEFINE_ON(vcpu_init, qtrace_instr_vcpu_fn, any_vcpu, false)
DEFINE_ON(vcpu_exit, qtrace_instr_vcpu_fn, any_vcpu, false)
DEFINE_ON(tb_trans, qtrace_instr_tb_trans_fn, any_tb_trans, false)
/* System calls exist in user mode only. */
DEFINE_ON(syscall, qtrace_instr_syscall_fn, any_syscall, host.system_mode)
DEFINE_ON(syscall_ret, qtrace_instr_syscall_ret_fn, any_syscall,
          host.system_mode)
/*
 * Function events need the call tracker: a decoder for the target, and
 * after install, a tracker already feeding libraries.
 */
DEFINE_ON(func_entry, qtrace_instr_func_fn, any_func_entry,
          !host.calls || (host.sealed && !host.calls_feed_entry))
DEFINE_ON(func_exit, qtrace_instr_func_fn, any_func_exit,
          !host.calls || (host.sealed && !host.calls_feed_exit))

/* ---- the block being translated ---- */

static struct qemu_plugin_insn *insn_of(const struct qtrace_instr_tb *tb,
                                        uint32_t i)
{
    return i < tb->n_insns ? qemu_plugin_tb_get_insn(tb->tb, i) : NULL;
}

static uint64_t tb_vaddr(const struct qtrace_instr_tb *tb)
{
    return qemu_plugin_tb_vaddr(tb->tb);
}

static uint32_t tb_size(const struct qtrace_instr_tb *tb)
{
    return tb->size;
}

static uint32_t tb_n_insns(const struct qtrace_instr_tb *tb)
{
    return tb->n_insns;
}

static uint64_t insn_vaddr(const struct qtrace_instr_tb *tb, uint32_t i)
{
    struct qemu_plugin_insn *insn = insn_of(tb, i);

    return insn ? qemu_plugin_insn_vaddr(insn) : 0;
}

static uint32_t insn_size(const struct qtrace_instr_tb *tb, uint32_t i)
{
    struct qemu_plugin_insn *insn = insn_of(tb, i);

    return insn ? (uint32_t)qemu_plugin_insn_size(insn) : 0;
}

static size_t insn_code(const struct qtrace_instr_tb *tb, uint32_t i,
                        void *dest, size_t len)
{
    struct qemu_plugin_insn *insn = insn_of(tb, i);

    return insn && dest ? qc_insn_bytes(insn, dest, len) : 0;
}

static enum qemu_plugin_cb_flags cb_flags(unsigned int flags)
{
    return flags & QTRACE_INSTR_READS_REGS ? QEMU_PLUGIN_CB_R_REGS :
                                             QEMU_PLUGIN_CB_NO_REGS;
}

/*
 * The library's function goes to QEMU as is: its prototype is QEMU's
 * udata callback, so a block or instruction callback costs one call.
 */
static int exec_tb(const struct qtrace_instr_host *h,
                   struct qtrace_instr_tb *tb, unsigned int flags,
                   qtrace_instr_exec_fn fn, void *udata)
{
    if (!h || !tb || !fn) {
        return QTRACE_INSTR_EINVAL;
    }
    qemu_plugin_register_vcpu_tb_exec_cb(tb->tb, fn, cb_flags(flags), udata);
    return QTRACE_INSTR_OK;
}

static int exec_insn(const struct qtrace_instr_host *h,
                     struct qtrace_instr_tb *tb, uint32_t i,
                     unsigned int flags, qtrace_instr_exec_fn fn,
                     void *udata)
{
    struct qemu_plugin_insn *insn;

    if (!h || !tb || !fn || !(insn = insn_of(tb, i))) {
        return QTRACE_INSTR_EINVAL;
    }
    qemu_plugin_register_vcpu_insn_exec_cb(insn, fn, cb_flags(flags), udata);
    return QTRACE_INSTR_OK;
}

/* QEMU's memory callback, turned into the library's view of the access. */
static void mem_trampoline(unsigned int vcpu, qemu_plugin_meminfo_t info,
                           uint64_t vaddr, void *udata)
{
    const struct mem_hook *hook = udata;
    struct qtrace_instr_mem access = {
        .vaddr = vaddr,
        .size = (uint8_t)(1u << qemu_plugin_mem_size_shift(info)),
        .store = qemu_plugin_mem_is_store(info),
        .sign_extended = qemu_plugin_mem_is_sign_extended(info),
        .big_endian = qemu_plugin_mem_is_big_endian(info),
    };

    if (!(hook->rw & (access.store ? QTRACE_INSTR_STORES :
                      QTRACE_INSTR_LOADS))) {
        return;     /* QEMU 7.2 was asked for both (exec_mem) */
    }

    if (host.mem_values) {
        qemu_plugin_mem_value v = qemu_plugin_mem_get_value(info);

        access.has_value = true;
        access.value = v.type == QEMU_PLUGIN_MEM_VALUE_U8 ? v.data.u8 :
                       v.type == QEMU_PLUGIN_MEM_VALUE_U16 ? v.data.u16 :
                       v.type == QEMU_PLUGIN_MEM_VALUE_U32 ? v.data.u32 :
                       v.type == QEMU_PLUGIN_MEM_VALUE_U64 ? v.data.u64 :
                       v.data.u128.low;
    }
    if (host.system_mode) {
        struct qemu_plugin_hwaddr *hw = qemu_plugin_get_hwaddr(info, vaddr);

        if (hw && qemu_plugin_hwaddr_is_io(hw)) {
            /*
             * QEMU interns the name (a lock in GLib): paid on device
             * accesses only, which take QEMU's own I/O path anyway.
             */
            access.is_io = true;
            access.device = host.device_names ?
                            qemu_plugin_hwaddr_device_name(hw) : NULL;
        } else if (hw) {
            access.has_paddr = true;
            access.paddr = qemu_plugin_hwaddr_phys_addr(hw);
        }
    }
    hook->fn(vcpu, &access, hook->udata);
}

static int exec_mem(const struct qtrace_instr_host *h,
                    struct qtrace_instr_tb *tb, uint32_t i,
                    enum qtrace_instr_rw rw, qtrace_instr_mem_fn fn,
                    void *udata)
{
    struct qemu_plugin_insn *insn;
    struct mem_hook *hook;

    if (!h || !tb || !fn || rw < QTRACE_INSTR_LOADS ||
        rw > QTRACE_INSTR_LOADS_STORES || !(insn = insn_of(tb, i))) {
        return QTRACE_INSTR_EINVAL;
    }
    /*
     * Kept for as long as QEMU may run the block; QEMU does not say when
     * it drops a translation, so like the plugin's block tables it stays.
     */
    hook = malloc(sizeof(*hook));
    if (!hook) {
        return QTRACE_INSTR_EINVAL;
    }
    hook->fn = fn;
    hook->udata = udata;
    hook->rw = rw;
    /*
     * QTRACE_INSTR_LOADS/STORES have QEMU_PLUGIN_MEM_R/W's values. QEMU
     * 7.2 gives stores to an R callback and loads and stores to a W one
     * (t973 counts them): there it gets both and the trampoline keeps
     * what was asked for.
     */
    qemu_plugin_register_vcpu_mem_cb(insn, mem_trampoline,
                                     QEMU_PLUGIN_CB_NO_REGS,
                                     host.mem_rw_unreliable ?
                                     QEMU_PLUGIN_MEM_RW :
                                     (enum qemu_plugin_mem_rw)rw, hook);
    return QTRACE_INSTR_OK;
}

/* ---- services: symbols, guest memory and registers, records ---- */

static struct qtrace_symbols *guest_syms;
static pthread_once_t guest_syms_once = PTHREAD_ONCE_INIT;

/* The guest program's symbols, read on first use (user mode). */
static void load_guest_syms(void)
{
    struct qtrace_err err = { "" };
    char *path;

    if (host.system_mode) {
        return;
    }
    path = (char *)qemu_plugin_path_to_binary();
    guest_syms = qtrace_symbols_new();
    if (path && guest_syms) {
        qtrace_symbols_add_program(guest_syms, path,
                                   qemu_plugin_start_code(), &err);
    }
    g_free(path);
}

static int symbol(uint64_t addr, const char **name, uint64_t *offset)
{
    const char *found;

    pthread_once(&guest_syms_once, load_guest_syms);
    if (!guest_syms) {
        return host.system_mode ? QTRACE_INSTR_ENOTSUP : QTRACE_INSTR_ENOENT;
    }
    found = qtrace_symbols_lookup(guest_syms, addr, offset);
    if (!found) {
        return QTRACE_INSTR_ENOENT;
    }
    if (name) {
        *name = found;
    }
    return QTRACE_INSTR_OK;
}

static int image(uint64_t addr, const char **path, uint64_t *bias)
{
    struct qtrace_image img;
    size_t i, n;

    pthread_once(&guest_syms_once, load_guest_syms);
    if (!guest_syms) {
        return host.system_mode ? QTRACE_INSTR_ENOTSUP : QTRACE_INSTR_ENOENT;
    }
    n = qtrace_symbols_n_images(guest_syms);
    for (i = 0; i < n; i++) {
        qtrace_symbols_image(guest_syms, i, &img);
        if (addr >= img.start && addr < img.end && img.loaded) {
            if (path) {
                *path = img.path;
            }
            if (bias) {
                *bias = img.bias;
            }
            return QTRACE_INSTR_OK;
        }
    }
    return QTRACE_INSTR_ENOENT;
}

/* One buffer per vCPU thread, so reads allocate only the first time. */
static __thread GByteArray *read_buf;

static GByteArray *thread_buf(void)
{
    if (!read_buf) {
        read_buf = g_byte_array_new();
    }
    g_byte_array_set_size(read_buf, 0);
    return read_buf;
}

static int read_mem(uint64_t vaddr, void *dest, size_t len)
{
    GByteArray *buf;

    if (qc_api() < 4 || !qemu_plugin_read_memory_vaddr) {
        return QTRACE_INSTR_ENOTSUP;
    }
    if (!dest) {
        return QTRACE_INSTR_EINVAL;
    }
    buf = thread_buf();
    if (!qemu_plugin_read_memory_vaddr(vaddr, buf, len) || buf->len < len) {
        return QTRACE_INSTR_EFAULT;
    }
    memcpy(dest, buf->data, len);
    return QTRACE_INSTR_OK;
}

/* The register's fields as QEMU 9.0+ lays them out (qemu-plugin-abi.md). */
struct reg_descriptor {
    struct qemu_plugin_register *handle;
    const char *name;
    const char *feature;
};

static struct qemu_plugin_register *find_register(const char *name)
{
    struct qemu_plugin_register *found = NULL;
    GArray *regs = qemu_plugin_get_registers();
    guint i;

    for (i = 0; regs && i < regs->len && !found; i++) {
        const struct reg_descriptor *d =
            &g_array_index(regs, struct reg_descriptor, i);

        if (d->name && strcmp(d->name, name) == 0) {
            found = d->handle;
        }
    }
    if (regs) {
        g_array_free(regs, TRUE);
    }
    return found;
}

static int read_reg(const char *name, void *dest, size_t len)
{
    struct qemu_plugin_register *reg;
    GByteArray *buf;
    int size;

    if (qc_api() < 2 || !qemu_plugin_get_registers ||
        !qemu_plugin_read_register) {
        return QTRACE_INSTR_ENOTSUP;
    }
    if (!name || !dest) {
        return QTRACE_INSTR_EINVAL;
    }
    reg = find_register(name);
    if (!reg) {
        return QTRACE_INSTR_ENOENT;
    }
    buf = thread_buf();
    size = qemu_plugin_read_register(reg, buf);
    if (size <= 0) {
        return QTRACE_INSTR_EINVAL;
    }
    memcpy(dest, buf->data, (size_t)size < len ? (size_t)size : len);
    return size;
}

static int emit(const struct qtrace_instr_host *h, unsigned int vcpu,
                uint32_t id, const uint64_t *values, unsigned int n)
{
    uint64_t v[4] = { 0, 0, 0, 0 };
    unsigned int i;

    if (!h || n > 4 || (n && !values)) {
        return QTRACE_INSTR_EINVAL;
    }
    if (!host.emit_user) {
        return QTRACE_INSTR_ENOTSUP;
    }
    for (i = 0; i < n; i++) {
        v[i] = values[i];
    }
    host.emit_user(vcpu, ((const struct instr_lib *)h)->index, id, v);
    return QTRACE_INSTR_OK;
}

void instr_host_fill(struct instr_lib *lib, const struct instr_env *env)
{
    host.system_mode = env->system_mode;
    host.calls = env->calls;
    host.emit_user = env->emit_user;
    host.mem_values = env->qemu_api >= 4 && qemu_plugin_mem_get_value;
    host.device_names = env->device_names;
    host.mem_rw_unreliable = env->qemu_api < 2;
    lib->host = (struct qtrace_instr_host){
        .api_version = QTRACE_INSTR_API_VERSION,
        .target = env->target,
        .system_mode = env->system_mode,
        .qemu_plugin_api = env->qemu_api,
        .on_vcpu_init = on_vcpu_init,
        .on_vcpu_exit = on_vcpu_exit,
        .on_tb_trans = on_tb_trans,
        .on_syscall = on_syscall,
        .on_syscall_ret = on_syscall_ret,
        .tb_vaddr = tb_vaddr,
        .tb_size = tb_size,
        .tb_n_insns = tb_n_insns,
        .insn_vaddr = insn_vaddr,
        .insn_size = insn_size,
        .insn_code = insn_code,
        .exec_tb = exec_tb,
        .exec_insn = exec_insn,
        .exec_mem = exec_mem,
        .symbol = symbol,
        .read_mem = read_mem,
        .read_reg = read_reg,
        .emit = emit,
        .on_func_entry = on_func_entry,
        .on_func_exit = on_func_exit,
        .image = image,
        .register_events = instr_events_register,
        .emit_event = instr_events_emit,
    };
    instr_events_setup(env);
}

/*
 * Function names per vCPU, direct-mapped by entry address: the symbol
 * search (two binary searches) would double the cost of a call event,
 * and a program calls few functions often. Each vCPU's is written by its
 * own thread only; allocated at vcpu_init, never per event.
 */
#define NAME_SLOTS 256u             /* a power of two */
#define NAME_MAX_VCPUS 4096u        /* as the plugin's vCPU table */

struct name_slot {
    uint64_t entry;                 /* 0: empty */
    const char *name;               /* NULL: no symbol */
};

static struct name_slot *name_cache[NAME_MAX_VCPUS];

static void name_cache_alloc(unsigned int vcpu)
{
    if ((host.any_func_entry || host.any_func_exit) && !host.system_mode &&
        vcpu < NAME_MAX_VCPUS && !name_cache[vcpu]) {
        name_cache[vcpu] = calloc(NAME_SLOTS, sizeof(struct name_slot));
    }
}

static const char *func_name(unsigned int vcpu, uint64_t entry)
{
    struct name_slot *slot;
    const char *name = NULL;

    if (host.system_mode) {
        return NULL;
    }
    if (vcpu >= NAME_MAX_VCPUS || !name_cache[vcpu]) {
        symbol(entry, &name, NULL);
        return name;
    }
    slot = &name_cache[vcpu][(entry ^ (entry >> 8)) & (NAME_SLOTS - 1)];
    if (slot->entry != entry) {
        symbol(entry, &name, NULL);
        slot->entry = entry;
        slot->name = name;
    }
    return slot->name;
}

/* ---- the plugin's hooks ---- */

/*
 * A hook of lib, read once: instr_host_clear may store NULL meanwhile
 * (unload), and the library stays mapped until the quiescent point.
 */
#define HOOK(lib, name) __atomic_load_n(&(lib)->name, __ATOMIC_RELAXED)

/*
 * Every loaded library's NAME hook, in load order: called with ARGS and
 * then the data it registered.
 */
#define CALL_HOOKS(NAME, ...)                                             \
    do {                                                                  \
        size_t i_, n_ = instr_libs_count();                               \
                                                                          \
        for (i_ = 0; i_ < n_; i_++) {                                     \
            __typeof__(instr_libs[0].NAME) fn_ = HOOK(&instr_libs[i_],    \
                                                      NAME);              \
                                                                          \
            if (fn_) {                                                    \
                fn_(__VA_ARGS__, instr_libs[i_].NAME##_data);             \
            }                                                             \
        }                                                                 \
    } while (0)

static bool any(const bool *flag)
{
    return __atomic_load_n(flag, __ATOMIC_RELAXED);
}

/*
 * Hooks QEMU calls outside translated code (vCPU start and end, system
 * calls) are not stopped by the quiescent point: they count themselves,
 * and an unload waits for the count to drop before dlclose.
 */
static void enter_hook(void)
{
    __atomic_add_fetch(&host.busy, 1, __ATOMIC_ACQ_REL);
}

static void leave_hook(void)
{
    __atomic_sub_fetch(&host.busy, 1, __ATOMIC_RELEASE);
}

bool instr_hooks_busy(void)
{
    return __atomic_load_n(&host.busy, __ATOMIC_ACQUIRE) != 0;
}

void instr_vcpu_init(unsigned int vcpu)
{
    name_cache_alloc(vcpu);
    if (!any(&host.any_vcpu)) {
        return;
    }
    enter_hook();
    CALL_HOOKS(vcpu_init, vcpu);
    leave_hook();
}

void instr_vcpu_exit(unsigned int vcpu)
{
    if (!any(&host.any_vcpu)) {
        return;
    }
    enter_hook();
    CALL_HOOKS(vcpu_exit, vcpu);
    leave_hook();
}

void instr_tb_trans(struct qemu_plugin_tb *tb)
{
    struct qtrace_instr_tb view;
    uint32_t k;

    instr_poll();
    if (!any(&host.any_tb_trans)) {
        return;
    }
    view.tb = tb;
    view.n_insns = (uint32_t)qemu_plugin_tb_n_insns(tb);
    view.size = 0;
    for (k = 0; k < view.n_insns; k++) {
        view.size += (uint32_t)qemu_plugin_insn_size(
            qemu_plugin_tb_get_insn(tb, k));
    }
    CALL_HOOKS(tb_trans, &view);
}

void instr_syscall(unsigned int vcpu, int64_t num, const uint64_t args[8])
{
    instr_poll();
    if (!any(&host.any_syscall)) {
        return;
    }
    enter_hook();
    CALL_HOOKS(syscall, vcpu, num, args);
    leave_hook();
}

void instr_syscall_ret(unsigned int vcpu, int64_t num, int64_t ret)
{
    instr_poll();
    if (!any(&host.any_syscall)) {
        return;
    }
    enter_hook();
    CALL_HOOKS(syscall_ret, vcpu, num, ret);
    leave_hook();
}

void instr_host_clear(struct instr_lib *lib)
{
    __atomic_store_n(&lib->vcpu_init, NULL, __ATOMIC_RELEASE);
    __atomic_store_n(&lib->vcpu_exit, NULL, __ATOMIC_RELEASE);
    __atomic_store_n(&lib->tb_trans, NULL, __ATOMIC_RELEASE);
    __atomic_store_n(&lib->syscall, NULL, __ATOMIC_RELEASE);
    __atomic_store_n(&lib->syscall_ret, NULL, __ATOMIC_RELEASE);
    __atomic_store_n(&lib->func_entry, NULL, __ATOMIC_RELEASE);
    __atomic_store_n(&lib->func_exit, NULL, __ATOMIC_RELEASE);
}

void instr_host_seal(void)
{
    host.calls_feed_entry = host.any_func_entry;
    host.calls_feed_exit = host.any_func_exit;
    host.sealed = true;
}

struct qemu_plugin_insn *instr_host_insn(const struct qtrace_instr_tb *tb,
                                         uint32_t i)
{
    return tb ? insn_of(tb, i) : NULL;
}

bool instr_wants_func_entry(void)
{
    return any(&host.any_func_entry);
}

bool instr_wants_func_exit(void)
{
    return any(&host.any_func_exit);
}

void instr_func_entry(unsigned int vcpu, struct qtrace_instr_func *func)
{
    func->name = func_name(vcpu, func->entry);
    CALL_HOOKS(func_entry, vcpu, func);
}

void instr_func_exit(unsigned int vcpu, struct qtrace_instr_func *func)
{
    func->name = func_name(vcpu, func->entry);
    CALL_HOOKS(func_exit, vcpu, func);
}
