/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Reading the END chunk from the tail (see trace-end.h). The END chunk is
 * the file's last chunk and is small (a few key=value lines), so the last
 * TAIL_BYTES hold it whole: a chunk header there whose kind is END, whose
 * payload runs exactly to the end of the file and whose checksum matches
 * is it. The checksum keeps bytes of an earlier chunk that happen to look
 * like a header from being taken for it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../format/chunk.h"
#include "../format/le.h"
#include "trace-end.h"

#define TAIL_BYTES 65536u
#define CHUNK_HDR_BYTES 32u

/* Whether the header at tail+at is an END chunk ending at tail+len. */
static bool is_end_chunk(const uint8_t *tail, size_t at, size_t len)
{
    struct qtrace_chunk_hdr hdr;
    const uint8_t *p = tail + at;

    if (load32(p) != QTRACE_CHUNK_MAGIC ||
        load16(p + 4) != QTRACE_CHUNK_END ||
        load32(p + 16) != len - at - CHUNK_HDR_BYTES) {
        return false;
    }
    memcpy(&hdr, p, sizeof(hdr));
    return qtrace_chunk_crc(&hdr, p + CHUNK_HDR_BYTES,
                            len - at - CHUNK_HDR_BYTES) == load32(p + 20);
}

/* Read the last n bytes of fd, whose size is size; 0 or -errno. */
static int read_tail(int fd, uint64_t size, uint8_t *buf, size_t n)
{
    size_t got = 0;

    while (got < n) {
        ssize_t r = pread(fd, buf + got, n - got,
                          (off_t)(size - n + got));

        if (r < 0 && errno == EINTR) {
            continue;
        }
        if (r <= 0) {
            return r < 0 ? -errno : -EIO;
        }
        got += (size_t)r;
    }
    return 0;
}

/* Search the tail backwards; parse the END found. 1, 0 or -errno. */
static int parse_tail(const uint8_t *tail, size_t len, struct kv_list *end,
                      struct qtrace_err *err)
{
    char why[128];
    size_t at;

    if (len < CHUNK_HDR_BYTES) {
        return 0;
    }
    for (at = len - CHUNK_HDR_BYTES + 1; at-- > 0; ) {
        if (!is_end_chunk(tail, at, len)) {
            continue;
        }
        if (kv_parse(end, tail + at + CHUNK_HDR_BYTES,
                     len - at - CHUNK_HDR_BYTES, why, sizeof(why)) < 0) {
            qtrace_err_set(err, "END chunk: %s", why);
            return -EBADMSG;
        }
        return 1;
    }
    return 0;
}

int trace_end_read(const char *path, struct kv_list *end,
                   uint64_t *file_bytes, struct qtrace_err *err)
{
    struct stat st;
    uint8_t *tail;
    size_t n;
    int fd, ret;

    memset(end, 0, sizeof(*end));
    fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0 || fstat(fd, &st) < 0) {
        ret = -errno;
        qtrace_err_set(err, "%s", strerror(errno));
        if (fd >= 0) {
            close(fd);
        }
        return ret;
    }
    *file_bytes = (uint64_t)st.st_size;
    n = *file_bytes < TAIL_BYTES ? (size_t)*file_bytes : TAIL_BYTES;
    tail = malloc(n ? n : 1);
    if (!tail) {
        close(fd);
        qtrace_err_set(err, "%s", strerror(ENOMEM));
        return -ENOMEM;
    }
    ret = read_tail(fd, *file_bytes, tail, n);
    if (ret < 0) {
        qtrace_err_set(err, "%s", strerror(-ret));
    } else {
        ret = parse_tail(tail, n, end, err);
    }
    free(tail);
    close(fd);
    return ret;
}
