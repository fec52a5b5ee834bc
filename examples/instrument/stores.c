/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Example instrumentation library: counts the guest's stores (and its
 * loads with the argument "loads"), asking QEMU for a memory callback on
 * those accesses only.
 *
 * Arguments (instr-arg=): out=FILE (default stderr); loads.
 * Output, at exit: "stores N", then with loads "loads N", then
 * "store SIZE N" per access size in bytes.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "qtrace/instrument.h"
#include "out-file.h"

QTRACE_INSTR_DECLARE();

static const struct qtrace_instr_host *host;
static FILE *out;
static bool want_loads;
/* Atomic: vCPUs store concurrently. Index: log2 of the size, to 16. */
static uint64_t stores_by_size[5];
static uint64_t loads;

static unsigned int size_index(uint8_t size)
{
    unsigned int k = 0;

    while (k < 4 && (1u << k) < size) {
        k++;
    }
    return k;
}

static void accessed(unsigned int vcpu, const struct qtrace_instr_mem *a,
                     void *udata)
{
    (void)vcpu;
    (void)udata;
    if (a->store) {
        __atomic_fetch_add(&stores_by_size[size_index(a->size)], 1,
                           __ATOMIC_RELAXED);
    } else {
        __atomic_fetch_add(&loads, 1, __ATOMIC_RELAXED);
    }
}

static void block_translated(struct qtrace_instr_tb *tb, void *data)
{
    uint32_t i, n = host->tb_n_insns(tb);

    (void)data;
    for (i = 0; i < n; i++) {
        host->exec_mem(host, tb, i, want_loads ? QTRACE_INSTR_LOADS_STORES :
                       QTRACE_INSTR_STORES, accessed, NULL);
    }
}

int qtrace_instr_init(const struct qtrace_instr_host *h, int argc,
                      const char **argv, char *errmsg)
{
    int i;

    host = h;
    for (i = 0; i < argc; i++) {
        if (strcmp(argv[i], "loads") == 0) {
            want_loads = true;
        } else if (strncmp(argv[i], "out=", 4) != 0) {
            snprintf(errmsg, QTRACE_INSTR_ERRMSG_MAX,
                     "unknown argument %s (known: out=FILE, loads)", argv[i]);
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
    uint64_t total = 0;
    unsigned int k;

    for (k = 0; k < 5; k++) {
        total += stores_by_size[k];
    }
    fprintf(out, "stores %llu\n", (unsigned long long)total);
    if (want_loads) {
        fprintf(out, "loads %llu\n", (unsigned long long)loads);
    }
    for (k = 0; k < 5; k++) {
        if (stores_by_size[k]) {
            fprintf(out, "store %u %llu\n", 1u << k,
                    (unsigned long long)stores_by_size[k]);
        }
    }
    example_out_close(out);
}
