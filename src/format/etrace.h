/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The Xilinx etrace format, as constants: record types, header and payload
 * sizes and field offsets. Shared by the encoder (src/convert/etrace-enc.c,
 * used by the plugin's etrace sink and `qtrace convert --to etrace`) and
 * the decoder behind the reader (etrace-dec.c). docs/etrace.md describes
 * the layout; everything is little-endian and packed.
 *
 *   stream := record*            (no file header)
 *   record := u16 type, u16 unit_id, u32 len, payload[len]
 */
#ifndef QTRACE_FORMAT_ETRACE_H
#define QTRACE_FORMAT_ETRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "qtrace/catalog.h"
#include "qtrace/err.h"

enum etrace_type {
    ETRACE_EXEC = 1,
    ETRACE_TB = 2,
    ETRACE_NOTE = 3,
    ETRACE_MEM = 4,
    ETRACE_ARCH = 5,
    ETRACE_BARRIER = 6,
    ETRACE_OLD_EVENT_U64 = 7,       /* decoded like EVENT_U64 */
    ETRACE_EVENT_U64 = 8,
    ETRACE_INFO = 0x4554,           /* the bytes "TE" */
};

#define ETRACE_HDR_SIZE 8u
#define ETRACE_INFO_SIZE 12u        /* u64 attr, u16 major, u16 minor */
#define ETRACE_ARCH_SIZE 16u        /* guest, host: u32 id, u8 bits,
                                       u8 big_endian, 2 pad */
#define ETRACE_EXEC_HEAD 8u         /* u64 start_time, then entries */
#define ETRACE_EXEC32_ENTRY 12u     /* u32 duration, u32 start, u32 end */
#define ETRACE_EXEC64_ENTRY 20u     /* u32 duration, u64 start, u64 end */
#define ETRACE_TB_HEAD 32u          /* u64 vaddr, paddr, host_addr,
                                       u32 guest_len, host_len; code */
#define ETRACE_NOTE_HEAD 8u         /* u64 time, then the text */
#define ETRACE_MEM_SIZE 40u         /* u64 time, vaddr, paddr, value,
                                       u32 attr, u8 size, 3 pad */
#define ETRACE_EVENT_HEAD 36u       /* u32 flags, u16 unit, u16 0, u64 time,
                                       val, prev_val, u16 dev_len,
                                       name_len; then both names + NUL */

#define ETRACE_VERSION_MAJOR 0
#define ETRACE_VERSION_MINOR 0

#define ETRACE_MEM_WRITE 0x1u       /* MEM attr: a store */
#define ETRACE_EVENT_PREV_VAL 0x1u  /* EVENT_U64 flags: prev_val valid */

/*
 * The reference decoder (qemu-etrace) refuses payloads above 2 MiB; the
 * decoder here does the same, and the encoder never writes one.
 */
#define ETRACE_PAYLOAD_MAX (2u << 20)

/*
 * EXEC entries per record, as in the Xilinx QEMU (its exec cache): the
 * record is flushed when this many are waiting.
 */
#define ETRACE_EXEC_MAX_ENTRIES 16384u

/*
 * Ranges merge into one EXEC entry when the second starts where the first
 * ends and each lies within one 4 KiB page (the original's rule).
 */
#define ETRACE_PAGE_MASK (~(uint64_t)0xfff)

/* -etrace-flags of the original, one bit each. */
#define ETRACE_F_EXEC 0x01u         /* "exec": EXEC + BARRIER */
#define ETRACE_F_DISAS 0x02u        /* "disas": TB records */
#define ETRACE_F_MEM 0x04u          /* "mem": MEM records */
#define ETRACE_F_CPU 0x08u          /* "cpu": NOTE records */
#define ETRACE_F_GPIO 0x10u         /* "gpio": EVENT_U64 records */
#define ETRACE_F_ALL 0x1fu

/*
 * Parse a comma- or ';'-separated list of flag names ("exec,mem", "all",
 * "none") into *flags. Returns 0, or -EINVAL with err naming the flag.
 */
int etrace_flags_parse(const char *list, uint32_t *flags,
                       struct qtrace_err *err);

/* Does the data start like an etrace stream (INFO or ARCH first)? */
bool etrace_is_etrace(const uint8_t *data, size_t len);

/* ---- the decoder, used by the reader (reader.c) ---- */

struct etrace_dec;

/*
 * Start decoding data[0, len) (a mapped file, which must outlive the
 * decoder). Fills *meta_text with the META text the reader parses: key=
 * value lines, an empty line and the catalog of the events etrace records
 * become (docs/etrace.md, "Reading"); malloc'd, the caller frees it.
 */
int etrace_dec_new(struct etrace_dec **out, const uint8_t *data, size_t len,
                   char **meta_text, struct qtrace_err *err);
void etrace_dec_free(struct etrace_dec *dec);

/* The catalog parsed from meta_text, needed to lay out the records. */
void etrace_dec_set_catalog(struct etrace_dec *dec,
                            const struct qtrace_catalog *cat);

/* One decoded record: native layout, in a buffer owned by the decoder. */
struct etrace_rec {
    const uint8_t *data;            /* starts with a struct qtrace_rec */
    uint32_t size;
    uint16_t id;                    /* event id in the catalog */
    uint16_t unit;                  /* etrace unit_id (the vCPU) */
    uint64_t time;
    uint64_t index;                 /* etrace record it came from, from 0 */
};

/*
 * Next record. Returns 1, 0 at a clean end of the stream, or -errno with
 * err saying where it stopped ("record N at offset 0x...: REASON").
 */
int etrace_dec_next(struct etrace_dec *dec, struct etrace_rec *rec,
                    struct qtrace_err *err);
void etrace_dec_rewind(struct etrace_dec *dec);

#endif /* QTRACE_FORMAT_ETRACE_H */
