/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Opening the files a trace names: see open-file.h. */
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "open-file.h"

/* What a file that is not a regular one is, for the message. */
static const char *kind_of(mode_t mode)
{
    if (S_ISFIFO(mode)) {
        return "a FIFO";
    }
    if (S_ISCHR(mode) || S_ISBLK(mode)) {
        return "a device";
    }
    if (S_ISDIR(mode)) {
        return "a directory";
    }
    if (S_ISSOCK(mode)) {
        return "a socket";
    }
    return "not a regular file";
}

int open_regular_file(const char *path, struct qtrace_err *err)
{
    struct statfs fs;
    struct stat st;
    int fd;

    /* O_NONBLOCK: opening a FIFO with no writer would wait for one. */
    fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0) {
        int e = errno;

        qtrace_err_set(err, "%s: %s", path, strerror(e));
        return -e;
    }
    if (fstat(fd, &st) < 0) {
        int e = errno;

        qtrace_err_set(err, "%s: %s", path, strerror(e));
        close(fd);
        return -e;
    }
    if (!S_ISREG(st.st_mode)) {
        qtrace_err_set(err, "%s: %s, not read", path, kind_of(st.st_mode));
        close(fd);
        return -EINVAL;
    }
    if (fstatfs(fd, &fs) == 0 && fs.f_type == PROC_SUPER_MAGIC) {
        qtrace_err_set(err, "%s: a file of /proc, not read", path);
        close(fd);
        return -EINVAL;
    }
    return fd;
}
