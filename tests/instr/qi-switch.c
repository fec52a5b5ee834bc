/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A qemu-instr library that changes a callback at run time: it asks for
 * the execution of every memory access (guest_mem_before_trans set to
 * _gen_exec), counts the executions, and after the Nth one
 *   mode=trans: sets guest_mem_before_trans to NULL, a translation-time
 *     change: qtrace flushes the translations and the retranslated code
 *     has no callback left;
 *   mode=exec: sets guest_mem_before_exec to NULL, which takes effect at
 *     the next access.
 * Arguments: mode=trans|exec, after=N, out=FILE (default stderr).
 * Output at exit: "executed N".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qemu-instr/control.h"

static FILE *out;
static unsigned long executed;
static unsigned long after = 10;
static bool switch_trans = true;

static void access_executed(QICPU *cpu, uint64_t vaddr, uint8_t info)
{
    (void)cpu;
    (void)vaddr;
    (void)info;
    /* One vCPU in the tests that use it: no atomics needed. */
    if (++executed == after) {
        qi_ctrl_event_set(switch_trans ? QI_EVENT_GUEST_MEM_BEFORE_TRANS :
                                         QI_EVENT_GUEST_MEM_BEFORE_EXEC,
                          NULL);
    }
}

void qi_init(int argc, const char **argv)
{
    int i;

    out = stderr;
    for (i = 1; i < argc; i++) {
        if (strcmp(argv[i], "mode=exec") == 0) {
            switch_trans = false;
        } else if (strncmp(argv[i], "after=", 6) == 0) {
            after = strtoul(argv[i] + 6, NULL, 10);
        } else if (strncmp(argv[i], "out=", 4) == 0) {
            out = fopen(argv[i] + 4, "w");
        }
    }
    qi_ctrl_event_set(QI_EVENT_GUEST_MEM_BEFORE_TRANS,
                      (void *)qi_event_guest_mem_before_trans_gen_exec);
    qi_ctrl_event_set(QI_EVENT_GUEST_MEM_BEFORE_EXEC,
                      (void *)access_executed);
}

void qi_fini(void)
{
    if (out) {
        fprintf(out, "executed %lu\n", executed);
        fflush(out);
    }
}
