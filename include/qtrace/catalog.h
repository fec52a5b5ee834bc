/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Event catalog: the description of every event a trace may hold, parsed
 * from a trace-events file (QEMU's syntax). The plugin parses its built-in
 * catalog at load time; every trace embeds the catalog it was written with,
 * and the reader parses that copy, so a trace stays readable by a qtrace
 * whose own catalog has changed. Record layout rules: docs/format.md.
 */
#ifndef QTRACE_CATALOG_H
#define QTRACE_CATALOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "qtrace/err.h"

#define QTRACE_MAX_ARGS 12          /* arguments per event */
#define QTRACE_MAX_EVENTS 1024      /* events per catalog, ids 1..1023 */

enum qtrace_arg_type {
    QTRACE_ARG_U8,
    QTRACE_ARG_U16,
    QTRACE_ARG_U32,
    QTRACE_ARG_U64,
    QTRACE_ARG_I8,
    QTRACE_ARG_I16,
    QTRACE_ARG_I32,
    QTRACE_ARG_I64,
    QTRACE_ARG_BOOL,
    QTRACE_ARG_STR,                 /* const char *: u16 length + bytes */
    QTRACE_ARG_BYTES,               /* const uint8_t * / const void *: same */
};

struct qtrace_arg_desc {
    char name[32];                  /* C identifier from trace-events */
    char ctype[32];                 /* type as written, e.g. "uint64_t" */
    enum qtrace_arg_type type;
    uint16_t offset;                /* bytes from record start; for STR and
                                       BYTES, where the u16 length sits */
    uint16_t size;                  /* bytes in the fixed part (2 for var) */
};

struct qtrace_event_desc {
    uint16_t id;                    /* 1-based, in catalog order */
    char name[64];
    bool disabled;                  /* "disable" keyword: off by default */
    bool vcpu;                      /* "vcpu": implicit first arg __cpu */
    char *fmt;                      /* printf format, PRI macros expanded */
    char *fmt_src;                  /* the format as written: C literals
                                       and PRI macros, for generated C */
    unsigned int n_args;
    struct qtrace_arg_desc args[QTRACE_MAX_ARGS];
    uint16_t fixed_size;            /* header + fixed args, unpadded */
    bool has_var;                   /* any STR or BYTES argument */
    unsigned int line;              /* line in the trace-events text */
    unsigned int fmt_col;           /* column of the format's first '"' */
};

struct qtrace_catalog {
    struct qtrace_event_desc *events;   /* events[0] unused; 1..n_events */
    unsigned int n_events;
    char *text;                     /* copy of the parsed trace-events */
};

/*
 * Parse trace-events text into cat (ids from 1 in order of appearance).
 * Returns 0, or -EINVAL with err as "LINE:COLUMN: problem" (the caller
 * puts the file name in front).
 * cat is owned by the caller; release it with qtrace_catalog_fini().
 */
int qtrace_catalog_parse(struct qtrace_catalog *cat, const char *text,
                         struct qtrace_err *err);
void qtrace_catalog_fini(struct qtrace_catalog *cat);

/* Event by name or by id; NULL if absent. */
const struct qtrace_event_desc *
qtrace_catalog_find(const struct qtrace_catalog *cat, const char *name);
const struct qtrace_event_desc *
qtrace_catalog_get(const struct qtrace_catalog *cat, unsigned int id);

/* Index of ev's argument called name, or -1 (also when ev is NULL). */
int qtrace_event_arg(const struct qtrace_event_desc *ev, const char *name);

#endif /* QTRACE_CATALOG_H */
