/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The QEMU TCG plugin ABI as qtrace uses it, declared by the project because
 * Debian ships no qemu-plugin.h. Covers API 1 (QEMU 7.2-8.2) through API 5
 * (QEMU 10.1/10.2). Functions that not every supported QEMU exports are weak:
 * they read as NULL where the running QEMU lacks them, so one libqtrace.so
 * loads everywhere. Layouts are LP64 Linux. Only qemu-compat.c should call
 * the version-dependent functions directly.
 */
#ifndef QTRACE_QEMU_PLUGIN_H
#define QTRACE_QEMU_PLUGIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define QEMU_WEAK __attribute__((weak))

typedef uint64_t qemu_plugin_id_t;
typedef uint32_t qemu_plugin_meminfo_t;     /* opaque, decode with mem_* */

struct qemu_plugin_tb;
struct qemu_plugin_insn;
struct qemu_plugin_hwaddr;
struct qemu_plugin_scoreboard;              /* API 2+ */
struct qemu_plugin_register;                /* API 2+ */
typedef struct _GArray GArray;
typedef struct _GByteArray GByteArray;

/* Size 32 on LP64; identical from 7.2 to 10.2. */
typedef struct qemu_info_t {
    const char *target_name;                /* "x86_64", "aarch64", ... */
    struct {
        int min;                            /* lowest API QEMU accepts */
        int cur;                            /* highest API QEMU offers */
    } version;
    bool system_emulation;
    union {
        struct {
            int smp_vcpus;                  /* vCPUs at start */
            int max_vcpus;                  /* hot-plug limit */
        } system;                           /* only if system_emulation */
    };
} qemu_info_t;

enum qemu_plugin_cb_flags {
    QEMU_PLUGIN_CB_NO_REGS = 0,
    QEMU_PLUGIN_CB_R_REGS = 1,
    QEMU_PLUGIN_CB_RW_REGS = 2,
};

enum qemu_plugin_mem_rw {
    QEMU_PLUGIN_MEM_R = 1,
    QEMU_PLUGIN_MEM_W = 2,
    QEMU_PLUGIN_MEM_RW = 3,
};

enum qemu_plugin_op {
    QEMU_PLUGIN_INLINE_ADD_U64 = 0,
    QEMU_PLUGIN_INLINE_STORE_U64 = 1,       /* API 3+ */
};

enum qemu_plugin_cond {
    QEMU_PLUGIN_COND_NEVER = 0,
    QEMU_PLUGIN_COND_ALWAYS = 1,
    QEMU_PLUGIN_COND_EQ = 2,
    QEMU_PLUGIN_COND_NE = 3,
    QEMU_PLUGIN_COND_LT = 4,                /* unsigned comparisons */
    QEMU_PLUGIN_COND_LE = 5,
    QEMU_PLUGIN_COND_GT = 6,
    QEMU_PLUGIN_COND_GE = 7,
};

enum qemu_plugin_mem_value_type {
    QEMU_PLUGIN_MEM_VALUE_U8 = 0,
    QEMU_PLUGIN_MEM_VALUE_U16 = 1,
    QEMU_PLUGIN_MEM_VALUE_U32 = 2,
    QEMU_PLUGIN_MEM_VALUE_U64 = 3,
    QEMU_PLUGIN_MEM_VALUE_U128 = 4,
};

/* API 2+: passed by value in two registers; layout must match exactly. */
typedef struct {
    struct qemu_plugin_scoreboard *score;
    size_t offset;
} qemu_plugin_u64;

/* API 4+: returned by value through a hidden pointer (24 bytes). */
typedef struct {
    enum qemu_plugin_mem_value_type type;
    union {
        uint8_t u8;
        uint16_t u16;
        uint32_t u32;
        uint64_t u64;
        struct {
            uint64_t low;
            uint64_t high;
        } u128;
    } data;
} qemu_plugin_mem_value;

typedef void (*qemu_plugin_simple_cb_t)(qemu_plugin_id_t id);
typedef void (*qemu_plugin_udata_cb_t)(qemu_plugin_id_t id, void *userdata);
typedef void (*qemu_plugin_vcpu_simple_cb_t)(qemu_plugin_id_t id,
                                             unsigned int vcpu_index);
/* Note: no plugin id in this one. */
typedef void (*qemu_plugin_vcpu_udata_cb_t)(unsigned int vcpu_index,
                                            void *userdata);
typedef void (*qemu_plugin_vcpu_tb_trans_cb_t)(qemu_plugin_id_t id,
                                               struct qemu_plugin_tb *tb);
typedef void (*qemu_plugin_vcpu_mem_cb_t)(unsigned int vcpu_index,
                                          qemu_plugin_meminfo_t info,
                                          uint64_t vaddr, void *userdata);
typedef void (*qemu_plugin_vcpu_syscall_cb_t)(qemu_plugin_id_t id,
        unsigned int vcpu_index, int64_t num, uint64_t a1, uint64_t a2,
        uint64_t a3, uint64_t a4, uint64_t a5, uint64_t a6, uint64_t a7,
        uint64_t a8);
typedef void (*qemu_plugin_vcpu_syscall_ret_cb_t)(qemu_plugin_id_t id,
        unsigned int vcpu_index, int64_t num, int64_t ret);

/* Provided by the plugin: the only two symbols it exports. */
extern int qemu_plugin_version;
int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info,
                        int argc, char **argv);

/* ---- API 1+ (7.2 onwards), exported by every supported QEMU ---- */
void qemu_plugin_uninstall(qemu_plugin_id_t id, qemu_plugin_simple_cb_t cb);
void qemu_plugin_reset(qemu_plugin_id_t id, qemu_plugin_simple_cb_t cb);
void qemu_plugin_register_vcpu_init_cb(qemu_plugin_id_t id,
                                       qemu_plugin_vcpu_simple_cb_t cb);
void qemu_plugin_register_vcpu_exit_cb(qemu_plugin_id_t id,
                                       qemu_plugin_vcpu_simple_cb_t cb);
void qemu_plugin_register_vcpu_idle_cb(qemu_plugin_id_t id,
                                       qemu_plugin_vcpu_simple_cb_t cb);
void qemu_plugin_register_vcpu_resume_cb(qemu_plugin_id_t id,
                                         qemu_plugin_vcpu_simple_cb_t cb);
void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id,
                                           qemu_plugin_vcpu_tb_trans_cb_t cb);
void qemu_plugin_register_vcpu_syscall_cb(qemu_plugin_id_t id,
                                          qemu_plugin_vcpu_syscall_cb_t cb);
void qemu_plugin_register_vcpu_syscall_ret_cb(qemu_plugin_id_t id,
        qemu_plugin_vcpu_syscall_ret_cb_t cb);
void qemu_plugin_vcpu_for_each(qemu_plugin_id_t id,
                               qemu_plugin_vcpu_simple_cb_t cb);
void qemu_plugin_register_flush_cb(qemu_plugin_id_t id,
                                   qemu_plugin_simple_cb_t cb);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id,
                                    qemu_plugin_udata_cb_t cb,
                                    void *userdata);
void qemu_plugin_outs(const char *string);
bool qemu_plugin_bool_parse(const char *name, const char *val, bool *ret);
const char *qemu_plugin_path_to_binary(void);   /* g_free(); NULL in system */
uint64_t qemu_plugin_start_code(void);
uint64_t qemu_plugin_end_code(void);
uint64_t qemu_plugin_entry_code(void);

size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
uint64_t qemu_plugin_tb_vaddr(const struct qemu_plugin_tb *tb);
struct qemu_plugin_insn *qemu_plugin_tb_get_insn(const struct qemu_plugin_tb *tb,
                                                 size_t idx);
size_t qemu_plugin_insn_size(const struct qemu_plugin_insn *insn);
uint64_t qemu_plugin_insn_vaddr(const struct qemu_plugin_insn *insn);
void *qemu_plugin_insn_haddr(const struct qemu_plugin_insn *insn);
char *qemu_plugin_insn_disas(const struct qemu_plugin_insn *insn); /* free() */
const char *qemu_plugin_insn_symbol(const struct qemu_plugin_insn *insn);
/*
 * qemu_plugin_insn_data exists in every version but changed prototype in
 * API 3 (QEMU 9.1) without a new minimum version, so it is declared under
 * another name and called through the right type by qemu-compat.c.
 */
void qemu_plugin_insn_data_any(void) __asm__("qemu_plugin_insn_data");
typedef const void *(*qemu_plugin_insn_data_v1_fn)(
        const struct qemu_plugin_insn *insn);
typedef size_t (*qemu_plugin_insn_data_v3_fn)(
        const struct qemu_plugin_insn *insn, void *dest, size_t len);

void qemu_plugin_register_vcpu_tb_exec_cb(struct qemu_plugin_tb *tb,
        qemu_plugin_vcpu_udata_cb_t cb, enum qemu_plugin_cb_flags flags,
        void *userdata);
void qemu_plugin_register_vcpu_insn_exec_cb(struct qemu_plugin_insn *insn,
        qemu_plugin_vcpu_udata_cb_t cb, enum qemu_plugin_cb_flags flags,
        void *userdata);
void qemu_plugin_register_vcpu_mem_cb(struct qemu_plugin_insn *insn,
        qemu_plugin_vcpu_mem_cb_t cb, enum qemu_plugin_cb_flags flags,
        enum qemu_plugin_mem_rw rw, void *userdata);

unsigned int qemu_plugin_mem_size_shift(qemu_plugin_meminfo_t info);
bool qemu_plugin_mem_is_sign_extended(qemu_plugin_meminfo_t info);
bool qemu_plugin_mem_is_big_endian(qemu_plugin_meminfo_t info);
bool qemu_plugin_mem_is_store(qemu_plugin_meminfo_t info);
struct qemu_plugin_hwaddr *qemu_plugin_get_hwaddr(qemu_plugin_meminfo_t info,
                                                  uint64_t vaddr);
bool qemu_plugin_hwaddr_is_io(const struct qemu_plugin_hwaddr *haddr);
uint64_t qemu_plugin_hwaddr_phys_addr(const struct qemu_plugin_hwaddr *haddr);
const char *qemu_plugin_hwaddr_device_name(const struct qemu_plugin_hwaddr *h);

/* ---- API 1 only (QEMU <= 8.2): gone in 9.0, hence weak ---- */
QEMU_WEAK void qemu_plugin_register_vcpu_tb_exec_inline(
        struct qemu_plugin_tb *tb, enum qemu_plugin_op op, void *ptr,
        uint64_t imm);
QEMU_WEAK void qemu_plugin_register_vcpu_insn_exec_inline(
        struct qemu_plugin_insn *insn, enum qemu_plugin_op op, void *ptr,
        uint64_t imm);
QEMU_WEAK void qemu_plugin_register_vcpu_mem_inline(
        struct qemu_plugin_insn *insn, enum qemu_plugin_mem_rw rw,
        enum qemu_plugin_op op, void *ptr, uint64_t imm);
QEMU_WEAK int qemu_plugin_n_vcpus(void);
QEMU_WEAK int qemu_plugin_n_max_vcpus(void);

/* ---- API 2+ (QEMU 9.0 onwards) ---- */
QEMU_WEAK int qemu_plugin_num_vcpus(void);
QEMU_WEAK struct qemu_plugin_scoreboard *qemu_plugin_scoreboard_new(
        size_t element_size);
QEMU_WEAK void qemu_plugin_scoreboard_free(
        struct qemu_plugin_scoreboard *score);
QEMU_WEAK void *qemu_plugin_scoreboard_find(
        struct qemu_plugin_scoreboard *score, unsigned int vcpu_index);
QEMU_WEAK void qemu_plugin_u64_add(qemu_plugin_u64 entry,
                                   unsigned int vcpu_index, uint64_t added);
QEMU_WEAK uint64_t qemu_plugin_u64_get(qemu_plugin_u64 entry,
                                       unsigned int vcpu_index);
QEMU_WEAK void qemu_plugin_u64_set(qemu_plugin_u64 entry,
                                   unsigned int vcpu_index, uint64_t val);
QEMU_WEAK uint64_t qemu_plugin_u64_sum(qemu_plugin_u64 entry);
QEMU_WEAK void qemu_plugin_register_vcpu_tb_exec_inline_per_vcpu(
        struct qemu_plugin_tb *tb, enum qemu_plugin_op op,
        qemu_plugin_u64 entry, uint64_t imm);
QEMU_WEAK void qemu_plugin_register_vcpu_insn_exec_inline_per_vcpu(
        struct qemu_plugin_insn *insn, enum qemu_plugin_op op,
        qemu_plugin_u64 entry, uint64_t imm);
QEMU_WEAK void qemu_plugin_register_vcpu_mem_inline_per_vcpu(
        struct qemu_plugin_insn *insn, enum qemu_plugin_mem_rw rw,
        enum qemu_plugin_op op, qemu_plugin_u64 entry, uint64_t imm);
QEMU_WEAK GArray *qemu_plugin_get_registers(void);
QEMU_WEAK int qemu_plugin_read_register(struct qemu_plugin_register *handle,
                                        GByteArray *buf);

/* ---- API 3+ (QEMU 9.1 onwards) ---- */
QEMU_WEAK void qemu_plugin_register_vcpu_tb_exec_cond_cb(
        struct qemu_plugin_tb *tb, qemu_plugin_vcpu_udata_cb_t cb,
        enum qemu_plugin_cb_flags flags, enum qemu_plugin_cond cond,
        qemu_plugin_u64 entry, uint64_t imm, void *userdata);
QEMU_WEAK void qemu_plugin_register_vcpu_insn_exec_cond_cb(
        struct qemu_plugin_insn *insn, qemu_plugin_vcpu_udata_cb_t cb,
        enum qemu_plugin_cb_flags flags, enum qemu_plugin_cond cond,
        qemu_plugin_u64 entry, uint64_t imm, void *userdata);

/* ---- API 4+ (QEMU 9.2 onwards) ---- */
QEMU_WEAK bool qemu_plugin_read_memory_vaddr(uint64_t addr, GByteArray *data,
                                             size_t len);
QEMU_WEAK qemu_plugin_mem_value qemu_plugin_mem_get_value(
        qemu_plugin_meminfo_t info);

#endif /* QTRACE_QEMU_PLUGIN_H */
