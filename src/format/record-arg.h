/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A record's argument as an integer, inline: the readers that decode
 * millions of records (the call stack of report and replay) call it
 * per field, and a call per field was a seventh of a report.
 */
#ifndef QTRACE_FORMAT_RECORD_ARG_H
#define QTRACE_FORMAT_RECORD_ARG_H

#include <stdint.h>

#include "le.h"
#include "qtrace/reader.h"

/*
 * Integer value of argument arg, sign-extended for signed types; for STR
 * and BYTES, their length. 0 when arg or its bytes are out of range.
 */
static inline int64_t record_arg_value(const struct qtrace_record *rec,
                                       unsigned int arg)
{
    const struct qtrace_arg_desc *a;
    const uint8_t *p;

    if (!rec->ev || arg >= rec->ev->n_args) {
        return 0;
    }
    a = &rec->ev->args[arg];
    if ((uint32_t)a->offset + a->size > rec->size) {
        return 0;
    }
    p = rec->data + a->offset;
    switch (a->type) {
    case QTRACE_ARG_U8:
    case QTRACE_ARG_BOOL:
        return p[0];
    case QTRACE_ARG_I8:
        return (int8_t)p[0];
    case QTRACE_ARG_U16:
    case QTRACE_ARG_STR:
    case QTRACE_ARG_BYTES:
        return load16(p);
    case QTRACE_ARG_I16:
        return (int16_t)load16(p);
    case QTRACE_ARG_U32:
        return load32(p);
    case QTRACE_ARG_I32:
        return (int32_t)load32(p);
    case QTRACE_ARG_U64:
    case QTRACE_ARG_I64:
        return (int64_t)load64(p);
    }
    return 0;
}

#endif /* QTRACE_FORMAT_RECORD_ARG_H */
