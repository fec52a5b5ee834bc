/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Fuzz target: the reading commands of the qtrace CLI, called in-process
 * on the input written as a trace file: info (plain and --per-cpu), dump
 * (all records, every stream merged by host time, and a selective
 * reading), report (text, JSON, CSV, folded stacks, vCPUs), coverage
 * (text, drcov, lcov), replay, flamegraph, diff of the file against
 * itself, and convert to each format into this process's directory.
 * Their standard output goes to /dev/null; what they print on stderr
 * stays (one line per command).
 */
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"
#include "fuzz-file.h"

static char uftrace_out[4200];
static char etrace_out[4200];
static char chrome_out[4200];
static char perfetto_out[4200];
static char ctf_out[4200];
static char drcov_out[4200];
static char lcov_out[4200];
static char svg_out[4200];

/* Run one command on argv (NULL-terminated, copied: getopt permutes). */
static void run(cli_cmd_fn fn, const char *const *args)
{
    char *argv[16];
    int argc = 0;

    while (args[argc] && argc < 15) {
        argv[argc] = (char *)args[argc];
        argc++;
    }
    argv[argc] = NULL;
    /* 0 makes glibc's getopt start afresh, as in a new process. */
    optind = 0;
    fn(argc, argv);
    fflush(stdout);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    const char *dir = fuzz_file_dir();

    (void)argc;
    (void)argv;
    if (!freopen("/dev/null", "w", stdout)) {
        perror("fuzz-cli: /dev/null");
        abort();
    }
    snprintf(uftrace_out, sizeof(uftrace_out), "%s/uftrace.data", dir);
    snprintf(etrace_out, sizeof(etrace_out), "%s/out.etr", dir);
    snprintf(chrome_out, sizeof(chrome_out), "%s/out.json", dir);
    snprintf(perfetto_out, sizeof(perfetto_out), "%s/out.pftrace", dir);
    snprintf(ctf_out, sizeof(ctf_out), "%s/out.ctf", dir);
    snprintf(drcov_out, sizeof(drcov_out), "%s/out.drcov", dir);
    snprintf(lcov_out, sizeof(lcov_out), "%s/out.info", dir);
    snprintf(svg_out, sizeof(svg_out), "%s/out.svg", dir);
    /* Debug files are searched for here, not in the host's directories. */
    setenv("QTRACE_DEBUGINFO_PATH", dir, 1);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_file_write(data, size);

    run(cmd_info, (const char *const[]){ "info", path, NULL });
    run(cmd_info, (const char *const[]){ "info", "--per-cpu", path, NULL });
    run(cmd_dump, (const char *const[]){ "dump", path, NULL });
    run(cmd_dump, (const char *const[]){ "dump", "--merge", path, NULL });
    run(cmd_report, (const char *const[]){ "report", "--vcpus", path,
                                           NULL });
    run(cmd_dump, (const char *const[]){ "dump", "-e", "exec_*,syscall*",
                                         path, NULL });
    run(cmd_report, (const char *const[]){ "report", path, NULL });
    run(cmd_report, (const char *const[]){ "report", "--format=json",
                                           path, NULL });
    run(cmd_report, (const char *const[]){ "report", "--blocks",
                                           "--format=csv", path, NULL });
    run(cmd_coverage, (const char *const[]){ "coverage", path, NULL });
    run(cmd_coverage, (const char *const[]){ "coverage", "--format",
                                             "drcov", "-o", drcov_out, path,
                                             NULL });
    run(cmd_coverage, (const char *const[]){ "coverage", "--format", "lcov",
                                             "-o", lcov_out, path, NULL });
    run(cmd_report, (const char *const[]){ "report", "--folded",
                                           "--per-stream", path, NULL });
    run(cmd_replay, (const char *const[]){ "replay", path, NULL });
    run(cmd_flamegraph, (const char *const[]){ "flamegraph", "-f", "-o",
                                               svg_out, path, NULL });
    run(cmd_diff, (const char *const[]){ "diff", path, path, NULL });
    run(cmd_convert, (const char *const[]){ "convert", "--force", "--to",
                                            "uftrace", path, uftrace_out,
                                            NULL });
    run(cmd_convert, (const char *const[]){ "convert", "--force", "--to",
                                            "etrace", path, etrace_out,
                                            NULL });
    run(cmd_convert, (const char *const[]){ "convert", "--force", "-e", "*",
                                            "--to", "chrome", path,
                                            chrome_out, NULL });
    run(cmd_convert, (const char *const[]){ "convert", "--force", "--to",
                                            "perfetto", path, perfetto_out,
                                            NULL });
    run(cmd_convert, (const char *const[]){ "convert", "--force", "--to",
                                            "ctf", path, ctf_out, NULL });
    return 0;
}
