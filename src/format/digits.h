/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Integers as text without printf, for the paths that print hundreds of
 * millions of them (record formatting, dump lines).
 */
#ifndef QTRACE_FORMAT_DIGITS_H
#define QTRACE_FORMAT_DIGITS_H

#include <stdint.h>

/*
 * v in base 10 or 16 (lower case), written backwards so that it ends just
 * before end; returns where it starts. Needs 20 bytes before end.
 */
static inline char *digits_u64(char *end, uint64_t v, unsigned int base)
{
    static const char digits[] = "0123456789abcdef";
    char *p = end;

    do {
        *--p = digits[v % base];
        v /= base;
    } while (v);
    return p;
}

#endif /* QTRACE_FORMAT_DIGITS_H */
