/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Recognising the marker instructions of include/qtrace/marker.h in a
 * guest's code, per architecture. Translation time only: what a block
 * holds is decided once, when QEMU translates it.
 */
#ifndef QTRACE_PLUGIN_MARKER_H
#define QTRACE_PLUGIN_MARKER_H

#include <stddef.h>
#include <stdint.h>

/* The kinds, as include/qtrace/marker.h numbers them. */
enum marker_kind {
    MARKER_NONE = 0,
    MARKER_START = 1,
    MARKER_STOP = 2,
    MARKER_SNAPSHOT = 3,
};

/*
 * The kind of the instruction of size bytes at code, or MARKER_NONE;
 * code holds at least size bytes.
 */
typedef enum marker_kind (*marker_decode_fn)(const uint8_t *code,
                                             size_t size);

/*
 * The decoder of QEMU's target name ("x86_64", "aarch64", ...), or NULL
 * for an architecture without a marker.
 */
marker_decode_fn marker_decoder(const char *target);

/* The longest marker, in bytes: what a caller needs to read at most. */
#define MARKER_MAX_BYTES 7

#endif /* QTRACE_PLUGIN_MARKER_H */
