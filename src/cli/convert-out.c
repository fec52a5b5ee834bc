/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The temporary output of `qtrace convert` and its publication (see
 * convert-out.h). Format writers only ever see the temporary name.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "convert-out.h"

/* "DIR/.BASE.qtrace-SUFFIX" for path "DIR/BASE"; NULL when out of memory. */
static char *name_beside(const char *path, const char *suffix)
{
    char *d = strdup(path), *b = strdup(path), *name = NULL;

    if (d && b &&
        asprintf(&name, "%s/.%s.qtrace-%s", dirname(d), basename(b),
                 suffix) < 0) {
        name = NULL;
    }
    free(d);
    free(b);
    return name;
}

/* The mode a file or directory created now would get (umask applied). */
static mode_t new_mode(bool is_dir)
{
    mode_t mask = umask(0);

    umask(mask);
    return (is_dir ? 0777 : 0666) & ~mask;
}

/* A device, pipe or socket: something that is not replaced but fed. */
static bool is_special(const char *path)
{
    struct stat st;

    return stat(path, &st) == 0 && !S_ISREG(st.st_mode) &&
           !S_ISDIR(st.st_mode);
}

int convert_out_begin(struct convert_out *o, const char *out, bool is_dir,
                      struct qtrace_err *err)
{
    int fd, e;

    o->final = out;
    o->path = out;
    o->is_dir = is_dir;
    o->tmp = NULL;
    if (is_special(out)) {
        return 0;
    }
    o->tmp = name_beside(out, "XXXXXX");
    if (!o->tmp) {
        qtrace_err_set(err, "%s: %s", out, strerror(ENOMEM));
        return -ENOMEM;
    }
    if (is_dir) {
        fd = mkdtemp(o->tmp) ? 0 : -1;
    } else {
        fd = mkstemp(o->tmp);
    }
    if (fd < 0 || chmod(o->tmp, new_mode(is_dir)) < 0) {
        e = errno;
        qtrace_err_set(err, "%s: %s", out, strerror(e));
        if (fd >= 0) {
            convert_out_discard(o);
        } else {
            free(o->tmp);
            o->tmp = NULL;
        }
        return -e;
    }
    if (!is_dir) {
        close(fd);
    }
    o->path = o->tmp;
    return 0;
}

/* Remove a directory of plain files (a uftrace data directory). */
static void remove_flat_dir(const char *path)
{
    DIR *d = opendir(path);
    struct dirent *de;

    if (d) {
        while ((de = readdir(d)) != NULL) {
            if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..")) {
                unlinkat(dirfd(d), de->d_name, 0);
            }
        }
        closedir(d);
    }
    rmdir(path);
}

/* Move an existing OUT directory aside; *aside is then removed. */
static int move_old_dir(const struct convert_out *o, char **aside,
                        struct qtrace_err *err)
{
    struct stat st;

    *aside = NULL;
    if (lstat(o->final, &st) < 0 || !S_ISDIR(st.st_mode)) {
        /* A file where the directory goes (--force): rename needs it gone. */
        if (o->is_dir && lstat(o->final, &st) == 0 &&
            unlink(o->final) < 0) {
            int e = errno;

            qtrace_err_set(err, "%s: %s", o->final, strerror(e));
            return -e;
        }
        return 0;
    }
    *aside = name_beside(o->final, "old");
    if (!*aside || rename(o->final, *aside) < 0) {
        int e = *aside ? errno : ENOMEM;

        qtrace_err_set(err, "%s: %s", o->final, strerror(e));
        free(*aside);
        *aside = NULL;
        return -e;
    }
    return 0;
}

int convert_out_commit(struct convert_out *o, struct qtrace_err *err)
{
    char *aside = NULL;
    int ret = 0;

    if (!o->tmp) {
        return 0;                       /* written in place */
    }
    if (o->is_dir && (ret = move_old_dir(o, &aside, err)) < 0) {
        return ret;
    }
    if (rename(o->tmp, o->final) < 0) {
        ret = -errno;
        qtrace_err_set(err, "%s: %s", o->final, strerror(-ret));
        if (aside) {
            rename(aside, o->final);        /* put the old one back */
        }
    } else {
        free(o->tmp);
        o->tmp = NULL;
        if (aside) {
            remove_flat_dir(aside);
        }
    }
    free(aside);
    return ret;
}

void convert_out_discard(struct convert_out *o)
{
    if (o->tmp) {
        if (o->is_dir) {
            remove_flat_dir(o->tmp);
        } else {
            unlink(o->tmp);
        }
    }
    free(o->tmp);
    o->tmp = NULL;
}
