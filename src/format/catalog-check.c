/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Checking a trace's catalog against what the reader needs (see
 * catalog-check.h). The table below lists every field that reader code
 * loads or stores at a catalog offset with a fixed width: the unpacker
 * writes exec_tb, mem_access, func_entry and func_exit records into a
 * 64-byte buffer, and reads tb_trans and lost records in place. A
 * declared type of another width would make those accesses run past the
 * field, and past the record or the buffer.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "catalog-check.h"
#include "qtrace/format.h"

/* The kinds of field the reader accesses. */
enum need {
    NEED_INT8,                      /* any 1-byte integer or bool */
    NEED_INT32,                     /* any 4-byte integer */
    NEED_INT64,                     /* any 8-byte integer */
    NEED_STR,                       /* const char *: a u16 length */
    NEED_BYTES,                     /* const uint8_t *: a u16 length */
};

struct field_need {
    const char *event;
    const char *field;
    enum need need;
};

/* Keep in step with unpack_init(), reader-clock.c and docs/format.md. */
static const struct field_need needs[] = {
    { "exec_tb", "pc", NEED_INT64 },
    { "exec_tb", "tb", NEED_INT32 },
    { "tb_trans", "pc", NEED_INT64 },
    { "tb_trans", "tb", NEED_INT32 },
    { "tb_trans", "size", NEED_INT32 },
    { "tb_trans", "n_insns", NEED_INT32 },
    { "tb_trans", "code", NEED_BYTES },
    { "mem_access", "pc", NEED_INT64 },
    { "mem_access", "vaddr", NEED_INT64 },
    { "mem_access", "paddr", NEED_INT64 },
    { "mem_access", "size", NEED_INT8 },
    { "mem_access", "flags", NEED_INT8 },
    { "mem_access", "device", NEED_STR },
    { "mem_access", "value", NEED_INT64 },
    { "func_entry", "pc", NEED_INT64 },
    { "func_entry", "from", NEED_INT64 },
    { "func_entry", "depth", NEED_INT32 },
    { "func_entry", "kind", NEED_INT8 },
    { "func_exit", "pc", NEED_INT64 },
    { "func_exit", "to", NEED_INT64 },
    { "func_exit", "depth", NEED_INT32 },
    { "func_exit", "kind", NEED_INT8 },
    { "lost", "records", NEED_INT64 },
    { "lost", "block_insns", NEED_INT32 },
    { "clock", "ns", NEED_INT64 },
    { "clock", "resume_ns", NEED_INT64 },
};

static unsigned int need_width(enum need n)
{
    switch (n) {
    case NEED_INT8:
        return 1;
    case NEED_INT32:
        return 4;
    case NEED_INT64:
        return 8;
    default:
        return 2;
    }
}

static const char *need_text(enum need n)
{
    switch (n) {
    case NEED_INT8:
        return "an 8-bit field";
    case NEED_INT32:
        return "a 32-bit field";
    case NEED_INT64:
        return "a 64-bit field";
    case NEED_STR:
        return "a string (const char *) field";
    default:
        return "a bytes (const uint8_t *) field";
    }
}

static bool type_meets(enum qtrace_arg_type t, enum need n)
{
    switch (n) {
    case NEED_INT8:
        return t == QTRACE_ARG_U8 || t == QTRACE_ARG_I8 ||
               t == QTRACE_ARG_BOOL;
    case NEED_INT32:
        return t == QTRACE_ARG_U32 || t == QTRACE_ARG_I32;
    case NEED_INT64:
        return t == QTRACE_ARG_U64 || t == QTRACE_ARG_I64;
    case NEED_STR:
        return t == QTRACE_ARG_STR;
    default:
        return t == QTRACE_ARG_BYTES;
    }
}

/* An argument lies after the record header and inside the fixed part. */
static bool arg_inside(const struct qtrace_event_desc *ev,
                       const struct qtrace_arg_desc *a, unsigned int width)
{
    return a->offset >= sizeof(struct qtrace_rec) &&
           (unsigned int)a->offset + width <= ev->fixed_size;
}

/* Every event: its arguments inside its fixed part, a sane fixed part. */
static int check_layouts(const struct qtrace_catalog *cat,
                         struct qtrace_err *err)
{
    unsigned int id, i;

    for (id = 1; id <= cat->n_events; id++) {
        const struct qtrace_event_desc *ev = &cat->events[id];

        if (ev->fixed_size < sizeof(struct qtrace_rec) ||
            ev->fixed_size > QTRACE_REC_MAX) {
            qtrace_err_set(err, "catalog: event %s has a fixed part of %u "
                           "bytes, outside 16..%u", ev->name,
                           ev->fixed_size, QTRACE_REC_MAX);
            return -EBADMSG;
        }
        for (i = 0; i < ev->n_args; i++) {
            const struct qtrace_arg_desc *a = &ev->args[i];

            if (!arg_inside(ev, a, a->size)) {
                qtrace_err_set(err, "catalog: event %s field %s at offset "
                               "%u is outside its %u-byte fixed part",
                               ev->name, a->name, a->offset, ev->fixed_size);
                return -EBADMSG;
            }
        }
    }
    return 0;
}

static const struct qtrace_arg_desc *
find_arg(const struct qtrace_event_desc *ev, const char *name)
{
    unsigned int i;

    for (i = 0; i < ev->n_args; i++) {
        if (strcmp(ev->args[i].name, name) == 0) {
            return &ev->args[i];
        }
    }
    return NULL;
}

int catalog_check_reader_needs(const struct qtrace_catalog *cat,
                               struct qtrace_err *err)
{
    size_t i;
    int ret = check_layouts(cat, err);

    for (i = 0; ret == 0 && i < sizeof(needs) / sizeof(needs[0]); i++) {
        const struct field_need *n = &needs[i];
        const struct qtrace_event_desc *ev =
            qtrace_catalog_find(cat, n->event);
        const struct qtrace_arg_desc *a = ev ? find_arg(ev, n->field) : NULL;

        if (!a || (type_meets(a->type, n->need) &&
                   arg_inside(ev, a, need_width(n->need)))) {
            continue;
        }
        qtrace_err_set(err, "catalog: event %s field %s is %s at offset %u, "
                       "the reader needs %s inside the record", ev->name,
                       a->name, a->ctype, a->offset, need_text(n->need));
        ret = -EBADMSG;
    }
    return ret;
}
