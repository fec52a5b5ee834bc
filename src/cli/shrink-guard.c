/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * SIGBUS from a file that shrank under its mapping: the reader maps the
 * whole trace, and libelf may map a guest binary. The handler finds the
 * mapping that holds the faulting address in /proc/self/maps (path and
 * file offset), prints `qtrace CMD: PATH: the file shrank while being
 * read (at offset N)` and ends the process with status 1. No other
 * thread runs in the CLI, and the reading cannot resume after the fault,
 * so ending here is the only safe way out; the handler uses only
 * async-signal-safe calls (open, read, write, _exit), hence the
 * hand-written parsing and formatting.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "shrink-guard.h"

/* /proc/self/maps of the CLI is a few dozen lines: this holds it whole. */
#define MAPS_BYTES (256 * 1024)

static const char *guard_cmd;           /* command name, for the message */
static char guard_cwd[4096];            /* to print paths relative to it */
static char maps_buf[MAPS_BYTES];       /* the handler's only storage */

/* Read /proc/self/maps into maps_buf, NUL-terminated; its length or -1. */
static ssize_t read_maps(void)
{
    int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
    size_t len = 0;
    ssize_t n;

    if (fd < 0) {
        return -1;
    }
    while (len < sizeof(maps_buf) - 1 &&
           (n = read(fd, maps_buf + len, sizeof(maps_buf) - 1 - len)) > 0) {
        len += (size_t)n;
    }
    close(fd);
    maps_buf[len] = '\0';
    return (ssize_t)len;
}

/* Parse hex digits at *p, moving *p past them. */
static uint64_t parse_hex(const char **p)
{
    uint64_t v = 0;
    char c;

    for (;;) {
        c = **p;
        if (c >= '0' && c <= '9') {
            v = v * 16 + (uint64_t)(c - '0');
        } else if (c >= 'a' && c <= 'f') {
            v = v * 16 + (uint64_t)(c - 'a' + 10);
        } else {
            return v;
        }
        (*p)++;
    }
}

/* Move *p past n blank-separated fields and the blanks after them. */
static void skip_fields(const char **p, int n)
{
    while (n-- > 0) {
        while (**p && **p != ' ' && **p != '\n') {
            (*p)++;
        }
        while (**p == ' ') {
            (*p)++;
        }
    }
}

/*
 * The maps line holding addr, if it maps a file: *path points at the
 * path (ended by '\n' or NUL), *offset is addr's offset in the file.
 * Line: "start-end perms pgoff dev inode   path".
 */
static bool find_mapping(uint64_t addr, const char **path, size_t *path_len,
                         uint64_t *offset)
{
    const char *p = maps_buf;
    uint64_t start, end, pgoff;

    while (*p) {
        start = parse_hex(&p);
        p += *p == '-';
        end = parse_hex(&p);
        skip_fields(&p, 2);     /* the blanks after end, then perms */
        pgoff = parse_hex(&p);
        skip_fields(&p, 3);     /* the blanks after pgoff, dev, inode */
        *path = p;
        *path_len = strcspn(p, "\n");
        p += *path_len + (p[*path_len] == '\n');
        if (addr >= start && addr < end && **path == '/') {
            *offset = pgoff + (addr - start);
            return true;
        }
    }
    return false;
}

static void put(const char *s, size_t len)
{
    ssize_t n;

    while (len > 0 && (n = write(STDERR_FILENO, s, len)) > 0) {
        s += n;
        len -= (size_t)n;
    }
}

static void put_str(const char *s)
{
    put(s, strlen(s));
}

static void put_u64(uint64_t v)
{
    char digits[24];
    size_t i = sizeof(digits);

    do {
        digits[--i] = (char)('0' + v % 10);
        v /= 10;
    } while (v != 0);
    put(digits + i, sizeof(digits) - i);
}

/* The path as the user most likely named it: relative to the cwd. */
static void put_path(const char *path, size_t len)
{
    static const char deleted[] = " (deleted)";
    size_t cwd_len = strlen(guard_cwd);

    if (len > sizeof(deleted) - 1 &&
        memcmp(path + len - (sizeof(deleted) - 1), deleted,
               sizeof(deleted) - 1) == 0) {
        len -= sizeof(deleted) - 1;
    }
    if (cwd_len > 1 && len > cwd_len + 1 &&
        memcmp(path, guard_cwd, cwd_len) == 0 && path[cwd_len] == '/') {
        path += cwd_len + 1;
        len -= cwd_len + 1;
    }
    put(path, len);
}

static void on_sigbus(int sig, siginfo_t *si, void *ctx)
{
    const char *path;
    size_t path_len;
    uint64_t offset;

    (void)ctx;
    if (si->si_code != BUS_ADRERR || read_maps() < 0 ||
        !find_mapping((uint64_t)(uintptr_t)si->si_addr, &path, &path_len,
                      &offset)) {
        /* Not a file that shrank: let the fault kill as it would have. */
        signal(sig, SIG_DFL);
        return;
    }
    put_str("qtrace ");
    put_str(guard_cmd);
    put_str(": ");
    put_path(path, path_len);
    put_str(": the file shrank while being read (at offset ");
    put_u64(offset);
    put_str(")\n");
    _exit(CLI_FAIL);
}

void shrink_guard_install(const char *cmd)
{
    struct sigaction sa;

    guard_cmd = cmd;
    if (!getcwd(guard_cwd, sizeof(guard_cwd))) {
        guard_cwd[0] = '\0';
    }
    memset(&sa, 0, sizeof(sa));
    sa.sa_sigaction = on_sigbus;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGBUS, &sa, NULL);
}
