/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * zstd frames as chunk payloads. The frame records its content size, so
 * the reader knows the buffer it needs before decompressing and refuses
 * a frame that claims more than a chunk may hold.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "zchunk.h"

struct zchunk_deflater {
    ZSTD_CCtx *cctx;
    int level;
    void *buf;
    size_t cap;
};

int zchunk_min_level(void)
{
    return ZSTD_minCLevel();
}

int zchunk_max_level(void)
{
    return ZSTD_maxCLevel();
}

struct zchunk_deflater *zchunk_deflater_new(int level)
{
    struct zchunk_deflater *z = calloc(1, sizeof(*z));

    if (!z) {
        return NULL;
    }
    z->cctx = ZSTD_createCCtx();
    if (!z->cctx) {
        free(z);
        return NULL;
    }
    z->level = level;
    return z;
}

void zchunk_deflater_free(struct zchunk_deflater *z)
{
    if (!z) {
        return;
    }
    ZSTD_freeCCtx(z->cctx);
    free(z->buf);
    free(z);
}

size_t zchunk_deflate(struct zchunk_deflater *z, const void *src,
                      size_t len, const void **out)
{
    size_t need = ZSTD_compressBound(len);
    size_t n;

    if (need > z->cap) {
        void *buf = realloc(z->buf, need);

        if (!buf) {
            return 0;
        }
        z->buf = buf;
        z->cap = need;
    }
    n = ZSTD_compressCCtx(z->cctx, z->buf, z->cap, src, len, z->level);
    if (ZSTD_isError(n) || n >= len) {
        return 0;
    }
    *out = z->buf;
    return n;
}

/* Room for size bytes in z's buffer. */
static int reserve(struct zchunk_inflater *z, size_t size)
{
    uint8_t *buf;

    if (size <= z->cap) {
        return 0;
    }
    buf = realloc(z->buf, size);
    if (!buf) {
        return -1;
    }
    z->buf = buf;
    z->cap = size;
    return 0;
}

int zchunk_inflate(struct zchunk_inflater *z, const uint8_t *src,
                   size_t len, size_t max, const uint8_t **out,
                   size_t *out_len, char *why, size_t why_len)
{
    unsigned long long size = ZSTD_getFrameContentSize(src, len);
    size_t n;

    if (size == ZSTD_CONTENTSIZE_ERROR || size == ZSTD_CONTENTSIZE_UNKNOWN) {
        snprintf(why, why_len, "not a zstd frame with its content size");
        return -1;
    }
    if (size > max) {
        snprintf(why, why_len, "zstd frame of %llu bytes, over the %zu-byte "
                 "limit", size, max);
        return -1;
    }
    if (!z->dctx) {
        z->dctx = ZSTD_createDCtx();
    }
    /* At least one byte, so that an empty frame still has a buffer. */
    if (!z->dctx || reserve(z, size ? (size_t)size : 1) < 0) {
        snprintf(why, why_len, "%s", strerror(ENOMEM));
        return -1;
    }
    n = ZSTD_decompressDCtx(z->dctx, z->buf, z->cap, src, len);
    if (ZSTD_isError(n)) {
        snprintf(why, why_len, "zstd: %s", ZSTD_getErrorName(n));
        return -1;
    }
    if (n != size) {
        snprintf(why, why_len, "zstd frame gave %zu bytes, its header says "
                 "%llu", n, size);
        return -1;
    }
    *out = z->buf;
    *out_len = n;
    return 0;
}

void zchunk_inflater_fini(struct zchunk_inflater *z)
{
    ZSTD_freeDCtx(z->dctx);
    free(z->buf);
    memset(z, 0, sizeof(*z));
}
