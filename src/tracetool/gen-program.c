/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A program's trace.h and trace.c, as QEMU's tracetool makes them:
 * trace.h gives trace_foo() (an inline test of one flag, then an
 * out-of-line call), TRACE_FOO and TRACE_FOO_ENABLED; trace.c holds the
 * events' state, registers the group from a constructor and calls each
 * chosen backend of libqtrace-trace (qtrace/trace-emit.h). The ust and
 * dtrace parts, which have switches of their own, come from gen-ust.c
 * and gen-dtrace.c.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "fmt-check.h"
#include "gen.h"
#include "qtrace/trace-control.h"

#define NAME_MAX_UPPER 64

/* Does trace_foo() do anything: not "disable", not only nop? */
static bool is_live(const struct qtrace_event_desc *ev,
                    const struct gen_program *gp)
{
    return !ev->disabled && (gp->backends & ~QTRACE_TRACE_BACKEND_NOP);
}

/* "type name" of one parameter, spaced as C wants. */
static void print_param(FILE *f, const struct qtrace_arg_desc *a)
{
    size_t n = strlen(a->ctype);

    fprintf(f, "%s%s%s", a->ctype, (n && a->ctype[n - 1] == '*') ? "" : " ",
            a->name);
}

static void print_params(FILE *f, const struct qtrace_event_desc *ev)
{
    unsigned int i;

    if (ev->n_args == 0) {
        fputs("void", f);
    }
    for (i = 0; i < ev->n_args; i++) {
        fputs(i ? ", " : "", f);
        print_param(f, &ev->args[i]);
    }
}

static void print_arg_names(FILE *f, const struct qtrace_event_desc *ev,
                            bool leading_comma)
{
    unsigned int i;

    for (i = 0; i < ev->n_args; i++) {
        fprintf(f, "%s%s", (i || leading_comma) ? ", " : "",
                ev->args[i].name);
    }
}

/*
 * TRACE_FOO_BACKEND_DSTATE(): the switches of ust and dtrace, which live
 * outside qtrace (an LTTng session, an attached tracer); 0 without them.
 */
static void print_backend_dstate(FILE *f, const struct qtrace_event_desc *ev,
                                 const struct gen_program *gp,
                                 const char *up)
{
    unsigned int ext = is_live(ev, gp) ? gp->backends & GEN_EXTERNAL_BACKENDS
                                       : 0;

    if (ext & QTRACE_TRACE_BACKEND_UST) {
        gen_ust_decl_h(f, ev, gp);
    }
    if (ext & QTRACE_TRACE_BACKEND_DTRACE) {
        gen_dtrace_decl_h(f, ev, gp);
    }
    fprintf(f, "#define TRACE_%s_BACKEND_DSTATE() (", up);
    if (!ext) {
        fputs("0", f);
    }
    if (ext & QTRACE_TRACE_BACKEND_UST) {
        gen_ust_state_h(f, ev, gp);
    }
    if (ext == GEN_EXTERNAL_BACKENDS) {
        fputs(" || \\\n    ", f);
    }
    if (ext & QTRACE_TRACE_BACKEND_DTRACE) {
        gen_dtrace_state_h(f, ev, gp);
    }
    fputs(")\n", f);
}

static void print_event_h(FILE *f, const struct qtrace_event_desc *ev,
                          const struct gen_program *gp)
{
    char up[NAME_MAX_UPPER];
    unsigned int i;

    gen_upper(ev->name, up, sizeof(up));
    fprintf(f, "/* %s line %u: ", gp->src, ev->line);
    gen_print_signature(f, ev);
    fprintf(f, " */\n#define TRACE_%s_ENABLED %d\nextern uint16_t "
            "_TRACE_%s_DSTATE;\n", up, is_live(ev, gp) ? 1 : 0, up);
    print_backend_dstate(f, ev, gp, up);
    if (is_live(ev, gp)) {
        fprintf(f, "void _nocheck__trace_%s(", ev->name);
        print_params(f, ev);
        fputs(");\n", f);
    }
    fprintf(f, "static inline void trace_%s(", ev->name);
    print_params(f, ev);
    fputs(")\n{\n", f);
    if (is_live(ev, gp)) {
        fprintf(f, "    if (trace_event_get_state_backends(TRACE_%s)) {\n"
                "        _nocheck__trace_%s(", up, ev->name);
        print_arg_names(f, ev, false);
        fputs(");\n    }\n", f);
    } else {
        for (i = 0; i < ev->n_args; i++) {
            fprintf(f, "    (void)%s;\n", ev->args[i].name);
        }
    }
    fputs("}\n\n", f);
}

void gen_program_h(FILE *f, const struct qtrace_catalog *cat,
                   const struct gen_program *gp)
{
    char gup[NAME_MAX_UPPER];
    char up[NAME_MAX_UPPER];
    unsigned int i;

    gen_upper(gp->group, gup, sizeof(gup));
    fprintf(f, "/*\n * Trace events of group '%s', generated from %s by "
            "qtrace-tracetool;\n * do not edit. Link with libqtrace-trace "
            "(pkg-config qtrace-trace).\n */\n"
            "#ifndef QTRACE_TRACE_GROUP_%s_H\n#define QTRACE_TRACE_GROUP_%s_H"
            "\n\n#include <stdbool.h>\n#include <stddef.h>\n"
            "#include <stdint.h>\n#include <sys/types.h>\n\n"
            "#include \"qtrace/trace-control.h\"\n", gp->group, gp->src,
            gup, gup);
    if (gp->backends & QTRACE_TRACE_BACKEND_UST) {
        fputs("#include <lttng/tracepoint-types.h>\n", f);
    }
    fprintf(f, "\nenum trace_%s_event_id {\n", gp->group);
    for (i = 1; i <= cat->n_events; i++) {
        gen_upper(cat->events[i].name, up, sizeof(up));
        fprintf(f, "    TRACE_%s = %u,\n", up, i - 1);
    }
    fprintf(f, "    TRACE_%s_EVENT_COUNT = %u\n};\n\n", gup, cat->n_events);
    for (i = 1; i <= cat->n_events; i++) {
        print_event_h(f, &cat->events[i], gp);
    }
    fprintf(f, "#endif /* QTRACE_TRACE_GROUP_%s_H */\n", gup);
}

/* The simple backend: a record of u64 values and length-prefixed strings. */
static void print_simple(FILE *f, const struct qtrace_event_desc *ev,
                         const struct gen_program *gp)
{
    unsigned int i;

    fputs("    {\n        struct qtrace_st_rec rec;\n", f);
    for (i = 0; i < ev->n_args; i++) {
        if (ev->args[i].type == QTRACE_ARG_STR) {
            fprintf(f, "        uint32_t len_%s = qtrace_st_strlen(%s);\n",
                    ev->args[i].name, ev->args[i].name);
        }
    }
    fprintf(f, "\n        if (qtrace_st_begin(&rec, &trace_%s_events[%u], 0",
            gp->group, ev->id - 1);
    for (i = 0; i < ev->n_args; i++) {
        if (ev->args[i].type == QTRACE_ARG_STR) {
            fprintf(f, " + 4 + len_%s", ev->args[i].name);
        } else {
            fputs(" + 8", f);
        }
    }
    fputs(") == 0) {\n", f);
    for (i = 0; i < ev->n_args; i++) {
        const struct qtrace_arg_desc *a = &ev->args[i];

        if (a->type == QTRACE_ARG_STR) {
            fprintf(f, "            qtrace_st_str(&rec, %s, len_%s);\n",
                    a->name, a->name);
        } else if (fmt_arg_is_pointer(a, FMT_CHECK_PROGRAM)) {
            fprintf(f, "            qtrace_st_u64(&rec, (uint64_t)"
                    "(uintptr_t)%s);\n", a->name);
        } else {
            fprintf(f, "            qtrace_st_u64(&rec, (uint64_t)%s);\n",
                    a->name);
        }
    }
    fputs("            qtrace_st_end(&rec);\n        }\n    }\n", f);
}

/* A printf-like backend: "name " then the format as written. */
static void print_printf(FILE *f, const char *fn,
                         const struct qtrace_event_desc *ev)
{
    fprintf(f, "    %s(\"%s \" %s", fn, ev->name, ev->fmt_src);
    print_arg_names(f, ev, true);
    fputs(");\n", f);
}

/* The backends of libqtrace-trace, which --trace switches on. */
static void print_qtrace_backends(FILE *f, const struct qtrace_event_desc *ev,
                                  const struct gen_program *gp)
{
    if (gp->backends & QTRACE_TRACE_BACKEND_LOG) {
        print_printf(f, "qtrace_trace_log", ev);
    }
    if (gp->backends & QTRACE_TRACE_BACKEND_SIMPLE) {
        print_simple(f, ev, gp);
    }
    if (gp->backends & QTRACE_TRACE_BACKEND_FTRACE) {
        print_printf(f, "qtrace_trace_ftrace", ev);
    }
    if (gp->backends & QTRACE_TRACE_BACKEND_SYSLOG) {
        print_printf(f, "qtrace_trace_syslog", ev);
    }
}

/*
 * With ust or dtrace the call may come for them alone, so the other
 * backends test the event's own state again; each backend gets the
 * event when its own switch is on, as in QEMU.
 */
static void print_event_c(FILE *f, const struct qtrace_event_desc *ev,
                          const struct gen_program *gp)
{
    char up[NAME_MAX_UPPER];
    bool own = gp->backends & ~(GEN_EXTERNAL_BACKENDS |
                                QTRACE_TRACE_BACKEND_NOP);
    bool guard = own && (gp->backends & GEN_EXTERNAL_BACKENDS);

    gen_upper(ev->name, up, sizeof(up));
    fprintf(f, "/* %s line %u */\nvoid _nocheck__trace_%s(", gp->src,
            ev->line, ev->name);
    print_params(f, ev);
    fputs(")\n{\n", f);
    if (guard) {
        fprintf(f, "    if (trace_event_get_state_dynamic_by_id(TRACE_%s)) "
                "{\n", up);
    }
    print_qtrace_backends(f, ev, gp);
    if (guard) {
        fputs("    }\n", f);
    }
    if (gp->backends & QTRACE_TRACE_BACKEND_UST) {
        gen_ust_call_c(f, ev, gp);
    }
    if (gp->backends & QTRACE_TRACE_BACKEND_DTRACE) {
        gen_dtrace_call_c(f, ev, gp);
    }
    fputs("}\n\n", f);
}

static void print_group(FILE *f, const struct qtrace_catalog *cat,
                        const struct gen_program *gp)
{
    char up[NAME_MAX_UPPER];
    unsigned int i;

    fprintf(f, "struct trace_event trace_%s_events[%u] = {\n", gp->group,
            cat->n_events ? cat->n_events : 1);
    for (i = 1; i <= cat->n_events; i++) {
        gen_upper(cat->events[i].name, up, sizeof(up));
        fprintf(f, "    { .name = \"%s\", .dstate = &_TRACE_%s_DSTATE, "
                ".sstate = %s },\n", cat->events[i].name, up,
                is_live(&cat->events[i], gp) ? "true" : "false");
    }
    fprintf(f, "};\n\nstatic struct trace_event_group trace_%s_group = {\n"
            "    .name = \"%s\",\n    .events = trace_%s_events,\n"
            "    .n_events = %u,\n    .backends = 0x%x,\n};\n\n"
            "__attribute__((constructor))\n"
            "static void trace_%s_register(void)\n{\n"
            "    trace_event_register_group(&trace_%s_group);\n}\n\n",
            gp->group, gp->group, gp->group, cat->n_events, gp->backends,
            gp->group, gp->group);
}

void gen_program_c(FILE *f, const struct qtrace_catalog *cat,
                   const struct gen_program *gp)
{
    char up[NAME_MAX_UPPER];
    unsigned int i;

    fprintf(f, "/*\n * Trace events of group '%s', generated from %s by "
            "qtrace-tracetool;\n * do not edit.\n */\n"
            "#include <inttypes.h>\n\n#include \"qtrace/trace-emit.h\"\n"
            "#include \"%s\"\n\n", gp->group, gp->src, gp->h_name);
    if (gp->backends & QTRACE_TRACE_BACKEND_DTRACE) {
        gen_dtrace_include_c(f, cat, gp);
    }
    if (gp->backends & QTRACE_TRACE_BACKEND_UST) {
        gen_ust_include_c(f, gp);
    }
    for (i = 1; i <= cat->n_events; i++) {
        gen_upper(cat->events[i].name, up, sizeof(up));
        fprintf(f, "uint16_t _TRACE_%s_DSTATE;\n", up);
    }
    fprintf(f, "extern struct trace_event trace_%s_events[%u];\n\n",
            gp->group, cat->n_events ? cat->n_events : 1);
    for (i = 1; i <= cat->n_events; i++) {
        if (is_live(&cat->events[i], gp)) {
            print_event_c(f, &cat->events[i], gp);
        }
    }
    print_group(f, cat, gp);
}
