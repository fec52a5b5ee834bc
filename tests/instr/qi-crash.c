/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A qemu-instr library whose qi_init crashes (SIGSEGV) halfway, after
 * setting a callback: refused.
 */
#include <stdio.h>

#include "qemu-instr/control.h"

static void entered(QICPU *cpu)
{
    (void)cpu;
    fprintf(stderr, "cpu entered\n");
}

void qi_init(int argc, const char **argv)
{
    /* volatile: the compiler must not drop or fold the bad access. */
    volatile int *volatile nowhere = NULL;

    (void)argc;
    (void)argv;
    qi_ctrl_event_set(QI_EVENT_GUEST_CPU_ENTER, (void *)entered);
    *nowhere = 1;
}
