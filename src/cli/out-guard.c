/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The overwrite check of output options (see out-guard.h): a mistyped
 * -o must not wipe a source file or someone's notes.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "out-guard.h"
#include "qtrace/format.h"

bool out_guard_is_trace(const char *path)
{
    char magic[sizeof(QTRACE_FILE_MAGIC) - 1];
    FILE *f = fopen(path, "rb");
    bool yes;

    if (!f) {
        return false;
    }
    yes = fread(magic, 1, sizeof(magic), f) == sizeof(magic) &&
          memcmp(magic, QTRACE_FILE_MAGIC, sizeof(magic)) == 0;
    fclose(f);
    return yes;
}

bool out_guard_check(const char *cmd, const char *path,
                     out_guard_is_own_fn is_own, const char *what,
                     bool force)
{
    struct stat st;

    if (stat(path, &st) < 0) {
        return true;        /* missing: created; other errors come later */
    }
    if (S_ISREG(st.st_mode) && (st.st_size == 0 || force)) {
        return true;
    }
    if (!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) {
        return true;        /* a device or a pipe: written, not replaced */
    }
    if (is_own && is_own(path)) {
        return true;
    }
    if (S_ISDIR(st.st_mode)) {
        cli_error(cmd, "%s: exists and is not %s (not overwritten)", path,
                  what);
    } else {
        cli_error(cmd, "%s: exists and is not %s (not overwritten; use "
                  "--force to replace it)", path, what);
    }
    return false;
}
