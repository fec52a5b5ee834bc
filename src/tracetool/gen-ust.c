/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The ust backend: one LTTng-UST tracepoint provider per group, named
 * after the group (events "GROUP:event"). The provider header, written by
 * --format=ust-events-h, holds one LTTNG_UST_TRACEPOINT_EVENT per live
 * event; trace.c defines the tracepoints and creates the probes from it;
 * trace.h sees only each tracepoint's state word (lttng/tracepoint-types.h,
 * LTTng's fixed ABI struct), so callers never include LTTng's macros.
 */
#include <stdio.h>
#include <string.h>

#include "fmt-check.h"
#include "gen.h"

#define NAME_MAX_UPPER 64

/* "lttng_ust_tracepoint_GROUP___EVENT", LTTng's name for the state. */
static void print_tracepoint_sym(FILE *f, const struct qtrace_event_desc *ev,
                                 const struct gen_program *gp)
{
    fprintf(f, "lttng_ust_tracepoint_%s___%s", gp->group, ev->name);
}

/*
 * One field: strings as CTF strings (NULL as "(null)", as the log
 * backend prints it), pointers as hexadecimal integers, bool as a u8,
 * other integers with their fixed width and signedness.
 */
static void print_field(FILE *f, const struct qtrace_arg_desc *a)
{
    if (a->type == QTRACE_ARG_STR) {
        fprintf(f, "        lttng_ust_field_string(%s, %s ? %s : "
                "\"(null)\")\n", a->name, a->name, a->name);
    } else if (fmt_arg_is_pointer(a, FMT_CHECK_PROGRAM)) {
        fprintf(f, "        lttng_ust_field_integer_hex(uintptr_t, %s, "
                "(uintptr_t)%s)\n", a->name, a->name);
    } else if (a->type == QTRACE_ARG_BOOL) {
        fprintf(f, "        lttng_ust_field_integer(uint8_t, %s, %s ? 1 : "
                "0)\n", a->name, a->name);
    } else {
        fprintf(f, "        lttng_ust_field_integer(%s, %s, %s)\n",
                gen_field_type(a), a->name, a->name);
    }
}

static void print_event(FILE *f, const struct qtrace_event_desc *ev,
                        const struct gen_program *gp)
{
    unsigned int i;

    fprintf(f, "/* %s line %u: ", gp->src, ev->line);
    gen_print_signature(f, ev);
    fprintf(f, " */\nLTTNG_UST_TRACEPOINT_EVENT(%s, %s,\n"
            "    LTTNG_UST_TP_ARGS(", gp->group, ev->name);
    for (i = 0; i < ev->n_args; i++) {
        fprintf(f, "%s%s, %s", i ? ", " : "", ev->args[i].ctype,
                ev->args[i].name);
    }
    fputs("),\n    LTTNG_UST_TP_FIELDS(\n", f);
    for (i = 0; i < ev->n_args; i++) {
        print_field(f, &ev->args[i]);
    }
    fputs("    )\n)\n\n", f);
}

/*
 * The plugin's provider only: an instrumentation library's own event
 * (LIB:EVENT, known at run time, so without a tracepoint of its own) as
 * its name, the text qtrace dump shows, and its arguments as integers.
 */
static void print_lib_event(FILE *f, const struct gen_program *gp)
{
    fprintf(f, "/* A library's own event (docs/instrument.md). */\n"
            "LTTNG_UST_TRACEPOINT_EVENT(%s, %s,\n"
            "    LTTNG_UST_TP_ARGS(const char *, name, const char *, text,\n"
            "                      const uint64_t *, values, "
            "unsigned int, n_values),\n"
            "    LTTNG_UST_TP_FIELDS(\n"
            "        lttng_ust_field_string(name, name)\n"
            "        lttng_ust_field_string(text, text)\n"
            "        lttng_ust_field_sequence(uint64_t, values, values, "
            "unsigned int,\n                                 n_values)\n"
            "    )\n)\n\n", gp->group, GEN_UST_LIB_EVENT);
}

void gen_ust_events_h(FILE *f, const struct qtrace_catalog *cat,
                      const struct gen_program *gp)
{
    char gup[NAME_MAX_UPPER];
    char name[128];
    unsigned int i;

    gen_upper(gp->group, gup, sizeof(gup));
    snprintf(name, sizeof(name), GEN_UST_HEADER, gp->group);
    /*
     * LTTng reads this header many times with different macro
     * definitions, so the guard lets it in again under MULTI_READ, and
     * LTTNG_UST_TRACEPOINT_INCLUDE names it for those re-reads.
     */
    fprintf(f, "/*\n * LTTng-UST tracepoint provider '%s' of group '%s', "
            "generated from %s\n * by qtrace-tracetool; do not edit. The "
            "group's trace.c includes it.\n */\n"
            "#undef LTTNG_UST_TRACEPOINT_PROVIDER\n"
            "#define LTTNG_UST_TRACEPOINT_PROVIDER %s\n"
            "#undef LTTNG_UST_TRACEPOINT_INCLUDE\n"
            "#define LTTNG_UST_TRACEPOINT_INCLUDE \"%s\"\n\n"
            "#if !defined(QTRACE_TRACE_UST_%s_H) || "
            "defined(LTTNG_UST_TRACEPOINT_HEADER_MULTI_READ)\n"
            "#define QTRACE_TRACE_UST_%s_H\n\n"
            "#include <stdbool.h>\n#include <stdint.h>\n"
            "#include <sys/types.h>\n#include <lttng/tracepoint.h>\n\n",
            gp->group, gp->group, gp->src, gp->group, name, gup, gup);
    for (i = 1; i <= cat->n_events; i++) {
        if (!cat->events[i].disabled) {
            print_event(f, &cat->events[i], gp);
        }
    }
    if (gp->plugin) {
        print_lib_event(f, gp);
    }
    fprintf(f, "#endif /* QTRACE_TRACE_UST_%s_H */\n\n"
            "#include <lttng/tracepoint-event.h>\n", gup);
}

/* trace.h: the tracepoint's state, without LTTng's macros. */
void gen_ust_decl_h(FILE *f, const struct qtrace_event_desc *ev,
                    const struct gen_program *gp)
{
    fputs("extern struct lttng_ust_tracepoint ", f);
    print_tracepoint_sym(f, ev, gp);
    fputs(";\n", f);
}

/* trace.h: "a session has it on", as lttng_ust_tracepoint_enabled(). */
void gen_ust_state_h(FILE *f, const struct qtrace_event_desc *ev,
                     const struct gen_program *gp)
{
    fputs("__builtin_expect(__atomic_load_n(&", f);
    print_tracepoint_sym(f, ev, gp);
    fputs(".state, __ATOMIC_RELAXED) != 0, 0)", f);
}

/*
 * trace.c: this file defines the tracepoints and registers the provider
 * with liblttng-ust from a constructor (link with pkg-config lttng-ust).
 */
void gen_ust_include_c(FILE *f, const struct gen_program *gp)
{
    char name[128];

    snprintf(name, sizeof(name), GEN_UST_HEADER, gp->group);
    fprintf(f, "#define LTTNG_UST_TRACEPOINT_DEFINE\n"
            "#define LTTNG_UST_TRACEPOINT_CREATE_PROBES\n"
            "#include \"%s\"\n\n", name);
}

/* trace.c: the call, which tests LTTng's state itself. */
void gen_ust_call_c(FILE *f, const struct qtrace_event_desc *ev,
                    const struct gen_program *gp)
{
    unsigned int i;

    fprintf(f, "    lttng_ust_tracepoint(%s, %s", gp->group, ev->name);
    for (i = 0; i < ev->n_args; i++) {
        fprintf(f, ", %s", ev->args[i].name);
    }
    fputs(");\n", f);
}
