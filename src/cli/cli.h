/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the qtrace subcommands share: exit statuses, the entry point of each
 * command (dispatched by main.c) and the helpers that print diagnostics in
 * the one-line form `qtrace CMD: THING: REASON`.
 */
#ifndef QTRACE_CLI_H
#define QTRACE_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct qtrace_reader;

/*
 * Statuses a command returns. CLI_HELP means "--help was printed": main.c
 * turns it into 0. CLI_INCOMPLETE: the output is whole for what the trace
 * holds, but the trace has no END chunk (trace-end.h); reading commands
 * only. record also returns the guest's status (0..255).
 */
enum {
    CLI_HELP = -1,
    CLI_OK = 0,
    CLI_FAIL = 1,
    CLI_USAGE = 2,
    CLI_INCOMPLETE = 3,
};

/*
 * A subcommand: argv[0] is the command name ("dump"), the options and
 * operands follow. Returns one of the statuses above. Runs on the main
 * thread; prints results on stdout and diagnostics on stderr; main.c
 * flushes stdout and checks it.
 */
typedef int (*cli_cmd_fn)(int argc, char **argv);

int cmd_record(int argc, char **argv);
int cmd_dump(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_convert(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_replay(int argc, char **argv);
int cmd_list(int argc, char **argv);
int cmd_tracetool(int argc, char **argv);
int cmd_ctl(int argc, char **argv);
int cmd_coverage(int argc, char **argv);
int cmd_flamegraph(int argc, char **argv);
int cmd_diff(int argc, char **argv);

/*
 * Write n bytes of buf to f in one call; false when they did not all go
 * out. The first failure's errno is kept for main.c's message about
 * stdout (cli_out_errno): once the stream's buffer is empty, the flush
 * at exit no longer knows why (a full disk, a closed pipe).
 */
bool cli_write_out(FILE *f, const void *buf, size_t n);
int cli_out_errno(void);

/* Print "qtrace CMD: <message>" and a newline on stderr. */
void cli_error(const char *cmd, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/*
 * Print "qtrace CMD: <message>" then "try 'qtrace CMD --help'" on stderr.
 * Returns CLI_USAGE so a parser can `return cli_usage(...)`.
 */
int cli_usage(const char *cmd, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/*
 * Report what getopt_long() returned as '?' or ':' (the optstring must
 * start with ':' or "+:"): an unknown option or a missing value. argv and
 * optind as getopt_long() left them. Returns CLI_USAGE.
 */
int cli_bad_option(const char *cmd, int c, char **argv);

/*
 * Append one more -e value to *events (NULL or owned), comma separated:
 * -e is repeatable in every command. Returns CLI_OK, or CLI_FAIL after
 * saying so when memory runs out.
 */
int cli_add_events(const char *cmd, char **events, const char *more);

/*
 * -j N of the commands that read on several threads: 1 to 64 into
 * *jobs, or CLI_USAGE with the message.
 */
int cli_parse_jobs(const char *cmd, const char *arg, unsigned int *jobs);

/*
 * Let the reader decode on a thread of its own (qtrace_reader_set_ahead)
 * when jobs is 2 or more, or 0 (the default) when a CPU is free: several
 * online and the load average of the last minute below their number
 * less one.
 */
void cli_read_ahead(struct qtrace_reader *rd, unsigned int jobs);

#endif /* QTRACE_CLI_H */
