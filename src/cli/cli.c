/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Diagnostics shared by the subcommands: every message is one line on
 * stderr, `qtrace CMD: THING: REASON`, and misuse adds a pointer to the
 * command's --help. Nothing here exits: main.c owns the exit status.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "qtrace/reader.h"

static void print_line(const char *cmd, const char *fmt, va_list ap)
{
    fprintf(stderr, "qtrace %s: ", cmd);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
}

static int out_errno;

bool cli_write_out(FILE *f, const void *buf, size_t n)
{
    errno = 0;
    if (fwrite_unlocked(buf, 1, n, f) == n) {
        return true;
    }
    if (!out_errno) {
        out_errno = errno ? errno : EIO;
    }
    return false;
}

int cli_out_errno(void)
{
    return out_errno;
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

int cli_parse_jobs(const char *cmd, const char *arg, unsigned int *jobs)
{
    char *end;
    unsigned long n;

    errno = 0;
    n = strtoul(arg, &end, 10);
    if (errno || end == arg || *end || arg[0] == '-' || n < 1 || n > 64) {
        return cli_usage(cmd, "-j %s: a number of threads from 1 to 64",
                         arg);
    }
    *jobs = (unsigned int)n;
    return CLI_OK;
}

/*
 * Whether a CPU is free for a second thread: several online, and the
 * load of the last minute below their number less one. On a machine
 * whose CPUs are all busy a second thread wins no time and its copies
 * cost CPU (a fifth more on a report measured so).
 */
static bool cpu_free(void)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    double load;

    if (cpus < 2) {
        return false;
    }
    return getloadavg(&load, 1) != 1 || load < (double)(cpus - 1);
}

void cli_read_ahead(struct qtrace_reader *rd, unsigned int jobs)
{
    if (jobs == 0) {
        jobs = cpu_free() ? 2 : 1;
    }
    /* Out of memory: the reading stays on this thread, nothing lost. */
    if (jobs > 1) {
        (void)qtrace_reader_set_ahead(rd, true);
    }
}
