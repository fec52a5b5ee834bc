/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The comparison behind `qtrace diff`: one vCPU stream of a trace
 * against one of another, read side by side (two readers, each
 * selecting its stream), record by record over the kinds compared:
 * blocks (exec_tb: pc), memory accesses (mem_access: pc, address, size,
 * load or store, sign, endianness, the physical address when both have
 * one), system calls (syscall: number and the arguments the call takes;
 * syscall_ret: number and value). Memory stays bounded: the last N
 * records in common are kept for context, nothing else. Main thread
 * only.
 */
#ifndef QTRACE_CLI_DIFF_STREAM_H
#define QTRACE_CLI_DIFF_STREAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "qtrace/err.h"
#include "qtrace/reader.h"
#include "qtrace/syscall.h"

/* The kinds of records compared (a set of these bits). */
enum {
    DIFF_BLOCKS = 1,                /* exec_tb */
    DIFF_MEM = 2,                   /* mem_access */
    DIFF_SYSCALLS = 4,              /* syscall and syscall_ret */
};

enum diff_item_kind {
    DIFF_ITEM_BLOCK,
    DIFF_ITEM_MEM,
    DIFF_ITEM_SYSCALL,
    DIFF_ITEM_SYSRET,
};

/* One record compared, decoded from whichever catalog its trace has. */
struct diff_item {
    enum diff_item_kind kind;
    uint64_t time;                  /* guest instructions of its vCPU */
    uint64_t pc;                    /* block or accessing instruction */
    uint64_t v[7];                  /* mem: vaddr, paddr, size, flags;
                                       syscall: num, 6 arguments;
                                       syscall_ret: num, value */
};

/* Where one trace keeps what is compared (found by name). */
struct diff_side {
    const char *path;
    struct qtrace_reader *rd;
    const struct qtrace_syscall_table *sc;  /* names, or NULL */
    unsigned int word_bits;                 /* 32 or 64 */
    uint16_t id_tb, id_mem, id_sys, id_ret; /* 0: not in the catalog */
    int tb_pc;                              /* argument indexes */
    int mem_pc, mem_vaddr, mem_paddr, mem_size, mem_flags;
    int sys_num, sys_arg[6];
    int ret_num, ret_val;
};

/* Fill side's ids and argument indexes from its reader's catalog. */
void diff_side_map(struct diff_side *side);

/* The kinds side's catalog can hold (DIFF_* bits). */
unsigned int diff_side_kinds(const struct diff_side *side);

/*
 * Process and thread ids differ from run to run: the value a call that
 * returns one (getpid, gettid, set_tid_address, clone, fork, ...) gave
 * in trace A and the value the same call gave in trace B are taken as
 * the same id wherever they appear afterwards (arguments, values).
 */
#define DIFF_MAX_IDS 256

struct diff_ids {
    uint64_t a[DIFF_MAX_IDS], b[DIFF_MAX_IDS];
    unsigned int n;
};

/* The last records in common, oldest first (a ring of cap items). */
struct diff_ring {
    struct diff_item *items;
    size_t cap, n, head;
};

struct diff_result {
    uint64_t records;               /* records in common */
    uint64_t blocks;                /* blocks among them */
    uint64_t insns;                 /* instructions in common: the time
                                       where they part, else the end */
    bool differ;
    bool a_ended, b_ended;          /* the stream ended there */
    struct diff_item a, b;          /* the first records that differ */
};

/*
 * Compare stream sa of a with stream sb of b over kinds (DIFF_* bits),
 * to their first difference or their ends. ctx receives the records in
 * common (the last ctx->cap are kept); ids learns the process and thread
 * ids. Returns 0 with *res filled, or -errno with err set when a trace
 * stops early (err names it).
 */
int diff_stream_run(struct diff_side *a, uint32_t sa, struct diff_side *b,
                    uint32_t sb, unsigned int kinds, struct diff_ring *ctx,
                    struct diff_ids *ids, struct diff_result *res,
                    struct qtrace_err *err);

/* The i-th oldest record of the ring (i < ring->n). */
const struct diff_item *diff_ring_get(const struct diff_ring *ring,
                                      size_t i);

#endif /* QTRACE_CLI_DIFF_STREAM_H */
