/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A main() for the fuzz targets without libFuzzer: runs
 * LLVMFuzzerTestOneInput once over each file named, and over every file
 * of each directory named (not recursively; a directory that does not
 * exist holds nothing to run). With it the targets build
 * with any compiler (the gcc ASan/UBSan build) and replay the seeds and
 * the inputs that once crashed as ordinary tests.
 */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));

/* The whole of path, malloc'd (one byte more, so an empty file is too). */
static uint8_t *read_input(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    uint8_t *buf = NULL;
    size_t cap = 0, len = 0, got;

    if (!f) {
        return NULL;
    }
    do {
        if (len == cap) {
            uint8_t *bigger;

            cap = cap ? cap * 2 : 65536;
            bigger = realloc(buf, cap + 1);
            if (!bigger) {
                free(buf);
                fclose(f);
                return NULL;
            }
            buf = bigger;
        }
        got = fread(buf + len, 1, cap - len, f);
        len += got;
    } while (got > 0);
    if (ferror(f)) {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    *size = len;
    return buf;
}

static int run_file(const char *path)
{
    size_t size = 0;
    uint8_t *data = read_input(path, &size);

    if (!data) {
        fprintf(stderr, "driver: %s: %s\n", path, strerror(errno));
        return -1;
    }
    /* Named first, so that a crash says which input did it. */
    fprintf(stderr, "driver: running %s (%zu bytes)\n", path, size);
    LLVMFuzzerTestOneInput(data, size);
    free(data);
    return 0;
}

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every regular file of dir, in name order so that runs repeat. */
static int run_dir(const char *dir, unsigned int *runs)
{
    DIR *d = opendir(dir);
    struct dirent *de;
    char **names = NULL;
    size_t n = 0, i;
    int ret = 0;

    if (!d) {
        fprintf(stderr, "driver: %s: %s\n", dir, strerror(errno));
        return -1;
    }
    while ((de = readdir(d)) != NULL) {
        char **more;

        if (de->d_name[0] == '.') {
            continue;
        }
        more = realloc(names, (n + 1) * sizeof(*names));
        if (!more) {
            ret = -1;
            break;
        }
        names = more;
        if (asprintf(&names[n], "%s/%s", dir, de->d_name) < 0) {
            ret = -1;
            break;
        }
        n++;
    }
    closedir(d);
    qsort(names, n, sizeof(*names), compare_names);
    for (i = 0; i < n; i++) {
        struct stat st;

        if (ret == 0 && stat(names[i], &st) == 0 && S_ISREG(st.st_mode)) {
            ret = run_file(names[i]);
            (*runs)++;
        }
        free(names[i]);
    }
    free(names);
    return ret;
}

int main(int argc, char **argv)
{
    unsigned int runs = 0;
    int i;

    if (LLVMFuzzerInitialize) {
        LLVMFuzzerInitialize(&argc, &argv);
    }
    for (i = 1; i < argc; i++) {
        struct stat st;
        int ret;

        if (stat(argv[i], &st) < 0 && errno == ENOENT) {
            /* A target without regress files has no directory for them. */
            fprintf(stderr, "driver: %s: absent, nothing to run\n", argv[i]);
            continue;
        }
        if (stat(argv[i], &st) < 0) {
            fprintf(stderr, "driver: %s: %s\n", argv[i], strerror(errno));
            return 1;
        }
        if (S_ISDIR(st.st_mode)) {
            ret = run_dir(argv[i], &runs);
        } else {
            ret = run_file(argv[i]);
            runs++;
        }
        if (ret < 0) {
            return 1;
        }
    }
    fprintf(stderr, "driver: %u inputs run\n", runs);
    return 0;
}
