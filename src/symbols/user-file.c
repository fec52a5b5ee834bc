/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Reading a --symbols file (see user-file.h). The first bytes decide:
 * the ELF magic, or else text. The user chose the file, so unlike the
 * files a trace names it may be a pipe or under /proc (a text table
 * only: libelf needs a file it can seek in).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "symbol-table.h"
#include "user-file.h"

/* Read all of fd after the n bytes already in *buf; 0 or -errno. */
static int read_rest(int fd, char **buf, size_t *n)
{
    size_t cap = 1 << 16;
    char *p = malloc(cap);

    if (!p) {
        return -ENOMEM;
    }
    memcpy(p, *buf, *n);
    *buf = p;
    for (;;) {
        ssize_t got;

        if (*n == cap) {
            char *grown = realloc(p, cap * 2);

            if (!grown) {
                return -ENOMEM;
            }
            *buf = p = grown;
            cap *= 2;
        }
        got = read(fd, p + *n, cap - *n);
        if (got == 0) {
            return 0;
        }
        if (got < 0 && errno != EINTR) {
            return -errno;
        }
        *n += got > 0 ? (size_t)got : 0;
    }
}

/* Up to len first bytes of fd into buf; the count, or -errno. */
static ssize_t read_head(int fd, char *buf, size_t len)
{
    size_t n = 0;

    while (n < len) {
        ssize_t got = read(fd, buf + n, len - n);

        if (got == 0) {
            break;
        }
        if (got < 0 && errno != EINTR) {
            return -errno;
        }
        n += got > 0 ? (size_t)got : 0;
    }
    return (ssize_t)n;
}

/* The text table in fd, whose first n bytes are in head. */
static int read_table(struct user_file *u, int fd, char *head, size_t n,
                      struct qtrace_err *err)
{
    char *text = head;
    int ret = read_rest(fd, &text, &n);

    if (ret < 0) {
        qtrace_err_set(err, "%s: %s", u->path, strerror(-ret));
    } else {
        ret = symbol_table_parse(&u->elf, text, n, u->path, err);
    }
    if (text != head) {
        free(text);
    }
    return ret;
}

/* Open path for reading; a directory is refused here, not by read(). */
static int open_user_file(const char *path, struct qtrace_err *err)
{
    struct stat st;
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);

    if (fd < 0 || fstat(fd, &st) < 0) {
        int e = errno;

        qtrace_err_set(err, "%s: %s", path, strerror(e));
        if (fd >= 0) {
            close(fd);
        }
        return -e;
    }
    if (S_ISDIR(st.st_mode)) {
        qtrace_err_set(err, "%s: %s", path, strerror(EISDIR));
        close(fd);
        return -EISDIR;
    }
    return fd;
}

int user_file_read(struct user_file *u, const char *path, const uint64_t *at,
                   struct qtrace_err *err)
{
    static const char elf_magic[4] = { 0x7f, 'E', 'L', 'F' };
    char head[4];
    ssize_t n;
    int fd, ret;

    memset(u, 0, sizeof(*u));
    u->path = strdup(path);
    if (!u->path) {
        qtrace_err_set(err, "%s: %s", path, strerror(ENOMEM));
        return -ENOMEM;
    }
    fd = open_user_file(path, err);
    if (fd < 0) {
        user_file_fini(u);
        return fd;
    }
    n = read_head(fd, head, sizeof(head));
    if (n < 0) {
        qtrace_err_set(err, "%s: %s", path, strerror((int)-n));
        ret = (int)n;
    } else if (n == sizeof(head) && memcmp(head, elf_magic, 4) == 0) {
        ret = elf_file_read(&u->elf, path, err);
    } else {
        u->table = true;
        ret = read_table(u, fd, head, (size_t)n, err);
    }
    close(fd);
    if (ret < 0) {
        user_file_fini(u);
        return ret;
    }
    u->bias = at ? *at - elf_file_anchor(&u->elf) : 0;
    return 0;
}

void user_file_fini(struct user_file *u)
{
    elf_file_fini(&u->elf);
    free(u->path);
    memset(u, 0, sizeof(*u));
}
