/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Filling a symbol table from a trace: its image_map records and its
 * header (see qtrace_symbols_load_trace in include/qtrace/symbols.h).
 * Uses the public reader API only.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qtrace/reader.h"
#include "qtrace/symbols.h"
#include "user-file.h"

/* image_map's arguments in the trace's own catalog. */
struct map_args {
    const struct qtrace_event_desc *ev;
    int start, end, offset, path;
};

static int arg_index(const struct qtrace_event_desc *ev, const char *name)
{
    unsigned int i;

    for (i = 0; i < ev->n_args; i++) {
        if (strcmp(ev->args[i].name, name) == 0) {
            return (int)i;
        }
    }
    return -1;
}

static bool find_map_args(struct map_args *m, const struct qtrace_catalog *c)
{
    m->ev = qtrace_catalog_find(c, "image_map");
    if (!m->ev) {
        return false;
    }
    m->start = arg_index(m->ev, "start");
    m->end = arg_index(m->ev, "end");
    m->offset = arg_index(m->ev, "offset");
    m->path = arg_index(m->ev, "path");
    return m->start >= 0 && m->end >= 0 && m->path >= 0;
}

/*
 * The result of adding one file: a failure is told to warn, ENOMEM is
 * returned. quiet_noelf: a mapped file that is no ELF file is data.
 */
static int add_checked(int ret, const struct qtrace_err *err,
                       bool quiet_noelf, qtrace_symbols_warn_fn warn,
                       void *arg)
{
    if (ret == -ENOMEM) {
        return ret;
    }
    if (ret < 0 && warn && !(quiet_noelf && ret == -ENOEXEC)) {
        warn(arg, err->msg);
    }
    return 0;
}

static int add_record(struct qtrace_symbols *s, const struct map_args *m,
                      const struct qtrace_record *rec,
                      qtrace_symbols_warn_fn warn, void *arg)
{
    struct qtrace_err err = { "" };
    const uint8_t *bytes;
    size_t len;
    char *path;
    int ret;

    bytes = qtrace_record_bytes(rec, (unsigned int)m->path, &len);
    if (!bytes || len == 0) {
        return 0;
    }
    path = strndup((const char *)bytes, len);
    if (!path) {
        return -ENOMEM;
    }
    ret = qtrace_symbols_add_map(s, path,
                                 qtrace_record_u64(rec, (unsigned)m->start),
                                 qtrace_record_u64(rec, (unsigned)m->end),
                                 m->offset >= 0 ?
                                 qtrace_record_u64(rec, (unsigned)m->offset)
                                 : 0, &err);
    free(path);
    return add_checked(ret, &err, true, warn, arg);
}

int qtrace_symbols_load_trace(struct qtrace_symbols *s,
                              struct qtrace_reader *rd,
                              qtrace_symbols_warn_fn warn, void *arg)
{
    const char *binary = qtrace_reader_meta(rd, "binary");
    const char *start_code = qtrace_reader_meta(rd, "start_code");
    const char *mode = qtrace_reader_meta(rd, "mode");
    struct qtrace_err err = { "" };
    struct qtrace_record rec;
    struct map_args m;
    int ret = extra_files_place(s);

    if (ret == 0 && find_map_args(&m, qtrace_reader_catalog(rd))) {
        uint64_t want[QTRACE_MAX_EVENTS / 64] = { 0 };

        /* Only the chunks with image_map records: the index says which. */
        want[m.ev->id / 64] |= 1ull << (m.ev->id % 64);
        if (qtrace_reader_select(rd, want, &err) < 0) {
            qtrace_reader_rewind(rd);
        }
        while (ret == 0 && qtrace_reader_next(rd, &rec, &err) > 0) {
            if (rec.ev == m.ev) {
                ret = add_record(s, &m, &rec, warn, arg);
            }
        }
        qtrace_reader_select(rd, NULL, NULL);
    }
    if (ret == 0 && binary && binary[0] &&
        !(mode && strcmp(mode, "system") == 0)) {
        uint64_t code = start_code ? strtoull(start_code, NULL, 0) : 0;

        ret = add_checked(qtrace_symbols_add_program(s, binary, code, &err),
                          &err, false, warn, arg);
    }
    return ret;
}
