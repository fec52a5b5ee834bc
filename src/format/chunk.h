/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Chunk header helpers shared by writer and reader: CRC over header and
 * payload, and the header check a reader applies before trusting a chunk.
 */
#ifndef QTRACE_FORMAT_CHUNK_H
#define QTRACE_FORMAT_CHUNK_H

#include <stddef.h>
#include <stdint.h>

#include "qtrace/format.h"

/*
 * zlib's crc32(crc, buf, len), the CRC of gzip and PNG, from ISA-L's
 * carry-less multiply code: several times faster than zlib's tables.
 */
uint32_t qtrace_crc32(uint32_t crc, const void *buf, size_t len);

/* CRC-32 of hdr (with its crc field taken as zero) followed by payload. */
uint32_t qtrace_chunk_crc(const struct qtrace_chunk_hdr *hdr,
                          const void *payload, size_t len);

/* Round a record's size (fixed part plus variable bytes) up to 8. */
static inline uint32_t qtrace_rec_size(uint32_t fixed, uint32_t var)
{
    return (fixed + var + QTRACE_REC_ALIGN - 1) & ~(QTRACE_REC_ALIGN - 1u);
}

#endif /* QTRACE_FORMAT_CHUNK_H */
