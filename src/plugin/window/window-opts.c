/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The window options' values (start-at=, stop-at=, stop-after=,
 * snapshot-at=; window.h), parsed at install time on QEMU's thread and
 * by the control thread for the commands of the same names. Apart from
 * window.c so that the option parser and its fuzzer need none of the
 * vCPU side.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "window.h"

/* The word naming the marker instruction (docs/cli.md, "Markers"). */
#define MARKER_WORD "marker"

static bool is_symbol_char(char c, bool first)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
           c == '.' || c == '$' || (!first && c >= '0' && c <= '9');
}

static bool is_symbol_name(const char *s)
{
    size_t i;

    for (i = 0; s[i]; i++) {
        if (!is_symbol_char(s[i], i == 0)) {
            return false;
        }
    }
    return i > 0;
}

/* A decimal count, the whole string: 0, or -EINVAL. */
static int parse_count(const char *s, uint64_t *out)
{
    char *end;

    if (s[0] < '0' || s[0] > '9') {
        return -EINVAL;
    }
    errno = 0;
    *out = strtoull(s, &end, 10);
    return errno || *end ? -EINVAL : 0;
}

/* 0xADDRESS, the whole string: 0, or -EINVAL. */
static int parse_address(const char *s, uint64_t *out)
{
    char *end;

    if (strncmp(s, "0x", 2) != 0 && strncmp(s, "0X", 2) != 0) {
        return -EINVAL;
    }
    errno = 0;
    *out = strtoull(s + 2, &end, 16);
    return !s[2] || errno || *end ? -EINVAL : 0;
}

static void when_clear(struct window_when *w)
{
    free(w->sym);
    memset(w, 0, sizeof(*w));
}

/*
 * value into a trigger: a count when counts are allowed, an address,
 * the marker or a symbol. w is left as it was on a refusal.
 */
static int parse_when(struct window_when *w, const char *value,
                      bool count_ok, struct qtrace_err *err)
{
    struct window_when next = { .how = WHEN_NONE };

    if (parse_address(value, &next.addr) == 0) {
        next.how = WHEN_ADDR;
    } else if (count_ok && parse_count(value, &next.count) == 0) {
        next.how = WHEN_COUNT;
    } else if (strcmp(value, MARKER_WORD) == 0) {
        next.how = WHEN_MARKER;
    } else if (is_symbol_name(value)) {
        next.how = WHEN_SYMBOL;
        next.sym = strdup(value);
        if (!next.sym) {
            return -ENOMEM;
        }
    } else {
        qtrace_err_set(err, "expected %s0xADDRESS, a symbol or "
                       MARKER_WORD, count_ok ? "a count, " : "");
        return -EINVAL;
    }
    when_clear(w);
    *w = next;
    return 0;
}

int window_parse_start(struct window_spec *spec, const char *value,
                       struct qtrace_err *err)
{
    return parse_when(&spec->start, value, true, err);
}

int window_parse_stop_at(struct window_spec *spec, const char *value,
                         struct qtrace_err *err)
{
    return parse_when(&spec->stop, value, false, err);
}

int window_parse_snapshot_at(struct window_spec *spec, const char *value,
                             struct qtrace_err *err)
{
    return parse_when(&spec->snap, value, false, err);
}

int window_parse_stop(struct window_spec *spec, const char *value,
                      struct qtrace_err *err)
{
    uint64_t n;

    if (parse_count(value, &n) < 0 || n == 0) {
        qtrace_err_set(err, "expected a count of instructions (1 or more)");
        return -EINVAL;
    }
    spec->has_stop_after = true;
    spec->stop_after = n;
    return 0;
}

void window_spec_fini(struct window_spec *spec)
{
    when_clear(&spec->start);
    when_clear(&spec->stop);
    when_clear(&spec->snap);
}

void window_when_fmt(const struct window_when *w, char *buf, size_t len)
{
    switch (w->how) {
    case WHEN_COUNT:
        snprintf(buf, len, "%" PRIu64, w->count);
        break;
    case WHEN_ADDR:
        if (w->sym) {
            snprintf(buf, len, "%s 0x%" PRIx64, w->sym, w->addr);
        } else {
            snprintf(buf, len, "0x%" PRIx64, w->addr);
        }
        break;
    case WHEN_SYMBOL:
        snprintf(buf, len, "%s%s", w->sym,
                 w->unresolved ? " (unresolved)" : "");
        break;
    case WHEN_MARKER:
        snprintf(buf, len, MARKER_WORD);
        break;
    default:
        snprintf(buf, len, "none");
        break;
    }
}
