/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * zstd compression of DATA chunk payloads (docs/format.md, "Compressed
 * chunks"): the plugin's file sink compresses on the writer thread, the
 * reader decompresses a chunk at a time into a buffer it reuses.
 */
#ifndef QTRACE_FORMAT_ZCHUNK_H
#define QTRACE_FORMAT_ZCHUNK_H

#include <stddef.h>
#include <stdint.h>

/* chunk_hdr.flags bit: the payload is one zstd frame of the real payload. */
#define QTRACE_CHUNK_ZSTD 0x0002u

/* Levels zchunk_deflater_new() takes: zstd's, negative ones the fastest. */
int zchunk_min_level(void);
int zchunk_max_level(void);

struct zchunk_deflater;

/* A compressor at level; NULL when memory runs out. */
struct zchunk_deflater *zchunk_deflater_new(int level);
void zchunk_deflater_free(struct zchunk_deflater *z);   /* NULL: no-op */

/*
 * Compress len bytes at src. Returns the size of the frame, left at *out
 * (valid until the next call), or 0 when it would not be smaller than the
 * input (or compression failed): the caller then stores the bytes as
 * they are.
 */
size_t zchunk_deflate(struct zchunk_deflater *z, const void *src,
                      size_t len, const void **out);

/* The reader's side: a decompression context and its output buffer. */
struct zchunk_inflater {
    void *dctx;                 /* ZSTD_DCtx, made on first use */
    uint8_t *buf;
    size_t cap;
};

/*
 * Decompress the frame of len bytes at src, whose content may be at most
 * max bytes, into z's buffer: *out and *out_len (valid until the next
 * call). Returns 0, or -1 with why filled (a damaged frame, a size over
 * max, no memory).
 */
int zchunk_inflate(struct zchunk_inflater *z, const uint8_t *src,
                   size_t len, size_t max, const uint8_t **out,
                   size_t *out_len, char *why, size_t why_len);

void zchunk_inflater_fini(struct zchunk_inflater *z);

#endif /* QTRACE_FORMAT_ZCHUNK_H */
