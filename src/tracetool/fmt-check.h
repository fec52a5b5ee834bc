/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Checks a trace-events format against its event's argument types, the
 * way a C compiler would check a printf call, plus QEMU's own format
 * rules. Used by the generator for every catalog it turns into C.
 */
#ifndef QTRACE_TRACETOOL_FMT_CHECK_H
#define QTRACE_TRACETOOL_FMT_CHECK_H

#include <stdbool.h>

#include "qtrace/catalog.h"

/*
 * How byte-array arguments ("const uint8_t *", "const void *") count:
 * in the plugin's records they are data with no conversion of their own;
 * in a program's trace.h they are pointers, printed with %p as in QEMU.
 */
enum fmt_check_mode {
    FMT_CHECK_RECORDS,
    FMT_CHECK_PROGRAM,
};

/* True if the argument is traced as a pointer value in this mode. */
bool fmt_arg_is_pointer(const struct qtrace_arg_desc *a,
                        enum fmt_check_mode mode);

/*
 * Check ev's format; 0, or -EINVAL with err as "LINE:COLUMN: problem"
 * (the column of the format's first quote).
 */
int fmt_check_event(const struct qtrace_event_desc *ev,
                    enum fmt_check_mode mode, struct qtrace_err *err);

#endif /* QTRACE_TRACETOOL_FMT_CHECK_H */
