/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The chunk checksum shared by the writer and the reader (docs/format.md,
 * "Checksum"): zlib's CRC-32 over the 32-byte header as stored, with its
 * crc field taken as zero, then over the payload.
 */
#include <string.h>
#include <zlib.h>

#include "chunk.h"

uint32_t qtrace_chunk_crc(const struct qtrace_chunk_hdr *hdr,
                          const void *payload, size_t len)
{
    struct qtrace_chunk_hdr copy;       /* hdr with crc = 0 */
    uLong crc;

    /* Copy so that a header inside a read-only mapping can be checked. */
    memcpy(&copy, hdr, sizeof(copy));
    copy.crc = 0;
    crc = crc32_z(0L, (const Bytef *)&copy, sizeof(copy));
    if (len > 0) {
        crc = crc32_z(crc, payload, len);
    }
    return (uint32_t)crc;
}
