/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Converters from the native format to foreign ones: one file per format,
 * each filling one struct conv_ops. `qtrace convert --to NAME` walks the
 * trace once with the reader and hands every record to the format, in
 * file order. Converters run in the CLI process, single-threaded.
 */
#ifndef QTRACE_CONVERT_H
#define QTRACE_CONVERT_H

#include <stdbool.h>
#include <stddef.h>

#include "qtrace/err.h"
#include "qtrace/reader.h"

struct conv;

struct conv_ops {
    const char *name;               /* --to NAME */
    const char *summary;            /* one line for --help */
    size_t priv_size;               /* bytes of state, zeroed, in cv->priv */
    bool out_is_dir;                /* OUT is a directory, not a file */
    const char *out_kind;           /* what OUT holds, for messages */
    bool takes_events;              /* -e PATTERNS selects what it shows */
    /*
     * With takes_events and no -e: every event of the trace's catalog
     * but these names (NULL-terminated; names the catalog lacks are
     * ignored). NULL: every event.
     */
    const char *const *default_hidden;
    /*
     * Whether an existing OUT holds this format's output, so that a
     * conversion may replace it (anything else needs --force, and a
     * directory is never replaced).
     */
    bool (*is_own)(const char *out);
    /*
     * Create the output (a file or a directory, as the format wants) at
     * out, a temporary name the caller renames to OUT at success.
     * Returns 0 or -errno with err naming the output and the reason.
     */
    int (*begin)(struct conv *cv, const char *out, struct qtrace_err *err);
    /* One record, in file order. */
    int (*record)(struct conv *cv, const struct qtrace_record *rec,
                  struct qtrace_err *err);
    /*
     * Finish the output. complete is false when the trace stopped early:
     * write what was read, then the caller reports why.
     */
    int (*end)(struct conv *cv, bool complete, struct qtrace_err *err);
};

struct conv {
    const struct conv_ops *ops;
    struct qtrace_reader *rd;       /* the trace being converted */
    const char *trace_path;
    const bool *want;               /* by event id (QTRACE_MAX_EVENTS):
                                       the events to convert, from -e or
                                       default_hidden; NULL unless
                                       ops->takes_events */
    void *priv;                     /* ops->priv_size bytes */
};

/* The formats, NULL-terminated (src/convert/formats.c). */
extern const struct conv_ops *const conv_formats[];

/* Format by name, or NULL. */
const struct conv_ops *conv_find(const char *name);

#endif /* QTRACE_CONVERT_H */
