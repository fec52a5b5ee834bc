/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The generator's outputs, all from one parsed catalog: the plugin's
 * record structs (gen-records.c) and a program's trace.h and trace.c for
 * the tracing runtime (gen-program.c). Each writes one file to f.
 */
#ifndef QTRACE_TRACETOOL_GEN_H
#define QTRACE_TRACETOOL_GEN_H

#include <stdio.h>

#include "qtrace/catalog.h"

/* What a program's generated code is for: --backends and --group. */
struct gen_program {
    unsigned int backends;          /* QTRACE_TRACE_BACKEND_* */
    const char *group;              /* C identifier */
    const char *src;                /* trace-events name, for comments */
    const char *h_name;             /* the header trace.c includes */
};

void gen_records_h(FILE *f, const struct qtrace_catalog *cat,
                   const char *src);
void gen_records_c(FILE *f, const struct qtrace_catalog *cat,
                   const char *src, const char *h_name);

void gen_program_h(FILE *f, const struct qtrace_catalog *cat,
                   const struct gen_program *gp);
void gen_program_c(FILE *f, const struct qtrace_catalog *cat,
                   const struct gen_program *gp);

/* Helpers both use. */
void gen_upper(const char *name, char *out, size_t size);
void gen_print_c_string(FILE *f, const char *text);
void gen_print_signature(FILE *f, const struct qtrace_event_desc *ev);

#endif /* QTRACE_TRACETOOL_GEN_H */
