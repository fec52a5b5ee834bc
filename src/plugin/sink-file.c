/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The native trace file sink: chunks go to the file as they arrive, on the
 * writer thread, through the format library's writer. A write error (a
 * full disk) is reported once; the chunks written before stay readable.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "qtrace/format.h"
#include "sink.h"
#include "writer.h"
#include "../format/writer.h"

struct sink_file {
    struct sink base;
    int fd;                     /* until the writer takes it over */
    struct qtrace_writer *w;    /* NULL until the first chunk */
    sink_meta_fn meta;
    const char *catalog;
};

/* Header and META go out with the first chunk (or at close). */
static int start_file(struct sink_file *f)
{
    struct qtrace_err err;
    int ret;

    if (f->w) {
        return 0;
    }
    ret = qtrace_writer_open_fd(&f->w, f->fd, f->base.target, f->meta(),
                                f->catalog, &err);
    f->fd = -1;     /* owned by the writer now, or closed by it */
    if (ret < 0) {
        sink_fail(&f->base, err.msg);
    }
    return ret;
}

static int file_chunk(struct sink *s, const struct chunk *c)
{
    struct sink_file *f = (struct sink_file *)s;
    struct qtrace_err err;
    int ret = start_file(f);

    if (ret < 0) {
        return ret;
    }
    ret = qtrace_writer_chunk_flags(f->w, QTRACE_CHUNK_DATA, c->flags,
                                    c->vcpu, c->stream, c->data, c->len,
                                    &err);
    if (ret < 0) {
        sink_fail(s, err.msg);
    }
    return ret;
}

static int file_close(struct sink *s, const char *end)
{
    struct sink_file *f = (struct sink_file *)s;
    struct qtrace_err err;
    int ret;

    if (!s->failed && start_file(f) < 0) {
        return -EIO;
    }
    if (!f->w) {
        return -EIO;
    }
    /* After a failure the END would sit after a gap: leave it out. */
    ret = qtrace_writer_close(f->w, s->failed ? NULL : end, &err);
    f->w = NULL;
    if (ret < 0) {
        sink_fail(s, err.msg);
    }
    return ret;
}

static void file_free(struct sink *s)
{
    struct sink_file *f = (struct sink_file *)s;

    if (f->fd >= 0) {
        close(f->fd);
    }
    free(s->target);
    free(s);
}

static const struct sink_ops sink_file_ops = {
    .kind = "out",
    .chunk = file_chunk,
    .close = file_close,
    .free = file_free,
};

struct sink *sink_file_new(const char *path, sink_meta_fn meta,
                           bool meta_now, const char *catalog,
                           struct qtrace_err *err)
{
    struct sink_file *f = calloc(1, sizeof(*f));

    if (!f) {
        qtrace_err_set(err, "%s: %s", path, strerror(ENOMEM));
        return NULL;
    }
    /* Created now so that a bad path fails the load, not the exit. */
    f->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (f->fd < 0) {
        qtrace_err_set(err, "%s: %s", path, strerror(errno));
        free(f);
        return NULL;
    }
    f->meta = meta;
    f->catalog = catalog;
    f->base.ops = &sink_file_ops;
    f->base.target = strdup(path);
    if (meta_now) {
        int ret = qtrace_writer_open_fd(&f->w, f->fd, path, meta(), catalog,
                                        err);

        f->fd = -1;     /* owned by the writer now, or closed by it */
        if (ret < 0) {
            free(f->base.target);
            free(f);
            return NULL;
        }
    }
    return &f->base;
}
