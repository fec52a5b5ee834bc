/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Diagnostics shared by the subcommands: every message is one line on
 * stderr, `qtrace CMD: THING: REASON`, and misuse adds a pointer to the
 * command's --help. Nothing here exits: main.c owns the exit status.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

static void print_line(const char *cmd, const char *fmt, va_list ap)
{
    fprintf(stderr, "qtrace %s: ", cmd);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
}

void cli_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    print_line(cmd, fmt, ap);
    va_end(ap);
}

int cli_usage(const char *cmd, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    print_line(cmd, fmt, ap);
    va_end(ap);
    fprintf(stderr, "try 'qtrace %s --help'\n", cmd);
    return CLI_USAGE;
}

int cli_bad_option(const char *cmd, int c, char **argv)
{
    const char *arg = optind > 0 ? argv[optind - 1] : "";
    int name_len = (int)strcspn(arg, "=");

    /*
     * glibc leaves optopt at 0 for an unknown long option and at the
     * letter for a short one; a short option inside a group ("-vZ") is
     * not always argv[optind - 1], so only long options are named from
     * argv.
     */
    if (c == ':') {
        if (strncmp(arg, "--", 2) == 0) {
            return cli_usage(cmd, "option '%.*s' needs a value", name_len,
                             arg);
        }
        return cli_usage(cmd, "option '-%c' needs a value", optopt);
    }
    if (optopt != 0) {
        return cli_usage(cmd, "unknown option '-%c'", optopt);
    }
    return cli_usage(cmd, "unknown option '%.*s'", name_len, arg);
}

int cli_add_events(const char *cmd, char **events, const char *more)
{
    char *joined;

    if (!*events) {
        joined = strdup(more);
    } else if (asprintf(&joined, "%s,%s", *events, more) < 0) {
        joined = NULL;
    }
    if (!joined) {
        cli_error(cmd, "-e %s: %s", more, strerror(ENOMEM));
        return CLI_FAIL;
    }
    free(*events);
    *events = joined;
    return CLI_OK;
}
