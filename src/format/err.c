/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Filling a struct qtrace_err (see qtrace/err.h). */
#include <stdarg.h>
#include <stdio.h>

#include "qtrace/err.h"

void qtrace_err_set(struct qtrace_err *err, const char *fmt, ...)
{
    va_list ap;

    if (!err) {
        return;
    }
    va_start(ap, fmt);
    vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
    va_end(ap);
}
