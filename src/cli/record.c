/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * qtrace record: run a program under qemu-<arch> with the qtrace plugin
 * loaded, and pass the guest's exit status through. The architecture comes
 * from the program's ELF header (libelf); the plugin does the recording.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "plugin-args.h"
#include "qtrace/arch.h"

#ifndef QTRACE_LIBDIR
#define QTRACE_LIBDIR "lib"
#endif

#define PLUGIN_NAME "libqtrace.so"
#define DEFAULT_OUT "qtrace.qtr"

struct record_opts {
    char *events;                   /* -e patterns, joined; owned */
    const char *out;                /* -o trace file */
    char **opts;                    /* -O KEY=VALUE, in order; owned array */
    size_t n_opts;
    const char *qemu;               /* --qemu, or NULL */
    bool verbose;                   /* -v: show the QEMU command line */
    char **program;                 /* PROGRAM and its ARGS, NULL-ended */
};

static const char usage[] =
    "usage: qtrace record [OPTIONS] [--] PROGRAM [ARGS]\n"
    "\n"
    "Run PROGRAM (a Linux ELF executable of any architecture QEMU emulates)\n"
    "under qemu-<arch> with the qtrace plugin, and write its trace. Exits\n"
    "with PROGRAM's status (128+N if it was killed by signal N).\n"
    "\n"
    "Options:\n"
    "  -e, --events=PATTERNS    record the events matching the glob\n"
    "                           PATTERNS (comma separated, '-PATTERN'\n"
    "                           excludes, @FILE reads them from FILE);\n"
    "                           repeatable; default: the plugin's default\n"
    "  -o, --output=FILE        write the trace to FILE (default "
    DEFAULT_OUT ")\n"
    "  -O, --option=KEY=VALUE   pass KEY=VALUE to the plugin; repeatable\n"
    "      --qemu=PATH          run this QEMU instead of qemu-<arch>\n"
    "  -v, --verbose            print the QEMU command line on stderr\n"
    "  -h, --help               print this help and exit\n"
    "\n"
    "Environment:\n"
    "  QTRACE_QEMU     QEMU to run when --qemu is not given\n"
    "  QTRACE_PLUGIN   path of " PLUGIN_NAME " (default: found beside\n"
    "                  the qtrace executable)\n"
    "  QEMU_LD_PREFIX  where QEMU finds the guest's dynamic loader and\n"
    "                  libraries (e.g. /usr/aarch64-linux-gnu)\n";

enum { OPT_QEMU = 256 };

static const struct option long_opts[] = {
    { "events", required_argument, NULL, 'e' },
    { "output", required_argument, NULL, 'o' },
    { "option", required_argument, NULL, 'O' },
    { "qemu", required_argument, NULL, OPT_QEMU },
    { "verbose", no_argument, NULL, 'v' },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 },
};

static int add_events(struct record_opts *opts, const char *more)
{
    char *joined;

    /* The plugin reads "@FILE" only as the whole events= value. */
    if (opts->events && (opts->events[0] == '@' || more[0] == '@')) {
        return cli_usage("record", "-e %s: an @FILE must be the only -e",
                         opts->events[0] == '@' ? opts->events : more);
    }
    if (!opts->events) {
        joined = strdup(more);
    } else if (asprintf(&joined, "%s,%s", opts->events, more) < 0) {
        joined = NULL;
    }
    if (!joined) {
        cli_error("record", "-e %s: %s", more, strerror(ENOMEM));
        return CLI_FAIL;
    }
    free(opts->events);
    opts->events = joined;
    return CLI_OK;
}

static int add_option(struct record_opts *opts, char *kv)
{
    const char *why = plugin_args_check_opt(kv);
    char **bigger;

    if (why) {
        return cli_usage("record", "-O %s: %s", kv, why);
    }
    bigger = realloc(opts->opts, (opts->n_opts + 1) * sizeof(*bigger));
    if (!bigger) {
        cli_error("record", "-O %s: %s", kv, strerror(ENOMEM));
        return CLI_FAIL;
    }
    opts->opts = bigger;
    opts->opts[opts->n_opts++] = kv;
    return CLI_OK;
}

static int parse_opts(int argc, char **argv, struct record_opts *opts)
{
    int ret = CLI_OK;
    int c;

    opterr = 0;
    /* '+': stop at PROGRAM, whose own options are not ours. */
    while (ret == CLI_OK &&
           (c = getopt_long(argc, argv, "+:e:o:O:vh", long_opts, NULL)) !=
           -1) {
        switch (c) {
        case 'e':
            ret = add_events(opts, optarg);
            break;
        case 'o':
            if (optarg[0] == '\0') {
                return cli_usage("record", "-o: empty file name");
            }
            opts->out = optarg;
            break;
        case 'O':
            ret = add_option(opts, optarg);
            break;
        case OPT_QEMU:
            opts->qemu = optarg;
            break;
        case 'v':
            opts->verbose = true;
            break;
        case 'h':
            fputs(usage, stdout);
            return CLI_HELP;
        default:
            return cli_bad_option("record", c, argv);
        }
    }
    if (ret != CLI_OK) {
        return ret;
    }
    if (optind >= argc) {
        return cli_usage("record", "missing PROGRAM");
    }
    opts->program = argv + optind;
    return CLI_OK;
}

/* The word after "unsupported architecture (": a family name if known. */
static const char *machine_name(uint16_t machine)
{
    static const struct {
        uint16_t machine;
        const char *name;
    } others[] = {
        { EM_68K, "m68k" }, { EM_SH, "sh4" }, { EM_ALPHA, "alpha" },
        { EM_PARISC, "hppa" }, { EM_MICROBLAZE, "microblaze" },
        { EM_OPENRISC, "or1k" }, { EM_XTENSA, "xtensa" },
        { EM_CRIS, "cris" }, { EM_SPARC, "sparc" },
        { EM_SPARC32PLUS, "sparc32plus" }, { EM_ALTERA_NIOS2, "nios2" },
        { EM_QDSP6, "hexagon" },
    };
    static const unsigned int bits[] = { 64, 32 };
    const struct qtrace_arch *a;
    size_t i, j;

    for (i = 0; i < 2; i++) {
        for (j = 0; j < 2; j++) {
            a = qtrace_arch_by_elf(machine, bits[i], j == 1);
            if (a) {
                return a->name;
            }
        }
    }
    for (i = 0; i < sizeof(others) / sizeof(others[0]); i++) {
        if (others[i].machine == machine) {
            return others[i].name;
        }
    }
    return NULL;
}

/* Map an ELF header to a guest architecture, or say why not. */
static int check_ehdr(const char *path, Elf *elf,
                      const struct qtrace_arch **arch)
{
    GElf_Ehdr eh;
    unsigned int word_bits;
    bool big;
    const char *name;

    if (elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &eh)) {
        cli_error("record", "%s: not an ELF file", path);
        return CLI_FAIL;
    }
    if (eh.e_type != ET_EXEC && eh.e_type != ET_DYN) {
        cli_error("record", "%s: not an executable (ELF type %s)", path,
                  eh.e_type == ET_REL ? "relocatable" :
                  eh.e_type == ET_CORE ? "core" : "unknown");
        return CLI_FAIL;
    }
    word_bits = eh.e_ident[EI_CLASS] == ELFCLASS64 ? 64 : 32;
    big = eh.e_ident[EI_DATA] == ELFDATA2MSB;
    *arch = qtrace_arch_by_elf(eh.e_machine, word_bits, big);
    if (*arch) {
        return CLI_OK;
    }
    name = machine_name(eh.e_machine);
    cli_error("record", "%s: unsupported architecture (%s%sELF machine %u, "
              "%u-bit %s-endian)", path, name ? name : "", name ? ", " : "",
              eh.e_machine, word_bits, big ? "big" : "little");
    return CLI_FAIL;
}

/* Read PROGRAM's ELF header: it names the QEMU to run. */
static int probe_program(const char *path, const struct qtrace_arch **arch)
{
    struct stat st;
    Elf *elf;
    int fd;
    int ret;

    fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0 || fstat(fd, &st) < 0) {
        cli_error("record", "%s: %s", path, strerror(errno));
        if (fd >= 0) {
            close(fd);
        }
        return CLI_FAIL;
    }
    if (!S_ISREG(st.st_mode)) {
        cli_error("record", "%s: %s", path, S_ISDIR(st.st_mode) ?
                  strerror(EISDIR) : "not a regular file");
        close(fd);
        return CLI_FAIL;
    }
    elf_version(EV_CURRENT);
    elf = elf_begin(fd, ELF_C_READ, NULL);
    if (!elf) {
        cli_error("record", "%s: %s", path, elf_errmsg(-1));
        close(fd);
        return CLI_FAIL;
    }
    ret = check_ehdr(path, elf, arch);
    elf_end(elf);
    close(fd);
    /* QEMU, like the kernel, runs only files with execute permission. */
    if (ret == CLI_OK && access(path, X_OK) < 0) {
        cli_error("record", "%s: %s", path, strerror(errno));
        ret = CLI_FAIL;
    }
    return ret;
}

static bool is_executable_file(const char *path)
{
    struct stat st;

    return stat(path, &st) == 0 && S_ISREG(st.st_mode) &&
           access(path, X_OK) == 0;
}

/* name searched in PATH, as execvp would; a malloc'd path or NULL. */
static char *search_path(const char *name)
{
    const char *path = getenv("PATH");
    const char *dir, *end;
    char *full;

    if (!path || !*path) {
        path = "/usr/local/bin:/usr/bin:/bin";
    }
    for (dir = path; ; dir = end + 1) {
        int dir_len;

        end = strchr(dir, ':');
        dir_len = end ? (int)(end - dir) : (int)strlen(dir);
        /* An empty PATH entry means the current directory. */
        if (asprintf(&full, "%.*s%s%s", dir_len, dir, dir_len ? "/" : "",
                     name) < 0) {
            return NULL;
        }
        if (is_executable_file(full)) {
            return full;
        }
        free(full);
        if (!end) {
            return NULL;
        }
    }
}

/* --qemu, else $QTRACE_QEMU, else qemu-<arch> from PATH. */
static int find_qemu(const struct record_opts *opts,
                     const struct qtrace_arch *arch, char **qemu)
{
    const char *env = getenv("QTRACE_QEMU");
    const char *want = opts->qemu;
    char name[64];

    if (!want && env && *env) {
        want = env;
    }
    if (want && strchr(want, '/')) {
        if (!is_executable_file(want)) {
            cli_error("record", "%s: %s", want,
                      access(want, F_OK) == 0 ? "not an executable file" :
                      strerror(ENOENT));
            return CLI_FAIL;
        }
        *qemu = strdup(want);
    } else {
        if (!want) {
            snprintf(name, sizeof(name), "qemu-%s", arch->name);
            want = name;
        }
        *qemu = search_path(want);
        if (!*qemu) {
            cli_error("record", "%s: not found in PATH%s", want,
                      want == name ? " (install the Debian package "
                      "qemu-user)" : "");
            return CLI_FAIL;
        }
    }
    if (!*qemu) {
        cli_error("record", "%s: %s", want, strerror(ENOMEM));
        return CLI_FAIL;
    }
    return CLI_OK;
}

/*
 * $QTRACE_PLUGIN, else beside the qtrace executable: in a build tree
 * (build/src/cli/qtrace, build/src/plugin/libqtrace.so), then installed
 * (PREFIX/bin/qtrace, PREFIX/LIBDIR/qtrace/libqtrace.so).
 */
static int find_plugin(char **plugin)
{
    const char *env = getenv("QTRACE_PLUGIN");
    char exe[PATH_MAX];
    char cand[2][PATH_MAX + 64];
    ssize_t n;
    size_t i;

    if (env && *env) {
        if (access(env, R_OK) < 0) {
            cli_error("record", "QTRACE_PLUGIN=%s: %s", env,
                      strerror(errno));
            return CLI_FAIL;
        }
        *plugin = realpath(env, NULL);
        if (!*plugin) {
            cli_error("record", "QTRACE_PLUGIN=%s: %s", env,
                      strerror(errno));
            return CLI_FAIL;
        }
        return CLI_OK;
    }
    n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    if (n < 0) {
        cli_error("record", "/proc/self/exe: %s (set QTRACE_PLUGIN to the "
                  "path of " PLUGIN_NAME ")", strerror(errno));
        return CLI_FAIL;
    }
    exe[n] = '\0';
    /*
     * The link is canonical (no "..", no symlinks), so cutting two
     * components gives the parent of qtrace's directory.
     */
    for (i = 0; i < 2; i++) {
        char *slash = strrchr(exe, '/');

        if (slash) {
            *slash = '\0';
        }
    }
    snprintf(cand[0], sizeof(cand[0]), "%s/plugin/" PLUGIN_NAME, exe);
    if (QTRACE_LIBDIR[0] == '/') {
        snprintf(cand[1], sizeof(cand[1]), QTRACE_LIBDIR "/qtrace/"
                 PLUGIN_NAME);
    } else {
        snprintf(cand[1], sizeof(cand[1]), "%s/" QTRACE_LIBDIR
                 "/qtrace/" PLUGIN_NAME, exe);
    }
    for (i = 0; i < 2; i++) {
        *plugin = realpath(cand[i], NULL);
        if (*plugin) {
            return CLI_OK;
        }
    }
    cli_error("record", PLUGIN_NAME ": not found (looked for %s and %s; set "
              "QTRACE_PLUGIN to its path)", cand[0], cand[1]);
    return CLI_FAIL;
}

/* Print one word of a command line so that a shell reads it back. */
static void print_quoted(const char *word)
{
    const char *p;

    if (word[0] != '\0' &&
        strspn(word, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
               "0123456789_@%+=:,./-") == strlen(word)) {
        fputs(word, stderr);
        return;
    }
    fputc('\'', stderr);
    for (p = word; *p; p++) {
        if (*p == '\'') {
            fputs("'\\''", stderr);
        } else {
            fputc(*p, stderr);
        }
    }
    fputc('\'', stderr);
}

static void print_command(char *const *argv)
{
    size_t i;

    for (i = 0; argv[i]; i++) {
        if (i > 0) {
            fputc(' ', stderr);
        }
        print_quoted(argv[i]);
    }
    fputc('\n', stderr);
}

/*
 * qemu [-plugin ARGS] -- PROGRAM ARGS: "--" ends QEMU's options, so a
 * PROGRAM whose name starts with '-' is not taken for one.
 */
static char **build_argv(char *qemu, char *plugin_arg, char **program)
{
    size_t n = 0;
    size_t i;
    char **argv;

    while (program[n]) {
        n++;
    }
    argv = calloc(n + 5, sizeof(*argv));
    if (!argv) {
        return NULL;
    }
    argv[0] = qemu;
    argv[1] = "-plugin";
    argv[2] = plugin_arg;
    argv[3] = "--";
    for (i = 0; i < n; i++) {
        argv[4 + i] = program[i];
    }
    return argv;
}

static volatile sig_atomic_t child_pid;

/*
 * SIGTERM and SIGHUP sent to qtrace alone also end QEMU, which finishes
 * its trace as the guest dies of the signal; qtrace waits for it.
 */
static void forward_signal(int sig)
{
    if (child_pid > 0) {
        kill((pid_t)child_pid, sig);
    }
}

/*
 * SIGINT from the terminal reaches QEMU by itself (same process group),
 * so only one sent by a process (kill -INT) is passed on: the guest must
 * not see the terminal's ^C twice.
 */
static void forward_sigint(int sig, siginfo_t *si, void *uc)
{
    (void)uc;
    if (si->si_code == SI_USER || si->si_code == SI_QUEUE) {
        forward_signal(sig);
    }
}

/*
 * qtrace's handling of sig while QEMU runs (see run_qemu). A signal
 * ignored when qtrace started (a background job, nohup) stays ignored.
 */
static struct sigaction while_qemu_runs(int sig, const struct sigaction *old)
{
    struct sigaction act = { .sa_handler = SIG_IGN };

    if (old->sa_handler == SIG_IGN) {
        return act;
    }
    if (sig == SIGINT) {
        act.sa_sigaction = forward_sigint;
        act.sa_flags = SA_SIGINFO;
    } else if (sig == SIGTERM || sig == SIGHUP) {
        act.sa_handler = forward_signal;
    }
    return act;
}

/*
 * fork and exec QEMU, wait for it. The terminal's SIGINT and SIGQUIT reach
 * QEMU too (same process group): qtrace does not die of them so that it
 * can still pass QEMU's status on. An exec failure comes back through a
 * close-on-exec pipe. Returns the guest's status, 128+N for signal N, or
 * CLI_FAIL.
 */
static int run_qemu(char **argv)
{
    struct sigaction act;
    struct sigaction old[4];
    static const int sigs[4] = { SIGINT, SIGQUIT, SIGTERM, SIGHUP };
    int pipefd[2];
    int status = 0, exec_errno = 0;
    bool failed = false;
    ssize_t n = 0;
    pid_t pid;
    size_t i;

    if (pipe2(pipefd, O_CLOEXEC) < 0) {
        cli_error("record", "pipe: %s", strerror(errno));
        return CLI_FAIL;
    }
    for (i = 0; i < 4; i++) {
        sigaction(sigs[i], NULL, &old[i]);
        act = while_qemu_runs(sigs[i], &old[i]);
        sigaction(sigs[i], &act, NULL);
    }
    fflush(stdout);
    fflush(stderr);
    pid = fork();
    if (pid == 0) {
        for (i = 0; i < 4; i++) {
            sigaction(sigs[i], &old[i], NULL);
        }
        execv(argv[0], argv);
        exec_errno = errno;
        n = write(pipefd[1], &exec_errno, sizeof(exec_errno));
        _exit(127);
    }
    close(pipefd[1]);
    if (pid < 0) {
        cli_error("record", "fork: %s", strerror(errno));
        failed = true;
    } else {
        child_pid = pid;
        /* EOF (0 bytes) when the exec succeeded and closed the pipe. */
        do {
            n = read(pipefd[0], &exec_errno, sizeof(exec_errno));
        } while (n < 0 && errno == EINTR);
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
            continue;
        }
        child_pid = 0;
        if (n == (ssize_t)sizeof(exec_errno)) {
            cli_error("record", "%s: %s", argv[0], strerror(exec_errno));
            failed = true;
        }
    }
    close(pipefd[0]);
    for (i = 0; i < 4; i++) {
        sigaction(sigs[i], &old[i], NULL);
    }
    if (failed) {
        return CLI_FAIL;
    }
    if (WIFSIGNALED(status)) {
        return 128 + WTERMSIG(status);
    }
    return WEXITSTATUS(status);
}

static void free_opts(struct record_opts *opts)
{
    free(opts->events);
    free(opts->opts);
}

int cmd_record(int argc, char **argv)
{
    struct record_opts opts = { .out = DEFAULT_OUT };
    const struct qtrace_arch *arch;
    struct plugin_args pa = { NULL, NULL, NULL, NULL, 0 };
    char *qemu = NULL, *plugin = NULL, *plugin_arg = NULL;
    char **qemu_argv = NULL;
    int ret = parse_opts(argc, argv, &opts);

    if (ret == CLI_OK) {
        ret = probe_program(opts.program[0], &arch);
    }
    if (ret == CLI_OK) {
        ret = find_qemu(&opts, arch, &qemu);
    }
    if (ret == CLI_OK) {
        ret = find_plugin(&plugin);
    }
    if (ret == CLI_OK) {
        pa = (struct plugin_args){ plugin, opts.out, opts.events, opts.opts,
                                   opts.n_opts };
        plugin_arg = plugin_args_join(&pa);
        qemu_argv = plugin_arg ? build_argv(qemu, plugin_arg, opts.program)
                               : NULL;
        if (!qemu_argv) {
            cli_error("record", "%s: %s", opts.program[0], strerror(ENOMEM));
            ret = CLI_FAIL;
        }
    }
    if (ret == CLI_OK) {
        if (opts.verbose) {
            print_command(qemu_argv);
        }
        ret = run_qemu(qemu_argv);
    }
    free(qemu_argv);
    free(plugin_arg);
    free(plugin);
    free(qemu);
    free_opts(&opts);
    return ret;
}
