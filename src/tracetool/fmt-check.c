/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Format strings against argument types: every conversion must have an
 * argument of its kind (integer, string, pointer) and size (64-bit values
 * need l, ll, j, z, t or a PRI macro; smaller ones must not have them),
 * and, in a program's events, every argument a conversion. Runs in the
 * tracetool at build time.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "fmt-check.h"

/* One conversion: its length modifier and conversion character. */
struct conv {
    const char *at;                 /* its '%' in the expanded format */
    char length[3];                 /* "", "h", "hh", "l", "ll", "z"... */
    char conv;
};


bool fmt_arg_is_pointer(const struct qtrace_arg_desc *a,
                        enum fmt_check_mode mode)
{
    size_t n = strlen(a->ctype);

    if (a->type == QTRACE_ARG_STR) {
        return false;
    }
    if (a->type == QTRACE_ARG_BYTES) {
        return mode == FMT_CHECK_PROGRAM;
    }
    return n > 0 && a->ctype[n - 1] == '*';
}

/* Does the argument take a conversion of its own in this mode? */
static bool takes_conversion(const struct qtrace_arg_desc *a,
                             enum fmt_check_mode mode)
{
    return !(mode == FMT_CHECK_RECORDS && a->type == QTRACE_ARG_BYTES);
}

static int fail(struct qtrace_err *err, const struct qtrace_event_desc *ev,
                const char *what)
{
    qtrace_err_set(err, "%u:%u: %s: %s", ev->line, ev->fmt_col, ev->name,
                   what);
    return -EINVAL;
}

/* Read the conversion at *p (just after '%'); false if malformed. */
static bool read_conv(const char **pp, struct conv *c, const char **why)
{
    const char *p = *pp;
    size_t n = 0;

    p += strspn(p, "-+ #0'");
    if (*p == '*') {
        *why = "'*' width or precision takes an argument qtrace cannot "
               "pass";
        return false;
    }
    p += strspn(p, "0123456789");
    if (*p == '.') {
        p++;
        if (*p == '*') {
            *why = "'*' width or precision takes an argument qtrace "
                   "cannot pass";
            return false;
        }
        p += strspn(p, "0123456789");
    }
    while (n < 2 && strchr("hlLjztq", *p) && *p) {
        c->length[n++] = *p++;
    }
    c->length[n] = '\0';
    c->conv = *p;
    if (!*p) {
        *why = "format ends inside a conversion";
        return false;
    }
    *pp = p + 1;
    return true;
}

/* Is a conversion right for an argument? why says what is wrong. */
static bool conv_fits(const struct conv *c, const struct qtrace_arg_desc *a,
                      enum fmt_check_mode mode, const char **why)
{
    bool wide = c->length[0] && strchr("ljzt", c->length[0]);

    if (strchr("eEfFgGaA", c->conv)) {
        *why = "floating-point conversion (trace integers, scaled)";
        return false;
    }
    if (c->conv == 's') {
        *why = "%s needs a 'const char *' argument";
        return a->type == QTRACE_ARG_STR;
    }
    if (c->conv == 'p') {
        *why = "%p needs a pointer argument";
        return fmt_arg_is_pointer(a, mode);
    }
    if (!strchr("diouxXc", c->conv)) {
        *why = "unknown conversion";
        return false;
    }
    if (a->type == QTRACE_ARG_STR || fmt_arg_is_pointer(a, mode)) {
        *why = "integer conversion for a string or pointer argument";
        return false;
    }
    if (a->size == 8 && !wide) {
        *why = "64-bit argument needs a 64-bit conversion (PRIx64, %lx, "
               "%zu...)";
        return false;
    }
    if (a->size < 8 && wide) {
        *why = "64-bit conversion for an argument narrower than 64 bits";
        return false;
    }
    return true;
}

/* QEMU's rules: no "%m" (errno is no argument), no trailing newline. */
static int check_qemu_rules(const struct qtrace_event_desc *ev,
                            struct qtrace_err *err)
{
    size_t n = strlen(ev->fmt);

    if (strstr(ev->fmt, "%m")) {
        return fail(err, ev, "'%m' is not allowed: pass the error as an "
                    "argument");
    }
    if (n > 0 && ev->fmt[n - 1] == '\n') {
        return fail(err, ev, "format must not end with a newline (each "
                    "backend ends its lines)");
    }
    return 0;
}

int fmt_check_event(const struct qtrace_event_desc *ev,
                    enum fmt_check_mode mode, struct qtrace_err *err)
{
    const char *p = ev->fmt;
    unsigned int arg = 0;
    char what[200];

    if (check_qemu_rules(ev, err) < 0) {
        return -EINVAL;
    }
    while ((p = strchr(p, '%'))) {
        struct conv c = { .at = p };
        const char *why = NULL;

        if (p[1] == '%') {
            p += 2;
            continue;
        }
        p++;
        if (!read_conv(&p, &c, &why)) {
            return fail(err, ev, why);
        }
        while (arg < ev->n_args && !takes_conversion(&ev->args[arg], mode)) {
            arg++;
        }
        if (arg == ev->n_args) {
            return fail(err, ev, "more conversions than arguments");
        }
        if (!conv_fits(&c, &ev->args[arg], mode, &why)) {
            snprintf(what, sizeof(what), "conversion %%%s%c for argument "
                     "'%s' (%s): %s", c.length, c.conv, ev->args[arg].name,
                     ev->args[arg].ctype, why);
            return fail(err, ev, what);
        }
        arg++;
    }
    while (arg < ev->n_args && !takes_conversion(&ev->args[arg], mode)) {
        arg++;
    }
    /*
     * A program's format must use every argument (the C compiler would
     * warn); the plugin's records may carry data no format shows.
     */
    if (arg < ev->n_args && mode == FMT_CHECK_PROGRAM) {
        snprintf(what, sizeof(what), "no conversion for argument '%s'",
                 ev->args[arg].name);
        return fail(err, ev, what);
    }
    return 0;
}
