/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * qtrace record: run a program under qemu-<arch> with the qtrace plugin
 * loaded, and pass the guest's exit status through. The architecture comes
 * from the program's ELF header (libelf); the plugin does the recording.
 * Before QEMU runs: PROGRAM found in PATH, -e checked against the plugin's
 * catalog, a cross sysroot found (sysroot.c); after: the summary line
 * (record-summary.c). With --system, a machine under qemu-system-<arch>
 * instead (record-system.c).
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

#include <glib.h>

#include "cli.h"
#include "out-guard.h"
#include "plugin-args.h"
#include "plugin-path.h"
#include "qtrace/arch.h"
#include "record-events.h"
#include "record-summary.h"
#include "record-system.h"
#include "record-verdict.h"
#include "sysroot.h"
#include "../plugin/window/window.h"

#define DEFAULT_OUT "qtrace.qtr"

struct record_opts {
    char *events;                   /* -e patterns, joined; owned */
    const char *out;                /* -o trace file */
    char **opts;                    /* -O KEY=VALUE, in order; owned array */
    size_t n_opts;
    const char *qemu;               /* --qemu, or NULL */
    char **qemu_words;              /* -Q words, in order; owned (GStrv
                                       pieces in one growing array) */
    size_t n_qemu_words;
    bool verbose;                   /* -v: show the QEMU command line */
    bool force;                     /* -f: -o may replace any file */
    bool quiet;                     /* -q: no summary line at the end */
    bool instr_seen;                /* an --instr came before */
    bool ctl;                       /* --ctl: a control socket */
    const char *ctl_path;           /* --ctl=PATH, NULL: OUTPUT.ctl */
    char **program;                 /* PROGRAM and its ARGS, NULL-ended;
                                       with --system QEMU's own arguments */
    struct record_system sys;       /* --system and its options */
};

static const char usage[] =
    "usage: qtrace record [OPTIONS] [--] PROGRAM [ARGS]\n"
    "       qtrace record --system [OPTIONS] [-M MACHINE] [--kernel FILE]\n"
    "                     [--initrd FILE] [--append CMDLINE] [-- QEMU_ARGS]\n"
    "\n"
    "Run PROGRAM (a Linux ELF executable of any architecture QEMU emulates)\n"
    "under qemu-<arch> with the qtrace plugin, and write its trace. A\n"
    "PROGRAM without '/' is searched in PATH. Exits with PROGRAM's status\n"
    "(128+N if it was killed by signal N), or 1 when PROGRAM exited 0 but\n"
    "the trace lost records or could not be written. At the end, one line\n"
    "on stderr sums the trace up: instructions, records, size, lost.\n"
    "\n"
    "Options:\n"
    "  -e, --events=PATTERNS    record the events matching the glob\n"
    "                           PATTERNS (comma separated, '-PATTERN'\n"
    "                           excludes, @FILE reads them from FILE);\n"
    "                           repeatable; default: the plugin's default\n"
    "  -o, --output=FILE        write the trace to FILE (default "
    DEFAULT_OUT ");\n"
    "                           an existing FILE is replaced only if it\n"
    "                           is a qtrace trace or empty\n"
    "  -f, --force              replace FILE whatever it holds\n"
    "  -O, --option=KEY=VALUE   pass KEY=VALUE to the plugin; repeatable\n"
    "      --backend=LIST       also send the events to these tracing\n"
    "                           backends: log, simple, ftrace, syslog,\n"
    "                           ust, dtrace\n"
    "                           (-O backend=LIST; see -O backend-file=,\n"
    "                           backend-log=)\n"
    "      --instr=PATH         load this instrumentation library into\n"
    "                           the plugin (-O instr=PATH); repeatable\n"
    "      --instr-arg=VALUE    an argument of the last --instr before it\n"
    "                           (-O instr-arg=VALUE); repeatable\n"
    "      --ring=SIZE          flight recorder: keep only the last SIZE\n"
    "                           bytes of records per vCPU (e.g. 4M) and\n"
    "                           write them at exit, on a crash and at\n"
    "                           'qtrace ctl SOCKET snapshot' (-O ring=SIZE)\n"
    "      --timeline           stamp each vCPU's buffers and pauses with\n"
    "                           the host's clock, so that 'qtrace dump\n"
    "                           --merge' and the converters put every\n"
    "                           vCPU on one timeline (-O timeline=on)\n"
    "      --ctl[=SOCKET]       serve the control socket SOCKET (default\n"
    "                           OUTPUT.ctl) while PROGRAM runs, for\n"
    "                           'qtrace ctl' (-O ctl=SOCKET)\n"
    "      --start-at=WHEN      record each vCPU from the block holding\n"
    "                           its instruction N+1 (WHEN a count N),\n"
    "                           from its first block holding 0xADDRESS\n"
    "                           or the program's SYMBOL, or from each\n"
    "                           start marker (marker) (-O start-at=)\n"
    "      --stop-at=WHEN       stop recording each vCPU at its first\n"
    "                           block holding 0xADDRESS or SYMBOL, or at\n"
    "                           each stop marker (-O stop-at=)\n"
    "      --stop-after=N       stop recording each vCPU at its first\n"
    "                           block N instructions or more after its\n"
    "                           window opened (-O stop-after=N)\n"
    "      --snapshot-at=WHEN   with --ring: write the rings at each\n"
    "                           block holding 0xADDRESS or SYMBOL, or at\n"
    "                           each snapshot marker (-O snapshot-at=)\n"
    "  -Q, --qemu-opt=OPTS      pass OPTS to QEMU, split into words as a\n"
    "                           shell would ('-cpu max' is two words);\n"
    "                           repeatable\n"
    "      --qemu=PATH          run this QEMU instead of qemu-<arch>\n"
    "      --system             trace a whole machine under\n"
    "                           qemu-system-<arch> (a kernel, a firmware):\n"
    "                           QEMU_ARGS after -- are QEMU's own; exits\n"
    "                           with QEMU's status\n"
    "      --arch=NAME          --system: the guest architecture (default:\n"
    "                           the kernel's, else x86_64)\n"
    "  -M, --machine=NAME       --system: QEMU's -machine NAME\n"
    "      --kernel=FILE        --system: QEMU's -kernel FILE (an ELF\n"
    "                           vmlinux, a bzImage, an arm64 or RISC-V\n"
    "                           Image)\n"
    "      --initrd=FILE        --system: QEMU's -initrd FILE\n"
    "      --append=CMDLINE     --system: QEMU's -append CMDLINE\n"
    "  -q, --quiet              no summary line on stderr at the end\n"
    "  -v, --verbose            print the QEMU command line on stderr\n"
    "  -h, --help               print this help and exit\n"
    "\n"
    "Environment:\n"
    "  QTRACE_QEMU     QEMU to run when --qemu is not given\n"
    "  QTRACE_PLUGIN   path of " PLUGIN_NAME " (default: found beside\n"
    "                  the qtrace executable)\n"
    "  QEMU_LD_PREFIX  where QEMU finds the guest's dynamic loader and\n"
    "                  libraries; default for a foreign dynamic PROGRAM:\n"
    "                  the /usr/<triple> holding its loader\n"
    "                  (e.g. /usr/aarch64-linux-gnu)\n";

enum {
    OPT_QEMU = 256, OPT_BACKEND, OPT_INSTR, OPT_INSTR_ARG, OPT_CTL, OPT_RING,
    OPT_START_AT, OPT_STOP_AT, OPT_STOP_AFTER, OPT_SNAPSHOT_AT, OPT_SYSTEM, OPT_ARCH, OPT_KERNEL,
    OPT_INITRD, OPT_APPEND, OPT_TIMELINE,
};

static const struct option long_opts[] = {
    { "events", required_argument, NULL, 'e' },
    { "output", required_argument, NULL, 'o' },
    { "option", required_argument, NULL, 'O' },
    { "qemu-opt", required_argument, NULL, 'Q' },
    { "qemu", required_argument, NULL, OPT_QEMU },
    { "backend", required_argument, NULL, OPT_BACKEND },
    { "instr", required_argument, NULL, OPT_INSTR },
    { "instr-arg", required_argument, NULL, OPT_INSTR_ARG },
    { "ctl", optional_argument, NULL, OPT_CTL },
    { "ring", required_argument, NULL, OPT_RING },
    { "timeline", no_argument, NULL, OPT_TIMELINE },
    { "start-at", required_argument, NULL, OPT_START_AT },
    { "stop-at", required_argument, NULL, OPT_STOP_AT },
    { "stop-after", required_argument, NULL, OPT_STOP_AFTER },
    { "snapshot-at", required_argument, NULL, OPT_SNAPSHOT_AT },
    { "system", no_argument, NULL, OPT_SYSTEM },
    { "arch", required_argument, NULL, OPT_ARCH },
    { "machine", required_argument, NULL, 'M' },
    { "kernel", required_argument, NULL, OPT_KERNEL },
    { "initrd", required_argument, NULL, OPT_INITRD },
    { "append", required_argument, NULL, OPT_APPEND },
    { "quiet", no_argument, NULL, 'q' },
    { "verbose", no_argument, NULL, 'v' },
    { "force", no_argument, NULL, 'f' },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 },
};

static int add_events(struct record_opts *opts, const char *more)
{
    /* The plugin reads "@FILE" only as the whole events= value. */
    if (opts->events && (opts->events[0] == '@' || more[0] == '@')) {
        return cli_usage("record", "-e %s: an @FILE must be the only -e",
                         opts->events[0] == '@' ? opts->events : more);
    }
    return cli_add_events("record", &opts->events, more);
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

/* --backend=LIST: the plugin's backend=LIST, kept until the run ends. */
static int add_backend(struct record_opts *opts, const char *list)
{
    char *kv;

    if (asprintf(&kv, "backend=%s", list) < 0) {
        cli_error("record", "--backend %s: %s", list, strerror(ENOMEM));
        return CLI_FAIL;
    }
    return add_option(opts, kv);
}

/* --ring=SIZE: the plugin's ring=SIZE (it checks SIZE). */
static int add_ring(struct record_opts *opts, const char *size)
{
    char *kv;

    if (!size[0]) {
        return cli_usage("record", "--ring=: empty size");
    }
    if (asprintf(&kv, "ring=%s", size) < 0) {
        cli_error("record", "--ring %s: %s", size, strerror(ENOMEM));
        return CLI_FAIL;
    }
    return add_option(opts, kv);
}

/*
 * --instr=PATH and --instr-arg=VALUE: the plugin's instr= and instr-arg=,
 * in command-line order, which binds each argument to its library.
 */
static int add_instr(struct record_opts *opts, const char *key,
                     const char *value)
{
    char *kv;

    if (strcmp(key, "instr-arg") == 0 && !opts->instr_seen) {
        return cli_usage("record", "--instr-arg %s: no --instr before it",
                         value);
    }
    if (!value[0]) {
        return cli_usage("record", "--%s: empty value", key);
    }
    opts->instr_seen = true;
    if (asprintf(&kv, "%s=%s", key, value) < 0) {
        cli_error("record", "--%s %s: %s", key, value, strerror(ENOMEM));
        return CLI_FAIL;
    }
    return add_option(opts, kv);
}

/*
 * --start-at=WHEN, --stop-at=WHEN, --stop-after=N, --snapshot-at=WHEN:
 * the plugin's options of the same names, checked here by the plugin's
 * own parser so that a bad value is one usage line before QEMU starts.
 */
static int add_window(struct record_opts *opts, const char *key,
                      const char *value)
{
    static const struct {
        const char *key;
        int (*parse)(struct window_spec *spec, const char *value,
                     struct qtrace_err *err);
    } parsers[] = {
        { "start-at", window_parse_start },
        { "stop-at", window_parse_stop_at },
        { "stop-after", window_parse_stop },
        { "snapshot-at", window_parse_snapshot_at },
    };
    struct window_spec spec = { .has_stop_after = false };
    struct qtrace_err err = { "" };
    char *kv;
    size_t i;
    int ret;

    for (i = 0; strcmp(parsers[i].key, key) != 0; i++) {
    }
    ret = parsers[i].parse(&spec, value, &err);

    window_spec_fini(&spec);
    if (ret < 0) {
        return cli_usage("record", "--%s=%s: %s", key, value,
                         err.msg[0] ? err.msg : strerror(-ret));
    }
    if (asprintf(&kv, "%s=%s", key, value) < 0) {
        cli_error("record", "--%s %s: %s", key, value, strerror(ENOMEM));
        return CLI_FAIL;
    }
    return add_option(opts, kv);
}

/*
 * One -Q value: split into words as a shell would (blanks separate,
 * quotes and backslashes group, nothing is expanded), appended in order.
 */
static int add_qemu_words(struct record_opts *opts, const char *value)
{
    GError *gerr = NULL;
    gchar **words = NULL;
    gint n = 0, i;
    char **bigger;

    if (!g_shell_parse_argv(value, &n, &words, &gerr)) {
        int ret = cli_usage("record", "-Q %s: %s", value, gerr ?
                            gerr->message : "cannot split into words");

        g_clear_error(&gerr);
        return ret;
    }
    bigger = realloc(opts->qemu_words,
                     (opts->n_qemu_words + (size_t)n) * sizeof(*bigger));
    if (!bigger) {
        g_strfreev(words);
        cli_error("record", "-Q %s: %s", value, strerror(ENOMEM));
        return CLI_FAIL;
    }
    opts->qemu_words = bigger;
    for (i = 0; i < n; i++) {
        opts->qemu_words[opts->n_qemu_words++] = words[i];
    }
    g_free(words);      /* the array only: the words now belong to opts */
    return CLI_OK;
}

/* The options of --system; true when c was one of them. */
static bool parse_system_opt(int c, struct record_system *sys)
{
    switch (c) {
    case OPT_SYSTEM:
        sys->on = true;
        return true;
    case OPT_ARCH:
        sys->arch = optarg;
        return true;
    case 'M':
        sys->machine = optarg;
        return true;
    case OPT_KERNEL:
        sys->kernel = optarg;
        return true;
    case OPT_INITRD:
        sys->initrd = optarg;
        return true;
    case OPT_APPEND:
        sys->append = optarg;
        return true;
    default:
        return false;
    }
}

/*
 * The operands: PROGRAM and its ARGS, or with --system QEMU's own
 * arguments (options: a bare word is most likely a kernel or a program
 * given in the wrong place).
 */
static int check_operands(int argc, char **argv, struct record_opts *opts)
{
    const struct record_system *sys = &opts->sys;

    opts->program = argv + optind;
    if (!sys->on) {
        if (sys->arch || sys->machine || sys->kernel || sys->initrd ||
            sys->append) {
            return cli_usage("record", "--arch, -M, --kernel, --initrd and "
                             "--append need --system");
        }
        if (optind >= argc) {
            return cli_usage("record", "missing PROGRAM");
        }
        return CLI_OK;
    }
    if (optind < argc && argv[optind][0] != '-') {
        return cli_usage("record", "--system takes no PROGRAM ('%s'): a "
                         "kernel goes in --kernel, QEMU's own arguments "
                         "after --", argv[optind]);
    }
    return CLI_OK;
}

static int parse_opts(int argc, char **argv, struct record_opts *opts)
{
    int ret = CLI_OK;
    int c;

    opterr = 0;
    /* '+': stop at PROGRAM, whose own options are not ours. */
    while (ret == CLI_OK &&
           (c = getopt_long(argc, argv, "+:e:o:O:Q:M:qvfh", long_opts,
                            NULL)) != -1) {
        if (parse_system_opt(c, &opts->sys)) {
            continue;
        }
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
        case 'Q':
            ret = add_qemu_words(opts, optarg);
            break;
        case OPT_QEMU:
            opts->qemu = optarg;
            break;
        case OPT_BACKEND:
            ret = add_backend(opts, optarg);
            break;
        case OPT_INSTR:
            ret = add_instr(opts, "instr", optarg);
            break;
        case OPT_INSTR_ARG:
            ret = add_instr(opts, "instr-arg", optarg);
            break;
        case OPT_RING:
            ret = add_ring(opts, optarg);
            break;
        case OPT_TIMELINE:
            /* A literal, never freed: the list keeps pointers only. */
            ret = add_option(opts, (char *)"timeline=on");
            break;
        case OPT_CTL:
            if (optarg && optarg[0] == '\0') {
                return cli_usage("record", "--ctl=: empty socket path");
            }
            opts->ctl = true;
            opts->ctl_path = optarg;
            break;
        case OPT_START_AT:
            ret = add_window(opts, "start-at", optarg);
            break;
        case OPT_STOP_AT:
            ret = add_window(opts, "stop-at", optarg);
            break;
        case OPT_STOP_AFTER:
            ret = add_window(opts, "stop-after", optarg);
            break;
        case OPT_SNAPSHOT_AT:
            ret = add_window(opts, "snapshot-at", optarg);
            break;
        case 'q':
            opts->quiet = true;
            break;
        case 'v':
            opts->verbose = true;
            break;
        case 'f':
            opts->force = true;
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
    return check_operands(argc, argv, opts);
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
        const char *kind = record_system_image_kind(path, NULL);

        if (kind) {
            cli_error("record", "%s: a Linux kernel image (%s), not a "
                      "program: trace it with 'qtrace record --system "
                      "--kernel %s'", path, kind, path);
        } else {
            cli_error("record", "%s: not an ELF file", path);
        }
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

/*
 * --qemu, else $QTRACE_QEMU, else qemu-<arch> (qemu-system-<arch> with
 * --system) from PATH.
 */
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
            snprintf(name, sizeof(name), "qemu-%s%s",
                     opts->sys.on ? "system-" : "", arch->name);
            want = name;
        }
        *qemu = search_path(want);
        if (!*qemu) {
            cli_error("record", "%s: not found in PATH%s%s", want,
                      want == name ? " (install the Debian package " : "",
                      want != name ? "" : opts->sys.on ?
                      "qemu-system-*)" : "qemu-user)");
            return CLI_FAIL;
        }
    }
    if (!*qemu) {
        cli_error("record", "%s: %s", want, strerror(ENOMEM));
        return CLI_FAIL;
    }
    return CLI_OK;
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

/* What record hands QEMU besides the plugin: found before QEMU runs. */
struct launch {
    char *program;                  /* PROGRAM's path, searched in PATH when
                                       it has no '/'; owned */
    bool searched;                  /* program came from PATH */
    char *sysroot;                  /* -L DIR for a foreign dynamic PROGRAM,
                                       or NULL; owned */
};

/*
 * qemu [-L SYSROOT] [-0 NAME] [-Q WORDS] -plugin ARGS -- PROGRAM ARGS:
 * "--" ends QEMU's options, so a PROGRAM whose name starts with '-' is
 * not taken for one. The user's -Q words come after qtrace's own, so that
 * theirs win where QEMU keeps the last (-L, -0).
 */
static char **build_argv(char *qemu, char *plugin_arg,
                         const struct record_opts *opts,
                         const struct launch *l)
{
    size_t n = 0, i, k = 0;
    char **argv;

    while (opts->program[n]) {
        n++;
    }
    argv = calloc(n + opts->n_qemu_words + 9, sizeof(*argv));
    if (!argv) {
        return NULL;
    }
    argv[k++] = qemu;
    if (l->sysroot) {
        argv[k++] = "-L";
        argv[k++] = l->sysroot;
    }
    if (l->searched) {
        /* Like execvp: the guest's argv[0] stays the name as typed. */
        argv[k++] = "-0";
        argv[k++] = opts->program[0];
    }
    for (i = 0; i < opts->n_qemu_words; i++) {
        argv[k++] = opts->qemu_words[i];
    }
    argv[k++] = "-plugin";
    argv[k++] = plugin_arg;
    argv[k++] = "--";
    argv[k++] = l->program;
    for (i = 1; i < n; i++) {
        argv[k++] = opts->program[i];
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

/*
 * Name a status file to the plugin (status=PATH, see record-verdict.h):
 * its totals tell whether the recording lost anything. *kv is the
 * option's text, owned by the caller like *path.
 */
static int add_status_option(struct record_opts *opts, char **path,
                             char **kv)
{
    *path = record_verdict_new_status_file();
    if (!*path) {
        cli_error("record", "status file: %s", strerror(errno));
        return CLI_FAIL;
    }
    if (asprintf(kv, "status=%s", *path) < 0) {
        *kv = NULL;
        cli_error("record", "status file: %s", strerror(ENOMEM));
        return CLI_FAIL;
    }
    return add_option(opts, *kv);
}

/*
 * --ctl: the plugin's ctl=SOCKET, said on stderr so that the user (or a
 * script reading stderr) knows where to send commands. *kv is owned by
 * the caller.
 */
static int add_ctl_option(struct record_opts *opts, char **kv)
{
    int n = opts->ctl_path ? asprintf(kv, "ctl=%s", opts->ctl_path)
                           : asprintf(kv, "ctl=%s.ctl", opts->out);

    if (n < 0) {
        *kv = NULL;
        cli_error("record", "--ctl: %s", strerror(ENOMEM));
        return CLI_FAIL;
    }
    fprintf(stderr, "qtrace record: control socket %s (qtrace ctl %s "
            "help)\n", *kv + 4, *kv + 4);
    return add_option(opts, *kv);
}

/*
 * As in a shell, the current directory is not searched: a file of that
 * name there gets a hint rather than a silent surprise.
 */
static void report_not_in_path(const char *name)
{
    if (access(name, F_OK) == 0) {
        cli_error("record", "%s: not found in PATH (for the file in the "
                  "current directory, say ./%s)", name, name);
    } else {
        cli_error("record", "%s: not found in PATH", name);
    }
}

/*
 * PROGRAM as execvp would find it: a name with a '/' is a path, any other
 * is searched in PATH.
 */
static int resolve_program(const char *name, struct launch *l)
{
    if (strchr(name, '/')) {
        l->program = strdup(name);
    } else {
        errno = 0;
        l->program = search_path(name);
        if (!l->program && errno != ENOMEM) {
            report_not_in_path(name);
            return CLI_FAIL;
        }
        l->searched = true;
    }
    if (!l->program) {
        cli_error("record", "%s: %s", name, strerror(ENOMEM));
        return CLI_FAIL;
    }
    return CLI_OK;
}

/* Whether QEMU is already told where the guest's libraries are. */
static bool has_ld_prefix(const struct record_opts *opts)
{
    const char *env = getenv("QEMU_LD_PREFIX");
    size_t i;

    if (env && *env) {
        return true;
    }
    /* QEMU's user-mode options take one dash or two. */
    for (i = 0; i < opts->n_qemu_words; i++) {
        if (strcmp(opts->qemu_words[i], "-L") == 0 ||
            strcmp(opts->qemu_words[i], "--L") == 0) {
            return true;
        }
    }
    return false;
}

/* A foreign dynamic PROGRAM gets the cross sysroot holding its loader. */
static int find_sysroot(const struct record_opts *opts,
                        const struct qtrace_arch *arch, struct launch *l)
{
    if (has_ld_prefix(opts)) {
        return CLI_OK;
    }
    return sysroot_find("record", l->program, arch, &l->sysroot);
}

/* Everything QEMU needs, found and checked before it runs. */
static int prepare(const struct record_opts *opts, char **plugin,
                   struct launch *l, char **qemu)
{
    const struct qtrace_arch *arch;
    int ret = plugin_path_find("record", plugin);

    if (ret == CLI_OK) {
        ret = record_events_check(opts->events, *plugin);
    }
    if (ret == CLI_OK && opts->sys.on) {
        ret = record_system_arch(&opts->sys, &arch);
        return ret == CLI_OK ? find_qemu(opts, arch, qemu) : ret;
    }
    if (ret == CLI_OK) {
        ret = resolve_program(opts->program[0], l);
    }
    if (ret == CLI_OK) {
        ret = probe_program(l->program, &arch);
    }
    if (ret == CLI_OK) {
        ret = find_sysroot(opts, arch, l);
    }
    if (ret == CLI_OK) {
        ret = find_qemu(opts, arch, qemu);
    }
    return ret;
}

static void free_opts(struct record_opts *opts)
{
    size_t i;

    free(opts->events);
    free(opts->opts);
    for (i = 0; i < opts->n_qemu_words; i++) {
        g_free(opts->qemu_words[i]);
    }
    free(opts->qemu_words);
}

int cmd_record(int argc, char **argv)
{
    struct record_opts opts = { .out = DEFAULT_OUT };
    struct launch launch = { NULL, false, NULL };
    struct plugin_args pa = { NULL, NULL, NULL, NULL, 0 };
    struct record_summary summary;
    struct record_verdict verdict;
    char *qemu = NULL, *plugin = NULL, *plugin_arg = NULL;
    char **qemu_argv = NULL;
    char *status_path = NULL, *status_kv = NULL, *ctl_kv = NULL;
    int ret = parse_opts(argc, argv, &opts);

    if (ret == CLI_OK && !out_guard_check("record", opts.out,
                                          out_guard_is_trace,
                                          "a qtrace trace", opts.force)) {
        ret = CLI_FAIL;
    }
    if (ret == CLI_OK) {
        ret = prepare(&opts, &plugin, &launch, &qemu);
    }
    if (ret == CLI_OK) {
        ret = add_status_option(&opts, &status_path, &status_kv);
    }
    if (ret == CLI_OK && opts.ctl) {
        ret = add_ctl_option(&opts, &ctl_kv);
    }
    if (ret == CLI_OK) {
        pa = (struct plugin_args){ plugin, opts.out, opts.events, opts.opts,
                                   opts.n_opts };
        plugin_arg = plugin_args_join(&pa);
        if (plugin_arg && opts.sys.on) {
            qemu_argv = record_system_argv(qemu, plugin_arg, &opts.sys,
                                           opts.qemu_words,
                                           opts.n_qemu_words, opts.program);
        } else if (plugin_arg) {
            qemu_argv = build_argv(qemu, plugin_arg, &opts, &launch);
        }
        if (!qemu_argv) {
            cli_error("record", "%s", strerror(ENOMEM));
            ret = CLI_FAIL;
        }
    }
    if (ret == CLI_OK) {
        if (opts.verbose) {
            print_command(qemu_argv);
        }
        record_summary_begin(&summary, opts.out);
        ret = run_qemu(qemu_argv);
        /* The plugin's totals: for the summary, and lost or failed. */
        record_verdict_read(status_path, &verdict);
        if (!opts.quiet) {
            record_summary_print(&summary, &verdict);
        }
        ret = record_verdict_status(opts.out, &verdict, ret);
    }
    record_verdict_remove(status_path);
    free(status_path);
    free(status_kv);
    free(ctl_kv);
    free(qemu_argv);
    free(plugin_arg);
    free(plugin);
    free(qemu);
    free(launch.program);
    free(launch.sysroot);
    free_opts(&opts);
    return ret;
}
