/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Common Trace Format 1.8 for `qtrace convert --to ctf`: the TSDL
 * metadata text describing a trace's catalog, and the binary packets of
 * its data streams. Pure encoding into memory and FILEs; the converter
 * (ctf.c) decides what goes into which stream. Single-threaded.
 *
 * Layout (every field byte-aligned, little-endian, declared in this
 * order in the metadata ctf_metadata_write prints):
 *   packet header   uint32 magic (0xC1FC1FC1), uint8 uuid[16] (the
 *                   trace's), uint32 stream_id (the one stream class,
 *                   0), uint64 stream_instance_id (the qtrace stream)
 *   packet context  insns timestamp_begin, insns timestamp_end, uint64
 *                   content_size, uint64 packet_size (both in bits),
 *                   uint64 packet_seq_num, uint64 events_discarded,
 *                   uint32 cpu_id (vCPU index), uint32 qtrace_stream
 *   event header    uint16 id (the catalog's event id), insns timestamp
 *   event fields    each argument of the catalog, in order: integers of
 *                   their own size and sign (hexadecimal display where
 *                   the event's format prints %x), bool as uint8, a
 *                   string NUL-terminated, bytes as a uint16 length
 *                   field NAME_len then a uint8 sequence NAME
 * "insns" is a 64-bit unsigned integer mapped to the clock "insns":
 * guest instructions the vCPU had started, freq 1 GHz so that readers
 * print one instruction as one nanosecond; in a trace with host clock
 * stamps (timeline=on) the type is "host", mapped to the clock "host":
 * nanoseconds since the trace began, one clock for every vCPU.
 */
#ifndef QTRACE_CONVERT_CTF_ENC_H
#define QTRACE_CONVERT_CTF_ENC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "qtrace/catalog.h"
#include "qtrace/reader.h"

#define CTF_MAGIC 0xc1fc1fc1u
#define CTF_HEADER_BYTES 32         /* packet header */
#define CTF_CONTEXT_BYTES 56        /* packet context */
#define CTF_PREFIX_BYTES (CTF_HEADER_BYTES + CTF_CONTEXT_BYTES)
#define CTF_EVENT_HEADER_BYTES 10

/* How the metadata this encoder writes begins. */
#define CTF_TSDL_HEAD \
    "/* CTF 1.8 */\n\n/* Written by qtrace convert --to ctf. */\n"

/* One packet being filled: the prefix is reserved, then events. */
struct ctf_packet {
    uint8_t *data;                  /* malloc'ed */
    size_t len;                     /* bytes used, prefix included */
    size_t cap;
    uint64_t ts_begin;              /* of its first event */
    uint64_t ts_end;                /* of its last event */
    uint32_t n_events;
    bool oom;                       /* an event did not fit in memory */
};

/* What a packet's header and context say besides its events. */
struct ctf_packet_info {
    const uint8_t *uuid;            /* 16 bytes, the trace's */
    uint64_t stream_instance;       /* the qtrace stream id */
    uint64_t seq_num;               /* packets of the stream before it */
    uint64_t discarded;             /* records lost in the stream so far */
    uint32_t cpu_id;                /* vCPU index */
    uint32_t qtrace_stream;
};

/* Empty p and reserve its prefix. */
void ctf_packet_start(struct ctf_packet *p);

/*
 * Append rec as an event at time (the stream's, never below the last
 * one's). Returns false when out of memory (p->oom).
 */
bool ctf_packet_add(struct ctf_packet *p, const struct qtrace_record *rec,
                    uint64_t time);

/* Fill the prefix; the packet is then p->data[0 .. p->len). */
void ctf_packet_finish(struct ctf_packet *p,
                       const struct ctf_packet_info *info);

void ctf_packet_free(struct ctf_packet *p);

/* The clock of the timestamps (see the layout above). */
enum ctf_clock {
    CTF_CLOCK_INSNS,                /* each vCPU's instruction count */
    CTF_CLOCK_HOST,                 /* host time, since the trace began */
};

/*
 * The metadata of a trace with catalog cat, showing the events whose
 * ids are set in want (NULL: all), into f: the TSDL text that starts
 * with the "/" "* CTF 1.8 *" "/" signature. env holds the trace's META
 * keys (qtrace_reader_meta_each of rd; NULL: none); clock the clock of
 * the timestamps. Returns 0, or -errno of the failed write.
 */
int ctf_metadata_write(FILE *f, const struct qtrace_catalog *cat,
                       const bool *want, const uint8_t uuid[16],
                       const struct qtrace_reader *env, enum ctf_clock clock);

/*
 * The field name an argument gets: name itself, or "_name" for a TSDL
 * keyword (readers drop one leading underscore when they print it).
 */
const char *ctf_field_name(const char *name, char *buf, size_t len);

#endif /* QTRACE_CONVERT_CTF_ENC_H */
