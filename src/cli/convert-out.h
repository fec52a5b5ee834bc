/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Where `qtrace convert` writes: a temporary file or directory beside OUT
 * (same file system, so a rename can publish it), renamed to OUT when the
 * conversion succeeds and removed when it fails, so a failed conversion
 * leaves nothing behind and never half-replaces an older OUT. An OUT
 * that is neither a file nor a directory (/dev/null, a pipe) is written
 * to as it is: a rename would replace the node itself.
 */
#ifndef QTRACE_CLI_CONVERT_OUT_H
#define QTRACE_CLI_CONVERT_OUT_H

#include <stdbool.h>

#include "qtrace/err.h"

struct convert_out {
    const char *final;              /* OUT as the user gave it */
    const char *path;               /* where to write: tmp, or final */
    char *tmp;                      /* ".NAME.qtrace-XXXXXX" beside it,
                                       NULL when final is written to */
    bool is_dir;                    /* a directory (its files are flat) */
};

/*
 * Create the temporary (an empty file, or an empty directory when
 * is_dir) with the modes a new OUT would get. Returns 0, or -errno with
 * err naming OUT.
 */
int convert_out_begin(struct convert_out *o, const char *out, bool is_dir,
                      struct qtrace_err *err);

/*
 * Put the temporary in OUT's place: an old OUT file is replaced at once
 * (rename); an old OUT directory is moved aside, then removed. Returns 0,
 * or -errno with err set (the temporary is then still there: discard it).
 */
int convert_out_commit(struct convert_out *o, struct qtrace_err *err);

/* Remove the temporary, if still there, and free o's strings. */
void convert_out_discard(struct convert_out *o);

#endif /* QTRACE_CLI_CONVERT_OUT_H */
