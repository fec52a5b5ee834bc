/* SPDX-License-Identifier: GPL-2.0-or-later */
/* JSON and CSV tables of qtrace report (report-table.h). */
#include <inttypes.h>
#include <stdbool.h>
#include <string.h>

#include "report-table.h"

/*
 * A JSON string: quotes, backslashes and control characters escaped;
 * bytes above 127 as \u00XX, so that a name that is not UTF-8 still
 * gives valid JSON.
 */
static void json_str(FILE *out, const char *s)
{
    const unsigned char *p = (const unsigned char *)(s ? s : "");

    fputc('"', out);
    for (; *p; p++) {
        if (*p == '"' || *p == '\\') {
            fprintf(out, "\\%c", *p);
        } else if (*p < 0x20 || *p >= 0x7f) {
            fprintf(out, "\\u%04x", *p);
        } else {
            fputc(*p, out);
        }
    }
    fputc('"', out);
}

/* A CSV field: quoted when it holds a comma, a quote or a line end. */
static void csv_str(FILE *out, const char *s)
{
    const char *p;

    s = s ? s : "";
    if (!strpbrk(s, ",\"\r\n")) {
        fputs(s, out);
        return;
    }
    fputc('"', out);
    for (p = s; *p; p++) {
        if (*p == '"') {
            fputc('"', out);
        }
        fputc(*p, out);
    }
    fputc('"', out);
}

void rt_begin(FILE *out, const struct report_flags *flags, const char *name,
              const struct rt_col *cols, size_t n)
{
    struct report_tables *t = flags->tables;
    size_t i;

    t->cols = cols;
    t->n_cols = n;
    t->n_rows = 0;
    if (flags->format == REPORT_CSV) {
        for (i = 0; i < n; i++) {
            fprintf(out, "%s%s", i ? "," : "", cols[i].name);
        }
        fputc('\n', out);
        return;
    }
    if (t->multi) {
        fprintf(out, "%s\n  ", t->n_tables ? "," : "{");
        json_str(out, name);
        fputs(": ", out);
    }
    fputc('[', out);
    t->n_tables++;
}

void rt_row(FILE *out, const struct report_flags *flags,
            const union rt_val *vals)
{
    struct report_tables *t = flags->tables;
    bool json = flags->format == REPORT_JSON;
    size_t i;

    if (json) {
        fprintf(out, "%s\n%s{", t->n_rows ? "," : "", t->multi ? "    "
                                                                : "  ");
    }
    for (i = 0; i < t->n_cols; i++) {
        const union rt_val *v = &vals[i];

        if (json) {
            fputs(i ? ", " : "", out);
            json_str(out, t->cols[i].name);
            fputs(": ", out);
        } else if (i) {
            fputc(',', out);
        }
        switch (t->cols[i].type) {
        case RT_STR:
            if (json) {
                json_str(out, v->s);
            } else {
                csv_str(out, v->s);
            }
            break;
        case RT_U64:
            fprintf(out, "%" PRIu64, v->u);
            break;
        case RT_I64:
            fprintf(out, "%" PRId64, v->i);
            break;
        case RT_HEX:
            fprintf(out, json ? "\"0x%" PRIx64 "\"" : "0x%" PRIx64, v->u);
            break;
        case RT_F64:
            fprintf(out, "%.6g", v->f);
            break;
        }
    }
    fputs(json ? "}" : "\n", out);
    t->n_rows++;
}

void rt_end(FILE *out, const struct report_flags *flags)
{
    struct report_tables *t = flags->tables;

    if (flags->format == REPORT_JSON) {
        fprintf(out, "%s]", t->n_rows ? (t->multi ? "\n  " : "\n") : "");
        if (!t->multi) {
            fputc('\n', out);
        }
    }
}

int rt_none(FILE *out, const struct report_flags *flags, const char *name,
            const struct rt_col *cols, size_t n, const char *why)
{
    if (flags->format == REPORT_TEXT) {
        fprintf(out, "%s\n", why);
        return REPORT_EMPTY;
    }
    fflush(out);
    fprintf(stderr, "qtrace report: %s\n", why);
    rt_begin(out, flags, name, cols, n);
    rt_end(out, flags);
    return REPORT_EMPTY;
}
