/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Hexadecimal arguments of an event, from its format (see hex-args.h). */
#include <stdbool.h>
#include <string.h>

#include "hex-args.h"

/*
 * The format's conversions in order, whether each is %x, into hex[];
 * returns how many there are (at most max are stored). Catalog formats
 * are C literals with the PRI macros expanded ("0x%" PRIx64 is
 * "0x%lx"): flags, width, precision and length modifiers sit between
 * '%' and the conversion character.
 */
static unsigned int scan_conversions(const char *p, bool *hex,
                                     unsigned int max)
{
    unsigned int n = 0;

    while ((p = strchr(p, '%')) != NULL) {
        p++;
        if (*p == '%') {
            p++;
            continue;
        }
        p += strspn(p, "-+ #0123456789.*");
        p += strspn(p, "hljztLq");
        if (!*p) {
            break;
        }
        if (n < max) {
            hex[n] = *p == 'x' || *p == 'X';
        }
        n++;
        p++;
    }
    return n;
}

uint32_t hex_args_find(const struct qtrace_event_desc *ev)
{
    bool hex[QTRACE_MAX_ARGS];
    unsigned int n, n_bytes = 0, i, c;
    uint32_t mask = 0;

    if (!ev->fmt) {
        return 0;
    }
    n = scan_conversions(ev->fmt, hex, QTRACE_MAX_ARGS);
    for (i = 0; i < ev->n_args; i++) {
        n_bytes += ev->args[i].type == QTRACE_ARG_BYTES;
    }
    /* Bytes may print without a conversion (tb_trans's code). */
    if (n == ev->n_args) {
        n_bytes = 0;
    } else if (n != ev->n_args - n_bytes) {
        return 0;
    }
    for (i = 0, c = 0; i < ev->n_args && i < 32; i++) {
        if (n_bytes && ev->args[i].type == QTRACE_ARG_BYTES) {
            continue;
        }
        if (c < QTRACE_MAX_ARGS && hex[c]) {
            mask |= 1u << i;
        }
        c++;
    }
    return mask;
}
