/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Writes its own event twin:sample (twin.trace-events) each time the
 * instruction at "pc=0xADDR" runs: seq 1, 2, 3... and the address. With
 * "name=sampler" it registers its events under the sampler example's
 * library name instead, which the host must refuse when both are loaded.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qtrace/instrument.h"
#include "trace-twin.h"

QTRACE_INSTR_DECLARE();

static const struct qtrace_instr_host *host;
static uint64_t watched_pc;
static uint16_t seq;            /* the guests run one thread */

static void watched_ran(unsigned int vcpu, void *udata)
{
    (void)udata;
    trace_twin_sample(host, vcpu, ++seq, watched_pc);
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

/* The generated table under another library's name. */
static int register_as(const struct qtrace_instr_host *h, const char *name)
{
    static const uint16_t payload[] = { 16 };
    static char catalog[160];
    struct qtrace_instr_events ev = { name, catalog, 1, payload };

    snprintf(catalog, sizeof(catalog), "%s:sample(uint16_t seq, uint64_t "
             "pc) \"seq %%u pc 0x%%\" PRIx64\n", name);
    return h->register_events(h, &ev);
}

int qtrace_instr_init(const struct qtrace_instr_host *h, int argc,
                      const char **argv, char *errmsg)
{
    int i, ret;
    const char *name = NULL;

    host = h;
    for (i = 0; i < argc; i++) {
        if (strncmp(argv[i], "pc=", 3) == 0) {
            watched_pc = strtoull(argv[i] + 3, NULL, 0);
        } else if (strncmp(argv[i], "name=", 5) == 0) {
            name = argv[i] + 5;
        }
    }
    ret = name ? register_as(h, name) : trace_twin_register(h);
    if (ret != QTRACE_INSTR_OK) {
        snprintf(errmsg, QTRACE_INSTR_ERRMSG_MAX, "no events (%d)", ret);
        return 1;
    }
    return h->on_tb_trans(h, block_translated, NULL);
}
