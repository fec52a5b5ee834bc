/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Protocol buffers wire format writer (see pb.h). Written by hand: the
 * Perfetto converter needs a handful of field types, and Debian's
 * protobuf-c would add a code generator and a runtime for that.
 */
#include <stdlib.h>
#include <string.h>

#include "pb.h"

size_t pb_varint_enc(uint8_t *out, uint64_t v)
{
    size_t n = 0;

    while (v >= 0x80) {
        out[n++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    out[n++] = (uint8_t)v;
    return n;
}

size_t pb_varint_dec(const uint8_t *p, size_t len, uint64_t *v)
{
    uint64_t r = 0;
    size_t i;

    for (i = 0; i < len && i < PB_VARINT_MAX; i++) {
        r |= (uint64_t)(p[i] & 0x7f) << (7 * i);
        if (!(p[i] & 0x80)) {
            *v = r;
            return i + 1;
        }
    }
    return 0;
}

void pb_reset(struct pb_buf *b)
{
    b->len = 0;
    b->oom = false;
}

void pb_free(struct pb_buf *b)
{
    free(b->data);
    b->data = NULL;
    b->len = 0;
    b->cap = 0;
    b->oom = false;
}

/* Room for n more bytes; false (and b->oom) when out of memory. */
static bool room(struct pb_buf *b, size_t n)
{
    size_t cap = b->cap ? b->cap : 256;
    uint8_t *bigger;

    if (b->oom) {
        return false;
    }
    if (b->len + n <= b->cap) {
        return true;
    }
    while (cap < b->len + n) {
        cap *= 2;
    }
    bigger = realloc(b->data, cap);
    if (!bigger) {
        b->oom = true;
        return false;
    }
    b->data = bigger;
    b->cap = cap;
    return true;
}

void pb_raw(struct pb_buf *b, const void *p, size_t n)
{
    if (n && room(b, n)) {
        memcpy(b->data + b->len, p, n);
        b->len += n;
    }
}

void pb_varint(struct pb_buf *b, uint64_t v)
{
    if (room(b, PB_VARINT_MAX)) {
        b->len += pb_varint_enc(b->data + b->len, v);
    }
}

void pb_key(struct pb_buf *b, uint32_t field, enum pb_wire wire)
{
    pb_varint(b, (uint64_t)field << 3 | (uint64_t)wire);
}

void pb_uint(struct pb_buf *b, uint32_t field, uint64_t v)
{
    pb_key(b, field, PB_WIRE_VARINT);
    pb_varint(b, v);
}

/* int64 is the two's complement as a varint (not zigzag, as sint64). */
void pb_int(struct pb_buf *b, uint32_t field, int64_t v)
{
    pb_uint(b, field, (uint64_t)v);
}

void pb_fixed64(struct pb_buf *b, uint32_t field, uint64_t v)
{
    uint8_t le[8];
    unsigned int i;

    for (i = 0; i < 8; i++) {
        le[i] = (uint8_t)(v >> (8 * i));
    }
    pb_key(b, field, PB_WIRE_I64);
    pb_raw(b, le, sizeof(le));
}

void pb_bytes(struct pb_buf *b, uint32_t field, const void *p, size_t n)
{
    pb_key(b, field, PB_WIRE_LEN);
    pb_varint(b, n);
    pb_raw(b, p, n);
}

void pb_str(struct pb_buf *b, uint32_t field, const char *s)
{
    pb_bytes(b, field, s, strlen(s));
}

pb_mark pb_begin(struct pb_buf *b, uint32_t field)
{
    pb_key(b, field, PB_WIRE_LEN);
    return b->len;
}

/*
 * The length is known only now: the content moves up to make room for
 * it. Messages here are a few hundred bytes, so the move costs less than
 * sizing every message twice.
 */
void pb_end(struct pb_buf *b, pb_mark mark)
{
    uint8_t len[PB_VARINT_MAX];
    size_t n;

    if (b->oom || mark > b->len) {
        return;
    }
    n = pb_varint_enc(len, b->len - mark);
    if (!room(b, n)) {
        return;
    }
    memmove(b->data + mark + n, b->data + mark, b->len - mark);
    memcpy(b->data + mark, len, n);
    b->len += n;
}
