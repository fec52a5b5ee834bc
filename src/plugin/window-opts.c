/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The window options' values (start-at=, stop-after=; window.h), parsed
 * at install time on QEMU's thread. Apart from window.c so that the
 * option parser and its fuzzer need none of the vCPU side.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "window.h"

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

int window_parse_start(struct window_spec *spec, const char *value,
                       struct qtrace_err *err)
{
    uint64_t n;

    free(spec->start_sym);
    spec->start_sym = NULL;
    spec->start_is_count = false;
    if (strncmp(value, "0x", 2) == 0 || strncmp(value, "0X", 2) == 0) {
        char *end;

        errno = 0;
        n = strtoull(value + 2, &end, 16);
        if (!value[2] || errno || *end) {
            qtrace_err_set(err, "expected a count, 0xADDRESS or a symbol");
            return -EINVAL;
        }
        spec->start_addr = n;
    } else if (parse_count(value, &n) == 0) {
        spec->start_is_count = true;
        spec->start_count = n;
    } else if (is_symbol_name(value)) {
        spec->start_sym = strdup(value);
        if (!spec->start_sym) {
            return -ENOMEM;
        }
    } else {
        qtrace_err_set(err, "expected a count, 0xADDRESS or a symbol");
        return -EINVAL;
    }
    spec->has_start = true;
    return 0;
}

int window_parse_stop(struct window_spec *spec, const char *value,
                      struct qtrace_err *err)
{
    uint64_t n;

    if (parse_count(value, &n) < 0 || n == 0) {
        qtrace_err_set(err, "expected a count of instructions (1 or more)");
        return -EINVAL;
    }
    spec->has_stop = true;
    spec->stop_after = n;
    return 0;
}

void window_spec_fini(struct window_spec *spec)
{
    free(spec->start_sym);
    spec->start_sym = NULL;
}
