/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * qtrace ctl: send one command to a running plugin's control socket
 * (docs/control.md) and print the reply. The socket is named by its path
 * or by the QEMU's PID, through the link the plugin makes for it.
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

#define CTL_LINE_MAX 4096           /* the plugin's bound on a command */

struct ctl_opts {
    const char *target;             /* SOCKET path or PID */
    int timeout_s;                  /* --timeout: wait for the reply */
    char **words;                   /* the command */
    int n_words;
};

static const char usage[] =
    "usage: qtrace ctl [--timeout=SECONDS] SOCKET|PID COMMAND [ARG...]\n"
    "\n"
    "Send COMMAND to the control socket of a running qtrace plugin (the\n"
    "plugin option ctl=SOCKET, or record --ctl) and print the reply.\n"
    "With a PID, the socket of that QEMU is found through the link the\n"
    "plugin makes in $XDG_RUNTIME_DIR/qtrace (or /tmp/qtrace-UID).\n"
    "'qtrace ctl SOCKET help' lists the commands; docs/control.md tells\n"
    "them in full. A relative FILE of 'trace-file set' or 'snapshot' is\n"
    "made absolute.\n"
    "\n"
    "Exit status: 0 the command succeeded, 1 it failed (its error on\n"
    "stderr), 2 usage or connection error.\n"
    "\n"
    "Options:\n"
    "  -t, --timeout=SECONDS  wait at most this long for the reply\n"
    "                         (default 30)\n"
    "  -h, --help             print this help and exit\n";

static const struct option long_opts[] = {
    { "timeout", required_argument, NULL, 't' },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 },
};

static int parse_timeout(const char *arg, int *out)
{
    char *end;
    long v;

    errno = 0;
    v = strtol(arg, &end, 10);
    if (errno || *end || end == arg || v < 1 || v > 86400) {
        return cli_usage("ctl", "--timeout=%s: expected seconds, 1 to 86400",
                         arg);
    }
    *out = (int)v;
    return CLI_OK;
}

static int parse_opts(int argc, char **argv, struct ctl_opts *opts)
{
    int c, ret;

    opterr = 0;
    /* '+': the command's own words may look like options. */
    while ((c = getopt_long(argc, argv, "+:t:h", long_opts, NULL)) != -1) {
        switch (c) {
        case 't':
            ret = parse_timeout(optarg, &opts->timeout_s);
            if (ret != CLI_OK) {
                return ret;
            }
            break;
        case 'h':
            fputs(usage, stdout);
            return CLI_HELP;
        default:
            return cli_bad_option("ctl", c, argv);
        }
    }
    if (argc - optind < 2) {
        return cli_usage("ctl", "expected SOCKET|PID and a COMMAND");
    }
    opts->target = argv[optind];
    opts->words = argv + optind + 1;
    opts->n_words = argc - optind - 1;
    return CLI_OK;
}

static bool is_pid(const char *s)
{
    if (!*s) {
        return false;
    }
    for (; *s; s++) {
        if (!isdigit((unsigned char)*s)) {
            return false;
        }
    }
    return true;
}

/* The socket of QEMU process pid, from the plugin's link. */
static int find_pid_socket(const char *pid, char *path, size_t len)
{
    const char *run = getenv("XDG_RUNTIME_DIR");
    char link[PATH_MAX];
    ssize_t n;

    if (run && run[0] == '/') {
        snprintf(link, sizeof(link), "%s/qtrace/%s", run, pid);
    } else {
        snprintf(link, sizeof(link), "/tmp/qtrace-%u/%s", (unsigned)getuid(),
                 pid);
    }
    n = readlink(link, path, len - 1);
    if (n < 0) {
        cli_error("ctl", "PID %s: no control socket (%s: %s; was the "
                  "plugin given ctl=?)", pid, link, strerror(errno));
        return CLI_USAGE;
    }
    path[n] = '\0';
    return CLI_OK;
}

static int connect_socket(const char *path, int *fd_out)
{
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    int fd;

    if (strlen(path) >= sizeof(sa.sun_path)) {
        cli_error("ctl", "%s: path too long for a unix socket", path);
        return CLI_USAGE;
    }
    memcpy(sa.sun_path, path, strlen(path) + 1);
    fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
        cli_error("ctl", "%s: %s", path, strerror(errno));
        if (fd >= 0) {
            close(fd);
        }
        return CLI_USAGE;
    }
    *fd_out = fd;
    return CLI_OK;
}

/* Append word to line, quoted when it holds blanks. */
static bool add_word(char *line, size_t len, const char *word)
{
    size_t used = strlen(line);
    bool quote = strpbrk(word, " \t") != NULL;
    int n;

    if (strchr(word, '"') || strchr(word, '\n')) {
        return false;
    }
    n = snprintf(line + used, len - used, "%s%s%s%s", used ? " " : "",
                 quote ? "\"" : "", word, quote ? "\"" : "");
    return n >= 0 && (size_t)n < len - used;
}

/*
 * `trace-file set FILE` and `snapshot FILE` name a file for QEMU, whose
 * cwd is not ours.
 */
static const char *absolute_file(const struct ctl_opts *opts, int i,
                                 char *buf, size_t len)
{
    char cwd[PATH_MAX];
    const char *w = opts->words[i];

    bool set = i == 2 && opts->n_words == 3 &&
               strcmp(opts->words[0], "trace-file") == 0 &&
               strcmp(opts->words[1], "set") == 0;
    bool snapshot = i == 1 && opts->n_words == 2 &&
                    strcmp(opts->words[0], "snapshot") == 0;

    if (!(set || snapshot) || w[0] == '/' || !getcwd(cwd, sizeof(cwd))) {
        return w;
    }
    snprintf(buf, len, "%s/%s", cwd, w);
    return buf;
}

static int build_line(const struct ctl_opts *opts, char *line, size_t len)
{
    char abs[PATH_MAX + 8];
    int i;

    line[0] = '\0';
    for (i = 0; i < opts->n_words; i++) {
        const char *w = absolute_file(opts, i, abs, sizeof(abs));

        if (!add_word(line, len - 1, w)) {
            return cli_usage("ctl", "%s: a command word may not hold '\"' "
                             "or a newline, and a command is at most %d "
                             "bytes", w, CTL_LINE_MAX);
        }
    }
    strcat(line, "\n");
    return CLI_OK;
}

static int send_all(int fd, const char *buf, size_t len, const char *path)
{
    while (len > 0) {
        ssize_t n = send(fd, buf, len, MSG_NOSIGNAL);

        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n < 0) {
            cli_error("ctl", "%s: %s", path, strerror(errno));
            return CLI_USAGE;
        }
        buf += n;
        len -= (size_t)n;
    }
    return CLI_OK;
}

/* One reply line: printed, or the end of the reply (ok / error). */
static int take_line(const char *line, bool *done)
{
    if (strcmp(line, "ok") == 0) {
        *done = true;
        return CLI_OK;
    }
    if (strncmp(line, "error: ", 7) == 0) {
        *done = true;
        cli_error("ctl", "%s", line + 7);
        return CLI_FAIL;
    }
    puts(line);
    return CLI_OK;
}

static int read_reply(int fd, const struct ctl_opts *opts, const char *path)
{
    static char buf[1 << 16];
    size_t used = 0;
    bool done = false;
    int ret = CLI_OK;

    while (!done) {
        struct pollfd p = { .fd = fd, .events = POLLIN };
        char *nl;
        ssize_t n;

        if (poll(&p, 1, opts->timeout_s * 1000) == 0) {
            cli_error("ctl", "%s: no reply within %d s", path,
                      opts->timeout_s);
            return CLI_USAGE;
        }
        n = recv(fd, buf + used, sizeof(buf) - 1 - used, 0);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            cli_error("ctl", "%s: %s", path, n < 0 ? strerror(errno) :
                      "connection closed before the reply ended");
            return CLI_USAGE;
        }
        used += (size_t)n;
        buf[used] = '\0';
        while (!done && (nl = strchr(buf, '\n')) != NULL) {
            *nl = '\0';
            ret = take_line(buf, &done);
            used -= (size_t)(nl + 1 - buf);
            memmove(buf, nl + 1, used + 1);
        }
        if (used == sizeof(buf) - 1) {
            cli_error("ctl", "%s: reply line too long", path);
            return CLI_USAGE;
        }
    }
    return ret;
}

int cmd_ctl(int argc, char **argv)
{
    struct ctl_opts opts = { .timeout_s = 30 };
    char path[PATH_MAX], line[CTL_LINE_MAX + 2];
    int fd, ret = parse_opts(argc, argv, &opts);

    if (ret != CLI_OK) {
        return ret;
    }
    if (is_pid(opts.target)) {
        ret = find_pid_socket(opts.target, path, sizeof(path));
    } else {
        snprintf(path, sizeof(path), "%s", opts.target);
    }
    if (ret == CLI_OK) {
        ret = build_line(&opts, line, sizeof(line));
    }
    if (ret != CLI_OK || (ret = connect_socket(path, &fd)) != CLI_OK) {
        return ret;
    }
    ret = send_all(fd, line, strlen(line), path);
    if (ret == CLI_OK) {
        ret = read_reply(fd, &opts, path);
    }
    close(fd);
    return ret;
}
