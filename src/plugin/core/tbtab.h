/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the plugin remembers of each block translation: addresses, sizes,
 * opcodes and (for the text log) QEMU's disassembly, by translation id.
 * Filled at translation time; read by execution callbacks through their
 * userdata pointer and by the writer thread through tbtab_get().
 */
#ifndef QTRACE_PLUGIN_TBTAB_H
#define QTRACE_PLUGIN_TBTAB_H

#include <stdint.h>

struct qemu_plugin_scoreboard;

struct tb_info;

struct insn_info {
    uint64_t pc;
    const struct tb_info *tb;
    uint32_t opcode;            /* first 4 code bytes, zero-padded, LE */
    uint16_t idx;               /* position in the block */
    uint8_t size;               /* bytes */
    _Atomic uint8_t device;     /* system mode: it reached a device
                                   (mmio-cache.h knows where) */
    char *disas;                /* QEMU's text, only for the log sink */
    _Atomic uint64_t meminfo;   /* an access: meminfo << 32 | decoded
                                   (mem.c, MEMINFO_VALID) */
    _Atomic uint64_t meminfo2;  /* another (a load and a store) */
    uint64_t staged_head;       /* its accesses' staged words (pack.h) */
};

/* Set by calls.c: the block starts right after a call instruction. */
#define TB_F_RETURN_SITE 1u
/* Set by calls.c: the block ends with an indirect jump (not a call). */
#define TB_F_ENDS_INDIRECT 2u
/* Set by calls.c: the block ends with a system call instruction. */
#define TB_F_ENDS_SYSCALL 4u
/* Set by calls.c: the block starts at a function's entry (its symbol). */
#define TB_F_FUNC_ENTRY 8u
/*
 * Set by calls.c in user mode: the block ends with a call, a return or a
 * tail call, which its start notes (calls_tb_start) instead of a
 * callback on the instruction. At most one is set.
 */
#define TB_F_ENDS_CALL 16u
#define TB_F_ENDS_RET 32u
#define TB_F_ENDS_TAIL 64u
#define TB_F_ENDS_BRANCH (TB_F_ENDS_CALL | TB_F_ENDS_RET | TB_F_ENDS_TAIL)

struct tb_info {
    uint64_t pc;
    uint32_t id;                /* translation id, from 1 */
    uint32_t n_insns;
    uint32_t size;              /* code bytes */
    uint16_t flags;             /* TB_F_*, set at translation */
    /* With TB_F_ENDS_BRANCH, the last instruction's bytes: at the next
     * block start the branch is known without touching insns[]. */
    uint16_t branch_size;
    /*
     * System mode (flow.h): how the block may be left, set at
     * translation by flow_tb_trans: SYS_F_* flags, the sysdec_end of its
     * last instruction, the vector it raises (-1 unknown), its direct
     * branch target (0: none) and the target of a call it starts with.
     */
    uint16_t sys_flags;
    uint8_t sys_end;
    int16_t sys_vector;
    uint64_t sys_target;
    uint64_t sys_entry_call;    /* SYS_F_ENTRY_CALL: the call's target */
    uint64_t count;             /* executions, QEMU 7.2 inline counter */
    struct qemu_plugin_scoreboard *counts;  /* same, QEMU 9.0+ */
    struct insn_info insns[];
};

/* Ids are handed out from 1 up to this one. */
#define TBTAB_MAX_ID ((1u << 28) - 1)

/*
 * A zeroed tb_info for n_insns instructions with a fresh id, published for
 * tbtab_get(). Never freed: execution callbacks may run until exit.
 * NULL when memory runs out.
 */
struct tb_info *tbtab_new(uint32_t n_insns);

/*
 * The translation with this id, or NULL. Safe from the writer thread for
 * ids found in a chunk it was handed (the chunk hand-off orders it).
 */
const struct tb_info *tbtab_get(uint32_t id);

/* Highest id handed out so far (0 when none). */
uint32_t tbtab_max_id(void);

#endif /* QTRACE_PLUGIN_TBTAB_H */
