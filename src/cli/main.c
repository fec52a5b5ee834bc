/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The qtrace command: global options (--help, --version), the table of
 * subcommands and the dispatch to cmd_<name>(). Also the only place that
 * ends the process: it flushes stdout and fails if the output was lost.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "did-you-mean.h"
#include "shrink-guard.h"

#ifndef QTRACE_VERSION
#define QTRACE_VERSION "unknown"
#endif

struct command {
    const char *name;               /* as typed after "qtrace" */
    cli_cmd_fn fn;
    const char *summary;            /* one line for qtrace --help */
};

static const struct command commands[] = {
    { "record", cmd_record, "run a program under QEMU and record a trace" },
    { "dump", cmd_dump, "print every record of a trace, one per line" },
    { "info", cmd_info, "print a trace's header and its count per event" },
    { "convert", cmd_convert,
      "convert a trace to another format (uftrace, etrace)" },
    { "report", cmd_report,
      "summaries of a trace (functions, syscalls, blocks, insns, folded "
      "stacks, ...)" },
    { "replay", cmd_replay, "print the guest's call tree with durations" },
    { "coverage", cmd_coverage,
      "the code a trace ran, as drcov, lcov or text" },
    { "flamegraph", cmd_flamegraph,
      "an interactive flame graph (SVG) of the guest's calls" },
    { "diff", cmd_diff, "where two traces of one program first part" },
    { "list", cmd_list, "print the events that can be recorded" },
    { "ctl", cmd_ctl, "send a command to a running recording (ctl=)" },
    { "tracetool", cmd_tracetool,
      "trace-events to trace.h/trace.c for a program's own tracing" },
};

#define N_COMMANDS (sizeof(commands) / sizeof(commands[0]))

static void print_help(void)
{
    size_t i;

    printf("usage: qtrace [--help] [--version] COMMAND [ARGS]\n"
           "\n"
           "Record what a program does under QEMU, and read the trace.\n"
           "\n"
           "Commands:\n");
    for (i = 0; i < N_COMMANDS; i++) {
        printf("  %-10s %s\n", commands[i].name, commands[i].summary);
    }
    printf("\n"
           "Run 'qtrace COMMAND --help' for the options of a command.\n"
           "\n"
           "Environment:\n"
           "  QTRACE_READER_MEMORY_LIMIT  memory one trace may make the\n"
           "                              reading commands allocate\n"
           "                              (default 1G; 0: no limit)\n");
}

static const struct command *find_command(const char *name)
{
    size_t i;

    for (i = 0; i < N_COMMANDS; i++) {
        if (strcmp(commands[i].name, name) == 0) {
            return &commands[i];
        }
    }
    return NULL;
}

static int misuse(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));

static int unknown_command(const char *name)
{
    struct did_you_mean dym;
    const char *near;
    size_t i;

    did_you_mean_init(&dym, name);
    for (i = 0; i < N_COMMANDS; i++) {
        did_you_mean_consider(&dym, commands[i].name);
    }
    near = did_you_mean_result(&dym);
    if (near) {
        return misuse("unknown command '%s'; did you mean '%s'?", name, near);
    }
    return misuse("unknown command '%s'", name);
}

static int misuse(const char *fmt, ...)
{
    va_list ap;

    fputs("qtrace: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputs("\ntry 'qtrace --help'\n", stderr);
    return CLI_USAGE;
}

/*
 * Results written to stdout but lost (full disk, closed pipe) turn a
 * success into a failure: the user must not trust a partial dump.
 */
static int finish_stdout(const char *who, int status)
{
    int err = 0;

    /* A stale errno must not name the wrong cause: clear it first. */
    errno = 0;
    if (fflush(stdout) != 0 || ferror(stdout)) {
        err = errno ? errno : cli_out_errno() ? cli_out_errno() : EIO;
    }
    errno = 0;
    if (fclose(stdout) != 0 && err == 0) {
        err = errno ? errno : EIO;
    }
    if (err != 0) {
        fprintf(stderr, "qtrace%s%s: standard output: %s\n",
                *who ? " " : "", who, strerror(err));
        /* Output lost is worse than a trace without its END. */
        return status == CLI_OK || status == CLI_INCOMPLETE ? CLI_FAIL
                                                           : status;
    }
    return status;
}

static int run(int argc, char **argv, const char **who)
{
    const struct command *cmd;
    char *help_argv[] = { NULL, "--help", NULL };

    if (argc < 2) {
        return misuse("missing command");
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        print_help();
        return CLI_OK;
    }
    if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "-V") == 0) {
        printf("qtrace %s\n", QTRACE_VERSION);
        return CLI_OK;
    }
    if (strcmp(argv[1], "help") == 0) {
        /* "qtrace help CMD" is "qtrace CMD --help". */
        if (argc < 3) {
            print_help();
            return CLI_OK;
        }
        cmd = find_command(argv[2]);
        if (!cmd) {
            return unknown_command(argv[2]);
        }
        *who = cmd->name;
        help_argv[0] = argv[2];
        return cmd->fn(2, help_argv);
    }
    if (argv[1][0] == '-') {
        return misuse("unknown option '%s'", argv[1]);
    }
    cmd = find_command(argv[1]);
    if (!cmd) {
        return unknown_command(argv[1]);
    }
    *who = cmd->name;
    shrink_guard_install(cmd->name);
    return cmd->fn(argc - 1, argv + 1);
}

int main(int argc, char **argv)
{
    const char *who = "";
    int status = run(argc, argv, &who);

    if (status == CLI_HELP) {
        status = CLI_OK;
    }
    status = finish_stdout(who, status);
    exit(status);
}
