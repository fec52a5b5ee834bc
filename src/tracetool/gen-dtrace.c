/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The dtrace backend: one SystemTap SDT (USDT) probe per live event,
 * provider named after the group, placed in trace.c so each event has
 * one probe site (one stapsdt note), with a semaphore that SystemTap,
 * bpftrace and the kernel's uprobes raise while they are attached, so
 * trace.h knows when to call out. Also QEMU's two side files: the DTrace
 * provider (--format=d) and the SystemTap wrapper (--format=stap).
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "gen.h"

/*
 * Words a D program or a SystemTap script cannot use as a name; an
 * argument called so gets a '_' appended in the .d and .stp files.
 */
static const char *const d_reserved[] = {
    "auto", "goto", "sizeof", "offsetof", "string", "stringof", "self",
    "this", "translator", "userland", "xlate", "inline", "import",
    "provider", "probe", "in",
};

static const char *const stap_reserved[] = {
    "break", "catch", "continue", "delete", "else", "for", "foreach",
    "function", "global", "if", "in", "limit", "long", "next", "probe",
    "private", "return", "string", "try", "while",
};

static bool in_list(const char *word, const char *const *list, size_t n)
{
    size_t i;

    for (i = 0; i < n; i++) {
        if (strcmp(word, list[i]) == 0) {
            return true;
        }
    }
    return false;
}

#define IN_LIST(word, list) \
    in_list(word, list, sizeof(list) / sizeof(list[0]))

/* "GROUP_EVENT_semaphore": the name <sys/sdt.h> gives a probe's. */
static void print_semaphore(FILE *f, const struct qtrace_event_desc *ev,
                            const struct gen_program *gp)
{
    fprintf(f, "%s_%s_semaphore", gp->group, ev->name);
}

/*
 * provider GROUP { probe name(type arg, ...); }; as QEMU writes it for
 * dtrace -h / -G. bool is int there (D has no bool).
 */
void gen_dtrace_d(FILE *f, const struct qtrace_catalog *cat,
                  const struct gen_program *gp)
{
    unsigned int i;
    unsigned int k;

    fprintf(f, "/*\n * DTrace provider '%s', generated from %s by "
            "qtrace-tracetool; do not edit.\n */\n\nprovider %s {\n",
            gp->group, gp->src, gp->group);
    for (i = 1; i <= cat->n_events; i++) {
        const struct qtrace_event_desc *ev = &cat->events[i];

        if (ev->disabled) {
            continue;
        }
        fprintf(f, "probe %s(", ev->name);
        for (k = 0; k < ev->n_args; k++) {
            const struct qtrace_arg_desc *a = &ev->args[k];
            const char *t = a->type == QTRACE_ARG_BOOL ? "int" : a->ctype;
            size_t n = strlen(t);

            fprintf(f, "%s%s%s%s%s", k ? ", " : "", t,
                    (n && t[n - 1] == '*') ? "" : " ", a->name,
                    IN_LIST(a->name, d_reserved) ? "_" : "");
        }
        fputs(");\n", f);
    }
    fputs("};\n", f);
}

/*
 * probe PREFIX.name = process("BINARY").mark("name") { arg = $argN; },
 * QEMU's wrapper: scripts then use the names of trace-events. Strings
 * are left as addresses, as QEMU does; user_string(arg) reads one.
 */
void gen_dtrace_stap(FILE *f, const struct qtrace_catalog *cat,
                     const struct gen_program *gp)
{
    unsigned int i;
    unsigned int k;

    fprintf(f, "/* SystemTap probes of %s, generated from %s by "
            "qtrace-tracetool; do not edit. */\n\n", gp->binary, gp->src);
    for (i = 1; i <= cat->n_events; i++) {
        const struct qtrace_event_desc *ev = &cat->events[i];

        if (ev->disabled) {
            continue;
        }
        fprintf(f, "probe %s.%s = process(\"%s\").mark(\"%s\")\n{\n",
                gp->probe_prefix, ev->name, gp->binary, ev->name);
        for (k = 0; k < ev->n_args; k++) {
            const char *name = ev->args[k].name;

            fprintf(f, "  %s%s = $arg%u;\n", name,
                    IN_LIST(name, stap_reserved) ? "_" : "", k + 1);
        }
        fputs("}\n", f);
    }
}

/* trace.h: the semaphore, raised while a tracer is attached. */
void gen_dtrace_decl_h(FILE *f, const struct qtrace_event_desc *ev,
                       const struct gen_program *gp)
{
    fputs("extern unsigned short ", f);
    print_semaphore(f, ev, gp);
    fputs(";\n", f);
}

void gen_dtrace_state_h(FILE *f, const struct qtrace_event_desc *ev,
                        const struct gen_program *gp)
{
    fputs("__builtin_expect(__atomic_load_n(&", f);
    print_semaphore(f, ev, gp);
    fputs(", __ATOMIC_RELAXED) != 0, 0)", f);
}

/*
 * trace.c: <sys/sdt.h> with semaphores, and the semaphores themselves in
 * the ".probes" section where tracers look for them.
 */
void gen_dtrace_include_c(FILE *f, const struct qtrace_catalog *cat,
                          const struct gen_program *gp)
{
    unsigned int i;

    fputs("#define _SDT_HAS_SEMAPHORES 1\n#include <sys/sdt.h>\n\n", f);
    for (i = 1; i <= cat->n_events; i++) {
        if (!cat->events[i].disabled) {
            fputs("unsigned short ", f);
            print_semaphore(f, &cat->events[i], gp);
            fputs(" __attribute__((section(\".probes\")));\n", f);
        }
    }
    fputs("\n", f);
}

/* trace.c: the probe site, a nop until a tracer puts a breakpoint on it. */
void gen_dtrace_call_c(FILE *f, const struct qtrace_event_desc *ev,
                       const struct gen_program *gp)
{
    unsigned int i;

    if (ev->n_args == 0) {
        fprintf(f, "    STAP_PROBE(%s, %s);\n", gp->group, ev->name);
        return;
    }
    fprintf(f, "    STAP_PROBE%u(%s, %s", ev->n_args, gp->group, ev->name);
    for (i = 0; i < ev->n_args; i++) {
        fprintf(f, ", %s", ev->args[i].name);
    }
    fputs(");\n", f);
}
