/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Writing a native trace file: header, META chunk, DATA chunks, END chunk.
 * Used by the plugin's file sink (on its writer thread) and by tests and
 * converters. Not thread-safe: one thread writes a given file.
 */
#ifndef QTRACE_FORMAT_WRITER_H
#define QTRACE_FORMAT_WRITER_H

#include <stdint.h>

#include "qtrace/err.h"
#include "qtrace/format.h"

struct qtrace_writer;

/*
 * Create (truncate) path, write the file header and the META chunk: meta
 * is "key=value\n" lines, catalog the trace-events text. Returns 0 and
 * *out, or -errno with err naming path and reason.
 */
int qtrace_writer_open(struct qtrace_writer **out, const char *path,
                       const char *meta, const char *catalog,
                       struct qtrace_err *err);

/*
 * Same, on an open file descriptor the writer then owns: it is closed by
 * qtrace_writer_close(), or here if opening fails.
 */
int qtrace_writer_open_fd(struct qtrace_writer **out, int fd,
                          const char *name, const char *meta,
                          const char *catalog, struct qtrace_err *err);

/*
 * Append one chunk (kind, vCPU, stream, payload) with its CRC. A short
 * write is retried; returns 0 or -errno (ENOSPC...) with err filled.
 */
int qtrace_writer_chunk(struct qtrace_writer *w, uint16_t kind,
                        uint32_t vcpu, uint32_t stream,
                        const void *payload, uint32_t len,
                        struct qtrace_err *err);

/* Same, with the chunk header's flags (payload encoding, format.h). */
int qtrace_writer_chunk_flags(struct qtrace_writer *w, uint16_t kind,
                              uint16_t flags, uint32_t vcpu, uint32_t stream,
                              const void *payload, uint32_t len,
                              struct qtrace_err *err);

/*
 * A DATA chunk with what it holds, for the INDEX chunk written at close
 * (docs/format.md, "INDEX chunk"): events, a bit per event id
 * (QTRACE_MAX_EVENTS bits), and insns, the instructions its vCPU had
 * started when the chunk was handed over (0 when unknown). A DATA chunk
 * written without its summary leaves the trace without an index.
 */
int qtrace_writer_data_chunk(struct qtrace_writer *w, uint16_t flags,
                             uint32_t vcpu, uint32_t stream,
                             const void *payload, uint32_t len,
                             const uint64_t *events, uint64_t insns,
                             struct qtrace_err *err);

/* Bytes written so far (header included). */
uint64_t qtrace_writer_bytes(const struct qtrace_writer *w);

/*
 * Write the INDEX chunk when every DATA chunk came with its summary, then
 * the END chunk (end: "key=value\n" lines; NULL writes neither, as a
 * crashed QEMU would leave the file), close and free. Returns 0 or -errno.
 */
int qtrace_writer_close(struct qtrace_writer *w, const char *end,
                        struct qtrace_err *err);

#endif /* QTRACE_FORMAT_WRITER_H */
