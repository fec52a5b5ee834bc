/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Example instrumentation library that looks at every translated block
 * and asks for nothing at execution time: what hosting a library costs
 * by itself (bench/bench.py mode counts+instr).
 *
 * Arguments: fail makes init refuse, to show how a refusal reads; funcs
 * also registers empty function entry and exit callbacks (API 1.1): what
 * the call tracker and the host's hand-off cost (bench mode
 * counts+instr-funcs-null).
 */
#include <stdio.h>
#include <string.h>

#include "qtrace/instrument.h"

QTRACE_INSTR_DECLARE();

static const struct qtrace_instr_host *host;
/* Atomic: system mode translates on several threads at once. */
static unsigned long long translated;

static void block_translated(struct qtrace_instr_tb *tb, void *data)
{
    (void)data;
    /* Reading the block is all: no execution-time callback. */
    if (host->tb_n_insns(tb)) {
        __atomic_fetch_add(&translated, 1, __ATOMIC_RELAXED);
    }
}

static void func_event(unsigned int vcpu, const struct qtrace_instr_func *f,
                       void *data)
{
    (void)vcpu;
    (void)f;
    (void)data;
}

int qtrace_instr_init(const struct qtrace_instr_host *h, int argc,
                      const char **argv, char *errmsg)
{
    if (argc > 0 && strcmp(argv[0], "fail") == 0) {
        snprintf(errmsg, QTRACE_INSTR_ERRMSG_MAX, "asked to fail");
        return 1;
    }
    host = h;
    if (argc > 0 && strcmp(argv[0], "funcs") == 0 &&
        h->api_version >= QTRACE_INSTR_API_VERSION &&
        (h->on_func_entry(h, func_event, NULL) != QTRACE_INSTR_OK ||
         h->on_func_exit(h, func_event, NULL) != QTRACE_INSTR_OK)) {
        snprintf(errmsg, QTRACE_INSTR_ERRMSG_MAX, "no function callbacks");
        return 1;
    }
    return h->on_tb_trans(h, block_translated, NULL);
}
