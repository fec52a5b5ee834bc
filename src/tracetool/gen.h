/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The generator's outputs, all from one parsed catalog: the plugin's
 * record structs (gen-records.c) and a program's trace.h and trace.c for
 * the tracing runtime (gen-program.c). Each writes one file to f.
 */
#ifndef QTRACE_TRACETOOL_GEN_H
#define QTRACE_TRACETOOL_GEN_H

#include <stdbool.h>
#include <stdio.h>

#include "qtrace/catalog.h"
#include "qtrace/trace-control.h"

/* What a program's generated code is for: --backends and --group. */
struct gen_program {
    unsigned int backends;          /* QTRACE_TRACE_BACKEND_* */
    const char *group;              /* C identifier; also the ust provider
                                       and the sdt provider */
    const char *src;                /* trace-events name, for comments */
    const char *h_name;             /* the header trace.c includes */
    const char *binary;             /* --binary, for --format=stap */
    const char *probe_prefix;       /* stap probe prefix, "qemu.NAME" */
    bool plugin;                    /* --plugin: qtrace's own catalog; the
                                       ust provider adds lib_event */
};

/* The backends with a switch of their own (an LTTng session, a tracer). */
#define GEN_EXTERNAL_BACKENDS \
    (QTRACE_TRACE_BACKEND_UST | QTRACE_TRACE_BACKEND_DTRACE)

void gen_records_h(FILE *f, const struct qtrace_catalog *cat,
                   const char *src);
void gen_records_c(FILE *f, const struct qtrace_catalog *cat,
                   const char *src, const char *h_name);

void gen_program_h(FILE *f, const struct qtrace_catalog *cat,
                   const struct gen_program *gp);
void gen_program_c(FILE *f, const struct qtrace_catalog *cat,
                   const struct gen_program *gp);

/*
 * LTTng-UST (gen-ust.c): the tracepoint provider header
 * (--format=ust-events-h, named GEN_UST_HEADER), and the parts trace.h
 * and trace.c hold for the ust backend.
 */
#define GEN_UST_HEADER "trace-ust-%s.h"     /* %s: the group */
#define GEN_UST_MAX_ARGS 10                 /* LTTng's TP_ARGS takes 10 */
#define GEN_UST_LIB_EVENT "lib_event"       /* the plugin's tracepoint for
                                               libraries' own events */
void gen_ust_events_h(FILE *f, const struct qtrace_catalog *cat,
                      const struct gen_program *gp);
void gen_ust_decl_h(FILE *f, const struct qtrace_event_desc *ev,
                    const struct gen_program *gp);
void gen_ust_state_h(FILE *f, const struct qtrace_event_desc *ev,
                     const struct gen_program *gp);
void gen_ust_include_c(FILE *f, const struct gen_program *gp);
void gen_ust_call_c(FILE *f, const struct qtrace_event_desc *ev,
                    const struct gen_program *gp);

/*
 * SystemTap SDT / USDT (gen-dtrace.c): QEMU's .d file (--format=d) and
 * SystemTap wrapper (--format=stap), and the sdt probe, with a semaphore
 * a tracer raises, in trace.h and trace.c for the dtrace backend.
 */
void gen_dtrace_d(FILE *f, const struct qtrace_catalog *cat,
                  const struct gen_program *gp);
void gen_dtrace_stap(FILE *f, const struct qtrace_catalog *cat,
                     const struct gen_program *gp);
void gen_dtrace_decl_h(FILE *f, const struct qtrace_event_desc *ev,
                       const struct gen_program *gp);
void gen_dtrace_state_h(FILE *f, const struct qtrace_event_desc *ev,
                        const struct gen_program *gp);
void gen_dtrace_include_c(FILE *f, const struct qtrace_catalog *cat,
                          const struct gen_program *gp);
void gen_dtrace_call_c(FILE *f, const struct qtrace_event_desc *ev,
                       const struct gen_program *gp);

/*
 * The plugin's probes (gen-plugin.c, --plugin --format=plugin-c):
 * backend_probes_emit() for src/plugin/backend-probes.h, firing each
 * record's ust tracepoint and dtrace probe.
 */
void gen_plugin_c(FILE *f, const struct qtrace_catalog *cat,
                  const struct gen_program *gp);

/*
 * An instrumentation library's own events (gen-instr.c, --instr=LIB):
 * one header with their catalog lines named LIB:EVENT, the registration
 * call and a typed call per event. src: the trace-events name.
 */
void gen_instr_h(FILE *f, const struct qtrace_catalog *cat, const char *lib,
                 const char *src);

/* Helpers all use. */
void gen_upper(const char *name, char *out, size_t size);
void gen_print_c_string(FILE *f, const char *text);
void gen_print_signature(FILE *f, const struct qtrace_event_desc *ev);
/* The fixed-width C type of an integer argument ("int64_t" for long). */
const char *gen_field_type(const struct qtrace_arg_desc *a);

#endif /* QTRACE_TRACETOOL_GEN_H */
