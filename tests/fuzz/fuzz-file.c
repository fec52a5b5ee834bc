/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The per-process input file of the fuzz targets (fuzz-file.h). The
 * directory lives under $TMPDIR; it and the files the targets leave in it
 * are removed at exit, so parallel fuzzing jobs never share a file.
 */
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz-file.h"

static char dir_path[4096];
static char input_path[4096 + 16];

static int remove_entry(const char *path, const struct stat *st, int flag,
                        struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    remove(path);
    return 0;
}

/* Remove the directory and whatever the targets wrote into it. */
static void remove_dir(void)
{
    nftw(dir_path, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

const char *fuzz_file_dir(void)
{
    const char *tmp = getenv("TMPDIR");

    if (dir_path[0]) {
        return dir_path;
    }
    snprintf(dir_path, sizeof(dir_path), "%s/qtrace-fuzz-XXXXXX",
             tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir_path)) {
        perror("fuzz: mkdtemp");
        abort();
    }
    atexit(remove_dir);
    snprintf(input_path, sizeof(input_path), "%s/input", dir_path);
    return dir_path;
}

const char *fuzz_file_write(const uint8_t *data, size_t size)
{
    size_t done = 0;
    int fd;

    fuzz_file_dir();
    fd = open(input_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) {
        perror("fuzz: input file");
        abort();
    }
    while (done < size) {
        ssize_t n = write(fd, data + done, size - done);

        if (n <= 0) {
            perror("fuzz: input file");
            abort();
        }
        done += (size_t)n;
    }
    close(fd);
    return input_path;
}
