/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The native trace format (.qtr): on-disk structures shared by the plugin's
 * writer and the reader. docs/format.md is the specification; this header
 * is its C form. All fields are little-endian.
 *
 *   file   := file_hdr chunk*
 *   chunk  := chunk_hdr payload[len]
 *   first chunk: META (text: key=value lines, a blank line, the catalog)
 *   then:        DATA chunks, each the records of one vCPU stream in order
 *   last chunk:  END (text: key=value totals), absent if QEMU died
 *
 * A chunk is valid when its header is complete, its magic matches, its
 * payload is complete and the CRC-32 of header (crc field zero) and payload
 * matches. A reader stops at the first invalid chunk and reports where.
 */
#ifndef QTRACE_FORMAT_H
#define QTRACE_FORMAT_H

#include <stdint.h>

#define QTRACE_FILE_MAGIC "QTRACE\r\n"  /* 8 bytes, no NUL */
#define QTRACE_FORMAT_VERSION 1

struct qtrace_file_hdr {
    char magic[8];                  /* QTRACE_FILE_MAGIC */
    uint32_t version;               /* QTRACE_FORMAT_VERSION */
    uint32_t hdr_size;              /* sizeof(struct qtrace_file_hdr) */
};

#define QTRACE_CHUNK_MAGIC 0x4b435451u  /* "QTCK" */
#define QTRACE_CHUNK_MAX (64u << 20)    /* payload limit a reader accepts */

enum qtrace_chunk_kind {
    QTRACE_CHUNK_META = 1,
    QTRACE_CHUNK_DATA = 2,
    QTRACE_CHUNK_END = 3,
    QTRACE_CHUNK_INDEX = 4,         /* the chunk index (src/format/index.h) */
    QTRACE_CHUNK_INFO = 5,          /* key=value lines that complete META */
};

/* vcpu of the chunks holding tb_trans records, which belong to no vCPU. */
#define QTRACE_VCPU_NONE UINT32_MAX

struct qtrace_chunk_hdr {
    uint32_t magic;                 /* QTRACE_CHUNK_MAGIC */
    uint16_t kind;                  /* enum qtrace_chunk_kind */
    uint16_t flags;                 /* encoding of the payload, 0 = raw */
    uint32_t vcpu;                  /* vCPU index (DATA) */
    uint32_t stream;                /* unique per vCPU lifetime (DATA) */
    uint32_t len;                   /* payload bytes after this header */
    uint32_t crc;                   /* CRC-32 (zlib) of hdr+payload */
    uint64_t seq;                   /* chunk number in the file, from 0 */
};

/*
 * Every record starts with this header. size covers the header, the fixed
 * arguments and any variable bytes, rounded up to 8.
 */
struct qtrace_rec {
    uint16_t id;                    /* event id in the trace's catalog */
    uint16_t size;                  /* bytes, multiple of 8 */
    uint32_t reserved;              /* zero */
    uint64_t time;                  /* instructions the vCPU had started */
};

#define QTRACE_REC_ALIGN 8
#define QTRACE_REC_MAX 65528u

/* mem_access flags (the "flags" argument). */
#define QTRACE_MEM_STORE 0x01u
#define QTRACE_MEM_SIGNED 0x02u
#define QTRACE_MEM_BIG_ENDIAN 0x04u
#define QTRACE_MEM_HAS_PADDR 0x08u      /* system mode: paddr is valid */
#define QTRACE_MEM_IO 0x10u             /* system mode: device access */
#define QTRACE_MEM_HAS_VALUE 0x20u      /* value is valid (QEMU 9.2+) */

#endif /* QTRACE_FORMAT_H */
