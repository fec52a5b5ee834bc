/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * qtrace-tracetool --instr=LIB: an instrumentation library's own events
 * as one header. It holds the events' catalog lines, named LIB:EVENT,
 * that the library hands to the host (register_events), and one typed
 * inline call per event that fills the record's fixed part on the stack
 * and passes it to the host's emit_event: no lock, no allocation, no
 * formatting. docs/instrument.md, "The library's own events".
 */
#include <string.h>

#include "gen.h"

/* The catalog line of ev as the host and the trace see it: LIB:EVENT. */
static void print_catalog_line(FILE *f, const struct qtrace_event_desc *ev,
                               const char *lib)
{
    char line[2048];
    size_t used;
    unsigned int i;

    used = (size_t)snprintf(line, sizeof(line), "%s%s:%s(",
                            ev->disabled ? "disable " : "", lib, ev->name);
    for (i = 0; i < ev->n_args && used < sizeof(line); i++) {
        used += (size_t)snprintf(line + used, sizeof(line) - used,
                                 "%s%s %s", i ? ", " : "", ev->args[i].ctype,
                                 ev->args[i].name);
    }
    if (ev->n_args == 0 && used < sizeof(line)) {
        used += (size_t)snprintf(line + used, sizeof(line) - used, "void");
    }
    if (used < sizeof(line)) {
        snprintf(line + used, sizeof(line) - used, ") %s\n", ev->fmt_src);
    }
    gen_print_c_string(f, line);
}

static void print_registration(FILE *f, const struct qtrace_catalog *cat,
                               const char *lib)
{
    unsigned int i;

    fprintf(f, "/*\n * Hand the events to the host: from qtrace_instr_init, "
            "once. Returns\n * QTRACE_INSTR_OK, QTRACE_INSTR_ENOTSUP (a host "
            "before API 1.1) or\n * QTRACE_INSTR_EINVAL (see docs/"
            "instrument.md).\n */\n"
            "static inline int trace_%s_register("
            "const struct qtrace_instr_host *h)\n{\n"
            "    static const char catalog[] =\n", lib);
    for (i = 1; i <= cat->n_events; i++) {
        print_catalog_line(f, &cat->events[i], lib);
    }
    fputs("    \"\";\n    static const uint16_t payload_bytes[] = {", f);
    for (i = 1; i <= cat->n_events; i++) {
        fprintf(f, "%s%u", i > 1 ? ", " : " ",
                (unsigned int)cat->events[i].fixed_size - 16u);
    }
    fprintf(f, " };\n"
            "    static const struct qtrace_instr_events events = {\n"
            "        \"%s\", catalog, %u, payload_bytes,\n    };\n\n"
            "    if (!h || (h->api_version & 0xffff) < 1) {\n"
            "        return QTRACE_INSTR_ENOTSUP;\n    }\n"
            "    return h->register_events(h, &events);\n}\n\n",
            lib, cat->n_events);
}

/* The fixed part after the record header, as the layout rule places it. */
static void print_struct(FILE *f, const struct qtrace_event_desc *ev,
                         const char *lib)
{
    unsigned int i;

    fprintf(f, "struct trace_%s_%s {\n", lib, ev->name);
    for (i = 0; i < ev->n_args; i++) {
        fprintf(f, "    %s %s;\n", gen_field_type(&ev->args[i]),
                ev->args[i].name);
    }
    if (ev->n_args == 0) {
        fputs("    uint8_t none;                  /* C needs a member */\n",
              f);
    }
    fputs("};\n", f);
    for (i = 0; i < ev->n_args; i++) {
        fprintf(f, "_Static_assert(offsetof(struct trace_%s_%s, %s) == %u, "
                "\"layout rule\");\n", lib, ev->name, ev->args[i].name,
                (unsigned int)ev->args[i].offset - 16u);
    }
}

static void print_call(FILE *f, const struct qtrace_event_desc *ev,
                       const char *lib, unsigned int index)
{
    unsigned int i;

    fprintf(f, "static inline int trace_%s_%s(const struct qtrace_instr_host "
            "*h,\n        unsigned int vcpu", lib, ev->name);
    for (i = 0; i < ev->n_args; i++) {
        fprintf(f, ", %s %s", ev->args[i].ctype, ev->args[i].name);
    }
    fputs(")\n{\n", f);
    if (ev->disabled) {
        /* QEMU's meaning of "disable": compiled out, the call stays. */
        fputs("    (void)h;\n    (void)vcpu;\n", f);
        for (i = 0; i < ev->n_args; i++) {
            fprintf(f, "    (void)%s;\n", ev->args[i].name);
        }
        fputs("    return QTRACE_INSTR_OK;\n}\n\n", f);
        return;
    }
    fprintf(f, "    struct trace_%s_%s r;\n\n"
            "    /* Zeroed first: the gaps the layout leaves are part of "
            "the record. */\n"
            "    memset(&r, 0, sizeof(r));\n", lib, ev->name);
    for (i = 0; i < ev->n_args; i++) {
        fprintf(f, "    r.%s = (%s)%s;\n", ev->args[i].name,
                gen_field_type(&ev->args[i]), ev->args[i].name);
    }
    fprintf(f, "    return h->emit_event(h, vcpu, %u, &r, sizeof(r));\n}\n\n",
            index);
}

void gen_instr_h(FILE *f, const struct qtrace_catalog *cat, const char *lib,
                 const char *src)
{
    char upper[128];
    unsigned int i;

    gen_upper(lib, upper, sizeof(upper));
    fprintf(f, "/* SPDX-License-Identifier: GPL-2.0-or-later */\n"
            "/*\n * Generated by qtrace-tracetool --instr=%s from %s: do "
            "not edit.\n * The events of instrumentation library '%s': call "
            "trace_%s_register(host)\n * from qtrace_instr_init, then "
            "trace_%s_EVENT(host, vcpu, args...) from\n * execution, vCPU "
            "or system call callbacks, for the vCPU that runs them.\n */\n"
            "#ifndef TRACE_INSTR_%s_H\n#define TRACE_INSTR_%s_H\n\n"
            "#include <stddef.h>\n#include <stdint.h>\n#include <string.h>\n\n"
            "#include \"qtrace/instrument.h\"\n\n", lib, src, lib, lib, lib,
            upper, upper);
    print_registration(f, cat, lib);
    for (i = 1; i <= cat->n_events; i++) {
        const struct qtrace_event_desc *ev = &cat->events[i];

        fprintf(f, "/* %s line %u: %s:%s */\n", src, ev->line, lib,
                ev->name);
        print_struct(f, ev, lib);
        print_call(f, ev, lib, i);
    }
    fprintf(f, "#endif /* TRACE_INSTR_%s_H */\n", upper);
}
