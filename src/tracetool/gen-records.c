/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The plugin's catalog as C: event ids, one record struct per event and
 * compile-time checks that C lays records out as the catalog parser does
 * (docs/format.md), plus the catalog text every trace embeds. Runs in
 * qtrace-tracetool at build time.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "gen.h"

/* Upper-case copy of an event name, for QTRACE_EV_<NAME>. */
void gen_upper(const char *name, char *out, size_t size)
{
    size_t i;

    for (i = 0; name[i] && i + 1 < size; i++) {
        out[i] = (name[i] >= 'a' && name[i] <= 'z') ? name[i] - 'a' + 'A'
                                                    : name[i];
    }
    out[i] = '\0';
}

static bool tt_is_var(const struct qtrace_arg_desc *a)
{
    return a->type == QTRACE_ARG_STR || a->type == QTRACE_ARG_BYTES;
}

/* The fixed-width C type of a fixed field (size_t is 8 bytes on disk). */
const char *gen_field_type(const struct qtrace_arg_desc *a)
{
    switch (a->type) {
    case QTRACE_ARG_U8:
    case QTRACE_ARG_BOOL:
        return "uint8_t";
    case QTRACE_ARG_U16:
        return "uint16_t";
    case QTRACE_ARG_U32:
        return "uint32_t";
    case QTRACE_ARG_U64:
        return "uint64_t";
    case QTRACE_ARG_I8:
        return "int8_t";
    case QTRACE_ARG_I16:
        return "int16_t";
    case QTRACE_ARG_I32:
        return "int32_t";
    case QTRACE_ARG_I64:
        return "int64_t";
    case QTRACE_ARG_STR:
    case QTRACE_ARG_BYTES:
        break;
    }
    return "uint16_t";
}

/* Print the event's declaration as written (names and types are clean). */
void gen_print_signature(FILE *f, const struct qtrace_event_desc *ev)
{
    unsigned int i;

    fprintf(f, "%s%s(", ev->disabled ? "disable " : "", ev->name);
    if (ev->n_args == 0) {
        fputs("void", f);
    }
    for (i = 0; i < ev->n_args; i++) {
        const char *t = ev->args[i].ctype;
        size_t n = strlen(t);

        fprintf(f, "%s%s%s%s", i ? ", " : "", t,
                (n > 0 && t[n - 1] == '*') ? "" : " ", ev->args[i].name);
    }
    fputs(")", f);
}

static void tt_print_struct(FILE *f, const struct qtrace_event_desc *ev,
                            const char *upper)
{
    unsigned int i;

    fprintf(f, "/* trace-events line %u: ", ev->line);
    gen_print_signature(f, ev);
    fprintf(f, " */\nstruct qtrace_ev_%s {\n    struct qtrace_rec hdr;\n",
            ev->name);
    for (i = 0; i < ev->n_args; i++) {
        const struct qtrace_arg_desc *a = &ev->args[i];

        if (tt_is_var(a)) {
            fprintf(f, "    uint16_t %s_len; /* %s: bytes follow the "
                    "fixed part */\n", a->name, a->ctype);
        } else if (strcmp(a->ctype, gen_field_type(a)) != 0) {
            fprintf(f, "    %s %s; /* %s */\n", gen_field_type(a), a->name,
                    a->ctype);
        } else {
            fprintf(f, "    %s %s;\n", gen_field_type(a), a->name);
        }
    }
    fprintf(f, "};\n#define QTRACE_EV_%s_FIXED %u\n", upper,
            (unsigned int)ev->fixed_size);
    for (i = 0; i < ev->n_args; i++) {
        const struct qtrace_arg_desc *a = &ev->args[i];

        fprintf(f, "_Static_assert(offsetof(struct qtrace_ev_%s, %s%s) == "
                "%u,\n               \"%s.%s%s: C layout differs from the "
                "catalog rule\");\n", ev->name, a->name,
                tt_is_var(a) ? "_len" : "", (unsigned int)a->offset,
                ev->name, a->name, tt_is_var(a) ? "_len" : "");
    }
    fputs("\n", f);
}

void gen_records_h(FILE *f, const struct qtrace_catalog *cat,
                   const char *src)
{
    char upper[sizeof(cat->events[0].name)];
    unsigned int i;

    fprintf(f, "/* SPDX-License-Identifier: GPL-2.0-or-later */\n"
            "/*\n * Event ids and record structs, generated from trace-events "
            "by src/tracetool,\n * do not edit. Source: %s.\n */\n"
            "#ifndef QTRACE_EVENTS_GENERATED_H\n"
            "#define QTRACE_EVENTS_GENERATED_H\n\n"
            "#include <stddef.h>\n#include <stdint.h>\n\n"
            "#include \"qtrace/format.h\"\n\n"
            "_Static_assert(sizeof(struct qtrace_rec) == 16,\n"
            "               \"struct qtrace_rec must be 16 bytes\");\n\n"
            "enum qtrace_event_id {\n", src);
    for (i = 1; i <= cat->n_events; i++) {
        gen_upper(cat->events[i].name, upper, sizeof(upper));
        fprintf(f, "    QTRACE_EV_%s = %u,\n", upper, i);
    }
    fprintf(f, "    QTRACE_EV__COUNT = %u\n};\n\n", cat->n_events + 1);
    for (i = 1; i <= cat->n_events; i++) {
        gen_upper(cat->events[i].name, upper, sizeof(upper));
        tt_print_struct(f, &cat->events[i], upper);
    }
    fputs("/* The trace-events text, verbatim (embedded in every trace). */\n"
          "extern const char qtrace_catalog_text[];\n"
          "/* Event names by id; [0] is NULL. */\n"
          "extern const char *const qtrace_event_names[QTRACE_EV__COUNT];\n"
          "\n#endif /* QTRACE_EVENTS_GENERATED_H */\n", f);
}

/*
 * Print text as C string literals, one per source line. Octal escapes are
 * always three digits so a following digit cannot extend them, and "??"
 * is broken up because -std=c11 turns "??/" and friends into trigraphs.
 */
void gen_print_c_string(FILE *f, const char *text)
{
    const unsigned char *p = (const unsigned char *)text;
    bool open = false;

    for (; *p; p++) {
        if (!open) {
            fputs("    \"", f);
            open = true;
        }
        if (*p == '\\' || *p == '"') {
            fprintf(f, "\\%c", *p);
        } else if (*p == '\n') {
            fputs("\\n\"\n", f);
            open = false;
        } else if (*p == '\t') {
            fputs("\\t", f);
        } else if (*p == '?' && p[1] == '?') {
            fputs("?\\", f);
        } else if (*p < 0x20 || *p >= 0x7f) {
            fprintf(f, "\\%03o", *p);
        } else {
            fputc(*p, f);
        }
    }
    if (open) {
        fputs("\"\n", f);
    } else if (!*text) {
        fputs("    \"\"\n", f);
    }
}

void gen_records_c(FILE *f, const struct qtrace_catalog *cat,
                   const char *src, const char *h_name)
{
    unsigned int i;

    fprintf(f, "/* SPDX-License-Identifier: GPL-2.0-or-later */\n"
            "/*\n * Event catalog text and names, generated from trace-events "
            "by\n * src/tracetool, do not edit. Source: %s.\n */\n"
            "#include \"%s\"\n\nconst char qtrace_catalog_text[] =\n",
            src, h_name);
    gen_print_c_string(f, cat->text);
    fputs(";\n\nconst char *const qtrace_event_names[QTRACE_EV__COUNT] = "
          "{\n    NULL,\n", f);
    for (i = 1; i <= cat->n_events; i++) {
        fprintf(f, "    \"%s\",\n", cat->events[i].name);
    }
    fputs("};\n", f);
}

