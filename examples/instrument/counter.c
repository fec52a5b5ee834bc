/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Example instrumentation library: counts executed blocks and
 * instructions, in total and per block start address.
 *
 * Arguments (instr-arg=): out=FILE for the totals (default stderr);
 * per-insn to count instructions with one callback per instruction
 * instead of adding each block's instruction count per execution.
 *
 * Output, at exit: "blocks N", "insns N", then "block 0xADDR N" per
 * block start address, in address order.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qtrace/instrument.h"
#include "out-file.h"

QTRACE_INSTR_DECLARE();

/* One translation of a block; QEMU may translate the same code again. */
struct block {
    uint64_t pc;
    uint64_t n_insns;
    uint64_t execs;             /* atomic: vCPUs run it concurrently */
    struct block *next;
};

static const struct qtrace_instr_host *host;
static FILE *out;
static bool per_insn;
static uint64_t insn_execs;     /* atomic, per-insn mode only */
static struct block *blocks;
static pthread_mutex_t blocks_lock = PTHREAD_MUTEX_INITIALIZER;

static void block_executed(unsigned int vcpu, void *udata)
{
    struct block *b = udata;

    (void)vcpu;
    __atomic_fetch_add(&b->execs, 1, __ATOMIC_RELAXED);
}

static void insn_executed(unsigned int vcpu, void *udata)
{
    (void)vcpu;
    (void)udata;
    __atomic_fetch_add(&insn_execs, 1, __ATOMIC_RELAXED);
}

static void block_translated(struct qtrace_instr_tb *tb, void *data)
{
    struct block *b = calloc(1, sizeof(*b));
    uint32_t i;

    (void)data;
    if (!b) {
        return;
    }
    b->pc = host->tb_vaddr(tb);
    b->n_insns = host->tb_n_insns(tb);
    /* Translation may run on several threads at once (system mode). */
    pthread_mutex_lock(&blocks_lock);
    b->next = blocks;
    blocks = b;
    pthread_mutex_unlock(&blocks_lock);
    host->exec_tb(host, tb, 0, block_executed, b);
    for (i = 0; per_insn && i < b->n_insns; i++) {
        host->exec_insn(host, tb, i, 0, insn_executed, NULL);
    }
}

static int by_pc(const void *a, const void *b)
{
    const struct block *x = *(struct block *const *)a;
    const struct block *y = *(struct block *const *)b;

    return x->pc < y->pc ? -1 : x->pc > y->pc;
}

/* Prints one line per start address, adding up retranslations. */
static void print_blocks(void)
{
    struct block **sorted, *b;
    size_t n = 0, i;

    for (b = blocks; b; b = b->next) {
        n++;
    }
    sorted = malloc((n ? n : 1) * sizeof(*sorted));
    if (!sorted) {
        return;
    }
    for (b = blocks, i = 0; b; b = b->next) {
        sorted[i++] = b;
    }
    qsort(sorted, n, sizeof(*sorted), by_pc);
    for (i = 0; i < n;) {
        uint64_t pc = sorted[i]->pc, execs = 0;

        for (; i < n && sorted[i]->pc == pc; i++) {
            execs += sorted[i]->execs;
        }
        if (execs) {
            fprintf(out, "block 0x%llx %llu\n", (unsigned long long)pc,
                    (unsigned long long)execs);
        }
    }
    free(sorted);
}

int qtrace_instr_init(const struct qtrace_instr_host *h, int argc,
                      const char **argv, char *errmsg)
{
    int i;

    host = h;
    for (i = 0; i < argc; i++) {
        if (strcmp(argv[i], "per-insn") == 0) {
            per_insn = true;
        } else if (strncmp(argv[i], "out=", 4) != 0) {
            snprintf(errmsg, QTRACE_INSTR_ERRMSG_MAX,
                     "unknown argument %s (known: out=FILE, per-insn)",
                     argv[i]);
            return 1;
        }
    }
    out = example_out_open(argc, argv);
    if (!out) {
        snprintf(errmsg, QTRACE_INSTR_ERRMSG_MAX, "cannot open out=");
        return 1;
    }
    return h->on_tb_trans(h, block_translated, NULL);
}

void qtrace_instr_fini(void)
{
    uint64_t block_total = 0, insn_total = 0;
    struct block *b;

    for (b = blocks; b; b = b->next) {
        block_total += b->execs;
        insn_total += b->execs * b->n_insns;
    }
    fprintf(out, "blocks %llu\n", (unsigned long long)block_total);
    fprintf(out, "insns %llu\n", (unsigned long long)(per_insn ?
            __atomic_load_n(&insn_execs, __ATOMIC_RELAXED) : insn_total));
    print_blocks();
    example_out_close(out);
}
