/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The control protocol's input side (docs/control.md): bytes from a
 * client cut into lines of bounded length, and a line cut into words.
 * Pure functions on caller-owned storage, no I/O: the server thread uses
 * them, and unit tests.
 */
#ifndef QTRACE_PLUGIN_CTL_LINE_H
#define QTRACE_PLUGIN_CTL_LINE_H

#include <stdbool.h>
#include <stddef.h>

/* Longest command line, newline excluded. */
#define CTL_LINE_MAX 4096

/* Most words in a command line. */
#define CTL_MAX_WORDS 32

struct ctl_line {
    char buf[CTL_LINE_MAX + 1]; /* the line being read, NUL-ended when READY */
    size_t len;                 /* bytes in buf */
    bool skipping;              /* too long: dropping bytes up to '\n' */
};

enum ctl_line_status {
    CTL_LINE_MORE,              /* all input taken, no line complete */
    CTL_LINE_READY,             /* buf holds a line (without "\r\n") */
    CTL_LINE_TOO_LONG,          /* the line passed CTL_LINE_MAX: dropped */
};

void ctl_line_init(struct ctl_line *lb);

/*
 * Take bytes from in[0..len) up to the end of one line. Returns how many
 * were taken; *status says what came of them. After READY the caller
 * uses lb->buf before feeding more. TOO_LONG is reported once per line,
 * as soon as it passes the bound; the rest of it is dropped silently.
 */
size_t ctl_line_feed(struct ctl_line *lb, const char *in, size_t len,
                     enum ctl_line_status *status);

/*
 * Cut line into words (in place) at blanks; "..." quotes a word that
 * holds blanks (no escapes inside). Returns the number of words, or -1
 * with *why set when a quote is not closed or there are more than max.
 */
int ctl_line_split(char *line, char **words, int max, const char **why);

#endif /* QTRACE_PLUGIN_CTL_LINE_H */
