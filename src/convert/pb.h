/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A protocol buffers writer into a growable byte buffer, for the
 * Perfetto converter: varints, tagged scalars, strings, and nested
 * messages whose length is filled in when they end. Only the wire
 * format (protobuf's "Encoding" page): no schema, no reflection.
 * Single-threaded; one buffer per message being built.
 *
 * Wire format: a field is a key varint (field_number << 3 | wire type)
 * then its value: type 0 a varint (7 bits a byte, least significant
 * group first, high bit set on every byte but the last; a negative
 * int64 takes 10 bytes), type 1 eight bytes little-endian, type 2 a
 * length varint and that many bytes (strings, bytes, nested messages).
 */
#ifndef QTRACE_CONVERT_PB_H
#define QTRACE_CONVERT_PB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PB_VARINT_MAX 10            /* bytes of the longest varint */

enum pb_wire {
    PB_WIRE_VARINT = 0,
    PB_WIRE_I64 = 1,
    PB_WIRE_LEN = 2,
};

struct pb_buf {
    uint8_t *data;                  /* malloc'ed, NULL until written */
    size_t len;                     /* bytes used */
    size_t cap;                     /* bytes allocated */
    bool oom;                       /* a write failed: the content is cut */
};

/* Where a nested message started (pb_begin), for pb_end. */
typedef size_t pb_mark;

/* v as a varint into out; returns its length, 1 to PB_VARINT_MAX. */
size_t pb_varint_enc(uint8_t *out, uint64_t v);

/*
 * Decode a varint from p (at most len bytes) into *v; returns the bytes
 * it took, or 0 when it does not end within len or PB_VARINT_MAX bytes.
 */
size_t pb_varint_dec(const uint8_t *p, size_t len, uint64_t *v);

/* Empty b, keeping its memory. */
void pb_reset(struct pb_buf *b);
void pb_free(struct pb_buf *b);

void pb_raw(struct pb_buf *b, const void *p, size_t n);
void pb_varint(struct pb_buf *b, uint64_t v);
void pb_key(struct pb_buf *b, uint32_t field, enum pb_wire wire);

/* Scalar fields: uint32/uint64/int32/int64/bool/enum are all varints. */
void pb_uint(struct pb_buf *b, uint32_t field, uint64_t v);
void pb_int(struct pb_buf *b, uint32_t field, int64_t v);
void pb_fixed64(struct pb_buf *b, uint32_t field, uint64_t v);
void pb_bytes(struct pb_buf *b, uint32_t field, const void *p, size_t n);
void pb_str(struct pb_buf *b, uint32_t field, const char *s);

/*
 * A nested message: pb_begin writes its key, then everything written up
 * to pb_end(mark) is its content, whose length pb_end puts in front (the
 * content moves up by the length's size). Nesting is allowed; end the
 * inner message first.
 */
pb_mark pb_begin(struct pb_buf *b, uint32_t field);
void pb_end(struct pb_buf *b, pb_mark mark);

#endif /* QTRACE_CONVERT_PB_H */
