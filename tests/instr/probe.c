/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Asks the host once for each service and writes what it answered, one
 * "key value" line each, to the file of "out=FILE" as soon as known:
 *   symbol NAME+0xOFF | symbol rc RC      (the first translated block)
 *   code 0xBYTES                          (its first instruction's bytes)
 *   mem rc RC [0xBYTES]                   (read_mem of that instruction)
 *   reg NAME rc RC [0xVALUE]              (read_reg of "reg=NAME")
 *   store vaddr 0xA size N has_value B value 0xV has_paddr B paddr 0xP
 *   loads N stores-in-loads N              (at exit: what a LOADS callback
 *                                           on every instruction saw)
 * read_mem and read_reg run in the first instruction's execution
 * callback; the store line comes from the first store executed.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "qtrace/instrument.h"

QTRACE_INSTR_DECLARE();

static const struct qtrace_instr_host *host;
static FILE *out;
static const char *reg_name = "pc";
static int seen_block, seen_exec, seen_store;   /* atomic flags */
static uint64_t loads, stores_in_loads;         /* atomic counters */

static bool first(int *flag)
{
    return !__atomic_exchange_n(flag, 1, __ATOMIC_ACQ_REL);
}

static void put_hex(const uint8_t *bytes, size_t n)
{
    size_t i;

    fputs(" 0x", out);
    for (i = 0; i < n; i++) {
        fprintf(out, "%02x", bytes[i]);
    }
}

static void first_insn_ran(unsigned int vcpu, void *udata)
{
    uint64_t pc = (uint64_t)(uintptr_t)udata;
    uint8_t bytes[4], reg[16];
    int rc;

    (void)vcpu;
    rc = host->read_mem(pc, bytes, sizeof(bytes));
    fprintf(out, "mem rc %d", rc);
    if (rc == QTRACE_INSTR_OK) {
        put_hex(bytes, sizeof(bytes));
    }
    rc = host->read_reg(reg_name, reg, sizeof(reg));
    fprintf(out, "\nreg %s rc %d", reg_name, rc > 0 ? 0 : rc);
    if (rc > 0) {
        uint64_t v = 0;

        /* Little-endian targets only in the tests. */
        memcpy(&v, reg, rc < 8 ? (size_t)rc : 8);
        fprintf(out, " 0x%" PRIx64, v);
    }
    fputc('\n', out);
    fflush(out);
}

static void accessed(unsigned int vcpu, const struct qtrace_instr_mem *a,
                     void *udata)
{
    (void)vcpu;
    (void)udata;
    if (!first(&seen_store)) {
        return;
    }
    fprintf(out, "store vaddr 0x%" PRIx64 " size %u has_value %d value 0x%"
            PRIx64 " has_paddr %d paddr 0x%" PRIx64 "\n", a->vaddr, a->size,
            a->has_value, a->value, a->has_paddr, a->paddr);
    fflush(out);
}

/* A LOADS callback must never see a store. */
static void loaded(unsigned int vcpu, const struct qtrace_instr_mem *a,
                   void *udata)
{
    (void)vcpu;
    (void)udata;
    __atomic_fetch_add(a->store ? &stores_in_loads : &loads, 1,
                       __ATOMIC_RELAXED);
}

static void block_translated(struct qtrace_instr_tb *tb, void *data)
{
    uint64_t pc = host->tb_vaddr(tb), off = 0;
    uint32_t i, n = host->tb_n_insns(tb);
    const char *name = NULL;
    uint8_t code[4];
    int rc;

    (void)data;
    for (i = 0; !__atomic_load_n(&seen_store, __ATOMIC_ACQUIRE) && i < n;
         i++) {
        host->exec_mem(host, tb, i, QTRACE_INSTR_STORES, accessed, NULL);
    }
    for (i = 0; i < n; i++) {
        host->exec_mem(host, tb, i, QTRACE_INSTR_LOADS, loaded, NULL);
    }
    if (!first(&seen_block)) {
        return;
    }
    rc = host->symbol(pc, &name, &off);
    if (rc == QTRACE_INSTR_OK) {
        fprintf(out, "symbol %s+0x%" PRIx64 "\n", name, off);
    } else {
        fprintf(out, "symbol rc %d\n", rc);
    }
    fputs("code", out);
    put_hex(code, host->insn_code(tb, 0, code, sizeof(code)));
    fputc('\n', out);
    fflush(out);
    if (first(&seen_exec)) {
        host->exec_insn(host, tb, 0, QTRACE_INSTR_READS_REGS, first_insn_ran,
                        (void *)(uintptr_t)pc);
    }
}

int qtrace_instr_init(const struct qtrace_instr_host *h, int argc,
                      const char **argv, char *errmsg)
{
    int i;

    for (i = 0; i < argc; i++) {
        if (strncmp(argv[i], "out=", 4) == 0) {
            out = fopen(argv[i] + 4, "w");
        } else if (strncmp(argv[i], "reg=", 4) == 0) {
            reg_name = argv[i] + 4;
        }
    }
    if (!out) {
        snprintf(errmsg, QTRACE_INSTR_ERRMSG_MAX, "needs out=FILE");
        return 1;
    }
    host = h;
    return h->on_tb_trans(h, block_translated, NULL);
}

void qtrace_instr_fini(void)
{
    fprintf(out, "loads %" PRIu64 " stores-in-loads %" PRIu64 "\n", loads,
            stores_in_loads);
    fclose(out);
}
