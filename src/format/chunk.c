/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The chunk checksum shared by the writer and the reader (docs/format.md,
 * "Checksum"): zlib's CRC-32 over the 32-byte header as stored, with its
 * crc field taken as zero, then over the payload.
 */
#include <endian.h>
#include <string.h>

#include <isa-l/crc.h>

#include "chunk.h"

uint32_t qtrace_crc32(uint32_t crc, const void *buf, size_t len)
{
    return crc32_gzip_refl(crc, buf, len);
}

uint32_t qtrace_chunk_crc(const struct qtrace_chunk_hdr *hdr,
                          const void *payload, size_t len)
{
    struct qtrace_chunk_hdr copy;       /* hdr with crc = 0 */
    uint32_t crc;

    /* Copy so that a header inside a read-only mapping can be checked. */
    memcpy(&copy, hdr, sizeof(copy));
#ifdef QTRACE_FUZZ_NO_CRC
    /*
     * Only in the fuzz targets built to reach past the checksums
     * (tests/fuzz/meson.build): the stored value is taken as right.
     */
    return le32toh(copy.crc);
#endif
    copy.crc = 0;
    crc = qtrace_crc32(0, &copy, sizeof(copy));
    if (len > 0) {
        crc = qtrace_crc32(crc, payload, len);
    }
    return crc;
}
