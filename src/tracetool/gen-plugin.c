/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The plugin's probes (--plugin --format=plugin-c): for qtrace's own
 * catalog, one function per event that takes a decoded record and, for
 * each of the ust and dtrace backends in --backends that the caller runs
 * and a tracer has switched on, fires the event's LTTng tracepoint or SDT
 * probe. The tracepoints and their probes come from the ust-events-h
 * header of the same catalog and group, the SDT probes and semaphores
 * from gen-dtrace.c. Records of ids past the catalog (instrumentation
 * libraries' own events) go to one more tracepoint and probe, lib_event.
 * src/plugin/backend-probes.h declares what this file defines.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "gen.h"
#include "qtrace/trace-control.h"

/*
 * A string argument is copied out of the record to be NUL-terminated
 * (records hold a u16 length and the bytes); longer ones are cut.
 */
#define PLUGIN_STR_BYTES 4096

static void print_local(FILE *f, const struct qtrace_arg_desc *a)
{
    if (a->type == QTRACE_ARG_STR) {
        fprintf(f, "    char %s_buf_[%d];\n    const char *%s = %s_buf_;\n",
                a->name, PLUGIN_STR_BYTES, a->name, a->name);
    } else if (a->type == QTRACE_ARG_BYTES) {
        fprintf(f, "    const uint8_t *%s;\n", a->name);
    } else {
        fprintf(f, "    %s %s;\n", gen_field_type(a), a->name);
    }
}

static bool is_signed(enum qtrace_arg_type t)
{
    return t == QTRACE_ARG_I8 || t == QTRACE_ARG_I16 ||
           t == QTRACE_ARG_I32 || t == QTRACE_ARG_I64;
}

/* Argument i of the record r_ into its local. */
static void print_decode(FILE *f, const struct qtrace_arg_desc *a,
                         unsigned int i)
{
    if (a->type == QTRACE_ARG_STR) {
        fprintf(f, "    bytes_ = qtrace_record_bytes(r_, %u, &len_);\n"
                "    len_ = len_ < sizeof(%s_buf_) ? len_ : "
                "sizeof(%s_buf_) - 1;\n"
                "    memcpy(%s_buf_, bytes_ ? bytes_ : (const uint8_t *)\"\", "
                "bytes_ ? len_ : 0);\n"
                "    %s_buf_[bytes_ ? len_ : 0] = '\\0';\n",
                i, a->name, a->name, a->name, a->name);
    } else if (a->type == QTRACE_ARG_BYTES) {
        fprintf(f, "    %s = qtrace_record_bytes(r_, %u, &len_);\n",
                a->name, i);
    } else if (a->type == QTRACE_ARG_BOOL) {
        fprintf(f, "    %s = qtrace_record_u64(r_, %u) != 0;\n", a->name, i);
    } else {
        fprintf(f, "    %s = (%s)qtrace_record_%s(r_, %u);\n", a->name,
                gen_field_type(a), is_signed(a->type) ? "i64" : "u64", i);
    }
}

static bool has_var(const struct qtrace_event_desc *ev)
{
    unsigned int i;

    for (i = 0; i < ev->n_args; i++) {
        if (ev->args[i].type == QTRACE_ARG_STR ||
            ev->args[i].type == QTRACE_ARG_BYTES) {
            return true;
        }
    }
    return false;
}

/* Nothing is decoded unless some tracer wants the event. */
static void print_event(FILE *f, const struct qtrace_event_desc *ev,
                        const struct gen_program *gp)
{
    bool ust = gp->backends & QTRACE_TRACE_BACKEND_UST;
    bool sdt = gp->backends & QTRACE_TRACE_BACKEND_DTRACE;
    unsigned int i;

    fprintf(f, "/* %s line %u: ", gp->src, ev->line);
    gen_print_signature(f, ev);
    fprintf(f, " */\nstatic void emit_%s(const struct qtrace_record *r_, "
            "unsigned int on_)\n{\n", ev->name);
    if (!ust && !sdt) {
        /* A build with neither: every event is a no-op. */
        fputs("    (void)r_;\n    (void)on_;\n}\n\n", f);
        return;
    }
    for (i = 0; i < ev->n_args; i++) {
        print_local(f, &ev->args[i]);
    }
    if (has_var(ev)) {
        fputs("    const uint8_t *bytes_ = NULL;\n    size_t len_ = 0;\n", f);
    }
    fputs("    const bool ust_ = ", f);
    if (ust) {
        fputs("(on_ & QTRACE_TRACE_BACKEND_UST) &&\n        ", f);
        gen_ust_state_h(f, ev, gp);
    } else {
        fputs("false", f);
    }
    fputs(";\n    const bool sdt_ = ", f);
    if (sdt) {
        fputs("(on_ & QTRACE_TRACE_BACKEND_DTRACE) &&\n        ", f);
        gen_dtrace_state_h(f, ev, gp);
    } else {
        fputs("false", f);
    }
    fputs(";\n\n    (void)r_;\n    (void)on_;\n", f);
    if (has_var(ev)) {
        fputs("    (void)bytes_;\n", f);
    }
    fputs("    if (!ust_ && !sdt_) {\n        return;\n    }\n", f);
    for (i = 0; i < ev->n_args; i++) {
        print_decode(f, &ev->args[i], i);
    }
    if (ust) {
        fputs("    if (ust_) {\n    ", f);
        gen_ust_call_c(f, ev, gp);
        fputs("    }\n", f);
    }
    if (sdt) {
        fputs("    if (sdt_) {\n    ", f);
        gen_dtrace_call_c(f, ev, gp);
        fputs("    }\n", f);
    }
    fputs("}\n\n", f);
}

static void print_table(FILE *f, const struct qtrace_catalog *cat)
{
    unsigned int i;

    fputs("/* By event id, as the plugin's catalog numbers them. */\n"
          "static void (*const emit_by_id[])(const struct qtrace_record *, "
          "unsigned int) = {\n    NULL,\n", f);
    for (i = 1; i <= cat->n_events; i++) {
        fprintf(f, "    emit_%s,\n", cat->events[i].name);
    }
    fputs("};\n\n", f);
}

/*
 * Ids past the table are instrumentation libraries' own events (LIB:EVENT,
 * appended to the catalog at run time): one tracepoint and one SDT probe
 * for all, with the event's name, the text qtrace dump shows and the
 * arguments as integers. Decoded only when a tracer wants them.
 */
static void print_lib_event(FILE *f, const struct gen_program *gp)
{
    bool ust = gp->backends & QTRACE_TRACE_BACKEND_UST;
    bool sdt = gp->backends & QTRACE_TRACE_BACKEND_DTRACE;
    const char *g = gp->group;
    const char *n = GEN_UST_LIB_EVENT;

    if (sdt) {
        fprintf(f, "unsigned short %s_%s_semaphore "
                "__attribute__((section(\".probes\")));\n\n", g, n);
    }
    fprintf(f, "/* A library's own event: %s:%s. */\n"
            "static void emit_lib_event(const struct qtrace_record *r_, "
            "unsigned int on_)\n{\n"
            "    uint64_t values_[QTRACE_MAX_ARGS];\n"
            "    char text_[1024];\n"
            "    unsigned int i_;\n", g, n);
    fputs("    const bool ust_ = ", f);
    if (ust) {
        fprintf(f, "(on_ & QTRACE_TRACE_BACKEND_UST) &&\n"
                "        __builtin_expect(__atomic_load_n(\n"
                "            &lttng_ust_tracepoint_%s___%s.state, "
                "__ATOMIC_RELAXED) != 0, 0);\n", g, n);
    } else {
        fputs("false;\n", f);
    }
    fputs("    const bool sdt_ = ", f);
    if (sdt) {
        fprintf(f, "(on_ & QTRACE_TRACE_BACKEND_DTRACE) &&\n"
                "        __builtin_expect(__atomic_load_n(&%s_%s_semaphore, "
                "__ATOMIC_RELAXED) != 0, 0);\n", g, n);
    } else {
        fputs("false;\n", f);
    }
    fputs("\n    if ((!ust_ && !sdt_) || !strchr(r_->ev->name, ':')) {\n"
          "        return;\n    }\n"
          "    for (i_ = 0; i_ < r_->ev->n_args && i_ < QTRACE_MAX_ARGS; "
          "i_++) {\n"
          "        values_[i_] = qtrace_record_u64(r_, i_);\n    }\n"
          "    qtrace_record_fmt(r_, text_, sizeof(text_));\n", f);
    if (ust) {
        fprintf(f, "    if (ust_) {\n        lttng_ust_tracepoint(%s, %s, "
                "r_->ev->name, text_, values_,\n"
                "                             i_);\n    }\n", g, n);
    }
    if (sdt) {
        fprintf(f, "    if (sdt_) {\n        STAP_PROBE4(%s, %s, "
                "r_->ev->name, text_, i_, values_);\n    }\n", g, n);
    }
    fputs("}\n\n", f);
}

void gen_plugin_c(FILE *f, const struct qtrace_catalog *cat,
                  const struct gen_program *gp)
{
    unsigned int i;
    unsigned int probes = gp->backends & GEN_EXTERNAL_BACKENDS;

    fprintf(f, "/*\n * The plugin's probes for group '%s', generated from "
            "%s by qtrace-tracetool;\n * do not edit.\n */\n"
            "#include <stdbool.h>\n#include <stddef.h>\n"
            "#include <stdint.h>\n#include <string.h>\n\n"
            "#include \"backend-probes.h\"\n#include \"qtrace/reader.h\"\n"
            "#include \"qtrace/trace-control.h\"\n\n",
            gp->group, gp->src);
    if (probes & QTRACE_TRACE_BACKEND_UST) {
        gen_ust_include_c(f, gp);
    }
    if (probes & QTRACE_TRACE_BACKEND_DTRACE) {
        gen_dtrace_include_c(f, cat, gp);
    }
    for (i = 1; i <= cat->n_events; i++) {
        print_event(f, &cat->events[i], gp);
    }
    print_table(f, cat);
    if (probes) {
        print_lib_event(f, gp);
    }
    fputs("void backend_probes_emit(const struct qtrace_record *rec, "
          "unsigned int on)\n{\n"
          "    if (rec->ev->id < sizeof(emit_by_id) / sizeof(emit_by_id[0])) "
          "{\n        emit_by_id[rec->ev->id](rec, on);\n    }", f);
    if (probes) {
        fputs(" else {\n        emit_lib_event(rec, on);\n    }", f);
    }
    fputs("\n}\n", f);
}
