/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Writing a native trace file (docs/format.md): the file header, the META
 * chunk, then whatever chunks the caller hands over, then END. Runs on the
 * caller's thread (the plugin's writer thread); buffering and compression
 * are left to the caller.
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "chunk.h"
#include "index.h"
#include "writer.h"

_Static_assert(sizeof(struct qtrace_file_hdr) == 16, "file header size");
_Static_assert(sizeof(struct qtrace_chunk_hdr) == 32, "chunk header size");
_Static_assert(sizeof(struct qtrace_rec) == 16, "record header size");

#define WRITER_MAX_IOV 4            /* header + up to three payload pieces */

struct qtrace_writer {
    int fd;                         /* owned, closed by qtrace_writer_close */
    char *name;                     /* path or caller's name, for errors */
    uint64_t bytes;                 /* bytes of complete chunks written */
    uint64_t seq;                   /* seq of the next chunk */
    int failed;                     /* -errno once the file is unusable */
    struct index index;             /* DATA chunks written, for INDEX */
    bool unindexed;                 /* one came without its summary */
};

/*
 * Write all of iov[0..n), retrying short writes and EINTR. Returns 0 or
 * -errno; *done says how many bytes reached the file either way.
 */
static int write_all(int fd, struct iovec *iov, int n, uint64_t *done)
{
    *done = 0;
    while (n > 0) {
        ssize_t r = writev(fd, iov, n);
        size_t left;

        if (r < 0) {
            if (errno == EINTR) {
                continue;
            }
            return -errno;
        }
        if (r == 0) {
            /* writev of a non-empty vector never returns 0 on a file. */
            return -EIO;
        }
        *done += (uint64_t)r;
        left = (size_t)r;
        while (n > 0 && left >= iov->iov_len) {
            left -= iov->iov_len;
            iov++;
            n--;
        }
        if (n > 0) {
            iov->iov_base = (char *)iov->iov_base + left;
            iov->iov_len -= left;
        }
    }
    return 0;
}

/*
 * A chunk that reached the file only in part would end the readable trace
 * there. Cut the file back to the last complete chunk so that later chunks
 * (after a transient ENOSPC, say) stay readable; if the fd cannot be cut
 * (pipe, socket), nothing more may be written to it.
 */
static void undo_partial(struct qtrace_writer *w, uint64_t done, int ret)
{
    if (done == 0) {
        return;
    }
    if (ftruncate(w->fd, (off_t)w->bytes) < 0 ||
        lseek(w->fd, (off_t)w->bytes, SEEK_SET) < 0) {
        w->failed = ret;
    }
}

/*
 * Append one chunk whose payload is the concatenation of pieces[0..n):
 * the header gets the next seq and the CRC of header and payload.
 */
static int write_chunk(struct qtrace_writer *w, uint16_t kind,
                       uint16_t flags, uint32_t vcpu, uint32_t stream,
                       const struct iovec *pieces, int n,
                       struct qtrace_err *err)
{
    struct qtrace_chunk_hdr hdr;
    struct iovec iov[WRITER_MAX_IOV];
    uint64_t len = 0;               /* payload bytes */
    uint64_t done;
    uint32_t crc;
    int i;
    int ret;

    if (w->failed) {
        qtrace_err_set(err, "%s: earlier write failed: %s", w->name,
                       strerror(-w->failed));
        return w->failed;
    }
    for (i = 0; i < n; i++) {
        len += pieces[i].iov_len;
    }
    if (len > QTRACE_CHUNK_MAX) {
        qtrace_err_set(err, "%s: chunk payload of %" PRIu64 " bytes over "
                       "the %u-byte limit", w->name, len, QTRACE_CHUNK_MAX);
        return -EFBIG;
    }
    memset(&hdr, 0, sizeof(hdr));
    hdr.magic = htole32(QTRACE_CHUNK_MAGIC);
    hdr.kind = htole16(kind);
    hdr.flags = htole16(flags);
    hdr.vcpu = htole32(vcpu);
    hdr.stream = htole32(stream);
    hdr.len = htole32((uint32_t)len);
    hdr.seq = htole64(w->seq);
    crc = qtrace_chunk_crc(&hdr, NULL, 0);
    iov[0].iov_base = &hdr;
    iov[0].iov_len = sizeof(hdr);
    for (i = 0; i < n; i++) {
        crc = qtrace_crc32(crc, pieces[i].iov_base, pieces[i].iov_len);
        iov[i + 1] = pieces[i];
    }
    hdr.crc = htole32(crc);

    ret = write_all(w->fd, iov, n + 1, &done);
    if (ret < 0) {
        qtrace_err_set(err, "%s: %s", w->name, strerror(-ret));
        undo_partial(w, done, ret);
        return ret;
    }
    w->bytes += done;
    w->seq++;
    return 0;
}

static int write_file_hdr(struct qtrace_writer *w, struct qtrace_err *err)
{
    struct qtrace_file_hdr fh;
    struct iovec iov = { .iov_base = &fh, .iov_len = sizeof(fh) };
    uint64_t done;
    int ret;

    memcpy(fh.magic, QTRACE_FILE_MAGIC, sizeof(fh.magic));
    fh.version = htole32(QTRACE_FORMAT_VERSION);
    fh.hdr_size = htole32(sizeof(fh));
    ret = write_all(w->fd, &iov, 1, &done);
    if (ret < 0) {
        qtrace_err_set(err, "%s: %s", w->name, strerror(-ret));
        return ret;
    }
    w->bytes = done;
    return 0;
}

static void writer_free(struct qtrace_writer *w)
{
    if (w->fd >= 0) {
        close(w->fd);
    }
    index_fini(&w->index);
    free(w->name);
    free(w);
}

int qtrace_writer_open_fd(struct qtrace_writer **out, int fd,
                          const char *name, const char *meta,
                          const char *catalog, struct qtrace_err *err)
{
    struct qtrace_writer *w;
    struct iovec pieces[3];
    int ret;

    *out = NULL;
    w = calloc(1, sizeof(*w));
    if (!w || !(w->name = strdup(name ? name : "(fd)"))) {
        free(w);
        close(fd);
        qtrace_err_set(err, "%s: %s", name ? name : "(fd)",
                       strerror(ENOMEM));
        return -ENOMEM;
    }
    w->fd = fd;
    meta = meta ? meta : "";
    catalog = catalog ? catalog : "";

    /* META payload: the key=value lines, one empty line, the catalog. */
    pieces[0].iov_base = (void *)meta;
    pieces[0].iov_len = strlen(meta);
    pieces[1].iov_base = "\n";
    pieces[1].iov_len = 1;
    pieces[2].iov_base = (void *)catalog;
    pieces[2].iov_len = strlen(catalog);

    ret = write_file_hdr(w, err);
    if (ret == 0) {
        ret = write_chunk(w, QTRACE_CHUNK_META, 0, 0, 0, pieces, 3, err);
    }
    if (ret < 0) {
        writer_free(w);
        return ret;
    }
    *out = w;
    return 0;
}

int qtrace_writer_open(struct qtrace_writer **out, const char *path,
                       const char *meta, const char *catalog,
                       struct qtrace_err *err)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

    if (fd < 0) {
        int ret = -errno;

        *out = NULL;
        qtrace_err_set(err, "%s: %s", path, strerror(-ret));
        return ret;
    }
    return qtrace_writer_open_fd(out, fd, path, meta, catalog, err);
}

int qtrace_writer_chunk(struct qtrace_writer *w, uint16_t kind,
                        uint32_t vcpu, uint32_t stream,
                        const void *payload, uint32_t len,
                        struct qtrace_err *err)
{
    return qtrace_writer_chunk_flags(w, kind, 0, vcpu, stream, payload, len,
                                     err);
}

int qtrace_writer_chunk_flags(struct qtrace_writer *w, uint16_t kind,
                              uint16_t flags, uint32_t vcpu, uint32_t stream,
                              const void *payload, uint32_t len,
                              struct qtrace_err *err)
{
    struct iovec piece = { .iov_base = (void *)payload, .iov_len = len };

    if (kind == QTRACE_CHUNK_DATA) {
        w->unindexed = true;
    }
    return write_chunk(w, kind, flags, vcpu, stream, &piece, len > 0 ? 1 : 0,
                       err);
}

int qtrace_writer_data_chunk(struct qtrace_writer *w, uint16_t flags,
                             uint32_t vcpu, uint32_t stream,
                             const void *payload, uint32_t len,
                             const uint64_t *events, uint64_t insns,
                             struct qtrace_err *err)
{
    struct iovec piece = { .iov_base = (void *)payload, .iov_len = len };
    struct index_entry e = {
        .off = w->bytes, .seq = w->seq, .vcpu = vcpu, .stream = stream,
        .insns = insns,
    };
    int ret;

    memcpy(e.mask, events, sizeof(e.mask));
    ret = write_chunk(w, QTRACE_CHUNK_DATA, flags, vcpu, stream, &piece,
                      len > 0 ? 1 : 0, err);
    /* Out of memory costs the index, never the chunk. */
    if (ret == 0 && index_add(&w->index, &e) < 0) {
        w->unindexed = true;
    }
    return ret;
}

/*
 * The INDEX chunk, just before END: readers that know it find the chunks
 * of an event without reading the others; older ones skip its kind.
 */
static int write_index(struct qtrace_writer *w, struct qtrace_err *err)
{
    struct iovec piece;
    size_t len;
    uint8_t *payload;
    int ret;

    if (w->unindexed || w->index.n == 0) {
        return 0;
    }
    payload = index_encode(&w->index, w->bytes, &len);
    if (!payload || len > QTRACE_CHUNK_MAX) {
        free(payload);
        return 0;       /* readers rebuild a missing index */
    }
    piece.iov_base = payload;
    piece.iov_len = len;
    ret = write_chunk(w, QTRACE_CHUNK_INDEX, 0, 0, 0, &piece, 1, err);
    free(payload);
    return ret;
}

uint64_t qtrace_writer_bytes(const struct qtrace_writer *w)
{
    return w->bytes;
}

int qtrace_writer_close(struct qtrace_writer *w, const char *end,
                        struct qtrace_err *err)
{
    int ret = 0;

    if (!w) {
        return 0;
    }
    if (end) {
        ret = write_index(w, err);
    }
    if (end && ret == 0) {
        struct iovec piece = { .iov_base = (void *)end,
                               .iov_len = strlen(end) };

        ret = write_chunk(w, QTRACE_CHUNK_END, 0, 0, 0, &piece, 1, err);
    }
    /* close() can report a deferred write error (NFS, quota). */
    if (close(w->fd) < 0 && ret == 0) {
        ret = -errno;
        qtrace_err_set(err, "%s: %s", w->name, strerror(-ret));
    }
    w->fd = -1;
    writer_free(w);
    return ret;
}
