/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A qemu-instr library with qi_fini but no qi_init: refused. */
#include "qemu-instr/control.h"

void qi_fini(void)
{
}
