/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Writes a user_event record (id 7, values: the address and 0xfeed) each
 * time the instruction at the address given as "pc=0xADDR" runs. At exit
 * it prints on stderr how many records the host refused, if any.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qtrace/instrument.h"

QTRACE_INSTR_DECLARE();

static const struct qtrace_instr_host *host;
static uint64_t watched_pc;
static uint64_t refused;        /* atomic */

static void watched_ran(unsigned int vcpu, void *udata)
{
    const uint64_t values[2] = { watched_pc, 0xfeed };

    (void)udata;
    if (host->emit(host, vcpu, 7, values, 2) != QTRACE_INSTR_OK) {
        __atomic_fetch_add(&refused, 1, __ATOMIC_RELAXED);
    }
}

static void block_translated(struct qtrace_instr_tb *tb, void *data)
{
    uint32_t i, n = host->tb_n_insns(tb);

    (void)data;
    for (i = 0; i < n; i++) {
        if (host->insn_vaddr(tb, i) == watched_pc) {
            host->exec_insn(host, tb, i, 0, watched_ran, NULL);
        }
    }
}

int qtrace_instr_init(const struct qtrace_instr_host *h, int argc,
                      const char **argv, char *errmsg)
{
    if (argc != 1 || strncmp(argv[0], "pc=", 3) != 0) {
        snprintf(errmsg, QTRACE_INSTR_ERRMSG_MAX, "expected pc=0xADDR");
        return 1;
    }
    watched_pc = strtoull(argv[0] + 3, NULL, 0);
    host = h;
    return h->on_tb_trans(h, block_translated, NULL);
}

void qtrace_instr_fini(void)
{
    if (refused) {
        fprintf(stderr, "emit-at: %" PRIu64 " records refused\n", refused);
    }
}
