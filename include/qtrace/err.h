/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Error reporting for the qtrace libraries: a function that fails returns
 * -errno (or NULL/false) and fills a struct qtrace_err with one line that
 * names what was wrong. The caller decides whether and how to print it.
 */
#ifndef QTRACE_ERR_H
#define QTRACE_ERR_H

struct qtrace_err {
    char msg[512];                  /* one line, no trailing newline */
};

/* Fill err (which may be NULL) with a printf-style message. */
void qtrace_err_set(struct qtrace_err *err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#endif /* QTRACE_ERR_H */
