/* SPDX-License-Identifier: GPL-2.0-or-later */
/* An instrumentation library without qtrace_instr_init: refused. */
#include "qtrace/instrument.h"

QTRACE_INSTR_DECLARE();

__attribute__((visibility("default")))
int qtrace_instr_not_init(void);

int qtrace_instr_not_init(void)
{
    return 0;
}
