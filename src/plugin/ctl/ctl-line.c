/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Lines and words of the control protocol (see ctl-line.h). Runs on the
 * control thread; a client's bytes are untrusted, so every write into
 * the line buffer is bounded.
 */
#include <string.h>

#include "ctl-line.h"

void ctl_line_init(struct ctl_line *lb)
{
    lb->len = 0;
    lb->skipping = false;
    lb->buf[0] = '\0';
}

/* The line is complete: cut "\r" (socat and telnet send "\r\n"). */
static void end_line(struct ctl_line *lb)
{
    if (lb->len > 0 && lb->buf[lb->len - 1] == '\r') {
        lb->len--;
    }
    lb->buf[lb->len] = '\0';
}

size_t ctl_line_feed(struct ctl_line *lb, const char *in, size_t len,
                     enum ctl_line_status *status)
{
    const char *nl = memchr(in, '\n', len);
    size_t take = nl ? (size_t)(nl - in) : len;   /* bytes before '\n' */

    *status = CTL_LINE_MORE;
    if (lb->skipping) {
        if (nl) {
            ctl_line_init(lb);
        }
        return nl ? take + 1 : len;
    }
    if (lb->len + take > CTL_LINE_MAX) {
        /* Reported now, not at the newline that may never come. */
        ctl_line_init(lb);
        lb->skipping = !nl;
        *status = CTL_LINE_TOO_LONG;
        return nl ? take + 1 : len;
    }
    memcpy(lb->buf + lb->len, in, take);
    lb->len += take;
    if (!nl) {
        return len;
    }
    end_line(lb);
    *status = CTL_LINE_READY;
    lb->len = 0;
    return take + 1;
}

static bool is_blank(char c)
{
    return c == ' ' || c == '\t';
}

int ctl_line_split(char *line, char **words, int max, const char **why)
{
    char *p = line;
    int n = 0;

    for (;;) {
        char *start;

        while (is_blank(*p)) {
            p++;
        }
        if (!*p) {
            return n;
        }
        if (n == max) {
            *why = "too many words";
            return -1;
        }
        if (*p == '"') {
            start = ++p;
            p = strchr(p, '"');
            if (!p) {
                *why = "unterminated quote";
                return -1;
            }
        } else {
            start = p;
            while (*p && !is_blank(*p)) {
                p++;
            }
        }
        words[n++] = start;
        if (*p) {
            *p++ = '\0';
        }
    }
}
