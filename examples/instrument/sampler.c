/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Example instrumentation library with events of its own
 * (sampler.trace-events, through trace-sampler.h that qtrace-tracetool
 * --instr=sampler generates): every N-th block a vCPU enters becomes a
 * sampler:sample record in the trace, and each system call (user mode) a
 * sampler:syscall record. Readers learn both from the trace's catalog.
 *
 * Arguments (instr-arg=): every=N (default 1000, at least 1). At exit it
 * prints on stderr how many records the host refused, if any.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qtrace/instrument.h"
#include "trace-sampler.h"

QTRACE_INSTR_DECLARE();

#define MAX_VCPUS 256

/*
 * What a block's callback needs: one per translation, kept (QEMU does
 * not say when it drops a translation).
 */
struct block {
    uint64_t pc;
    uint32_t insns;
};

static const struct qtrace_instr_host *host;
static uint64_t every = 1000;
/* Per vCPU, each written by its own vCPU's thread only. */
static uint64_t entered[MAX_VCPUS];
static uint64_t refused;        /* atomic */

static void count_refused(int ret)
{
    if (ret != QTRACE_INSTR_OK) {
        __atomic_fetch_add(&refused, 1, __ATOMIC_RELAXED);
    }
}

static void block_entered(unsigned int vcpu, void *udata)
{
    const struct block *b = udata;

    if (vcpu >= MAX_VCPUS || ++entered[vcpu] % every != 0) {
        return;
    }
    count_refused(trace_sampler_sample(host, vcpu, b->pc, b->insns,
                                       entered[vcpu]));
}

static void block_translated(struct qtrace_instr_tb *tb, void *data)
{
    struct block *b = malloc(sizeof(*b));

    (void)data;
    if (!b) {
        return;
    }
    b->pc = host->tb_vaddr(tb);
    b->insns = host->tb_n_insns(tb);
    host->exec_tb(host, tb, 0, block_entered, b);
}

static void syscall_entered(unsigned int vcpu, int64_t num,
                            const uint64_t args[8], void *data)
{
    (void)data;
    count_refused(trace_sampler_syscall(host, vcpu, (uint16_t)num, args[0],
                                        args[1]));
}

static int parse_args(int argc, const char **argv, char *errmsg)
{
    int i;

    for (i = 0; i < argc; i++) {
        char *end;

        if (strncmp(argv[i], "every=", 6) != 0) {
            snprintf(errmsg, QTRACE_INSTR_ERRMSG_MAX, "%s: unknown argument "
                     "(known: every=N)", argv[i]);
            return -1;
        }
        every = strtoull(argv[i] + 6, &end, 0);
        if (*end || every == 0) {
            snprintf(errmsg, QTRACE_INSTR_ERRMSG_MAX, "%s: expected a "
                     "number of blocks, at least 1", argv[i]);
            return -1;
        }
    }
    return 0;
}

int qtrace_instr_init(const struct qtrace_instr_host *h, int argc,
                      const char **argv, char *errmsg)
{
    int ret;

    host = h;
    if (parse_args(argc, argv, errmsg) < 0) {
        return 1;
    }
    ret = trace_sampler_register(h);
    if (ret != QTRACE_INSTR_OK) {
        snprintf(errmsg, QTRACE_INSTR_ERRMSG_MAX, "cannot register the "
                 "sampler events (%d)", ret);
        return 1;
    }
    if (!h->system_mode) {
        h->on_syscall(h, syscall_entered, NULL);
    }
    return h->on_tb_trans(h, block_translated, NULL);
}

void qtrace_instr_fini(void)
{
    if (refused) {
        fprintf(stderr, "sampler: %" PRIu64 " records refused\n", refused);
    }
}
