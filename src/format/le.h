/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Little-endian loads and stores at any alignment: every multi-byte field
 * of the native and etrace formats goes through these (records in a
 * mapped file are not aligned).
 */
#ifndef QTRACE_FORMAT_LE_H
#define QTRACE_FORMAT_LE_H

#include <endian.h>
#include <stdint.h>
#include <string.h>

static inline uint16_t load16(const uint8_t *p)
{
    uint16_t v;

    memcpy(&v, p, sizeof(v));
    return le16toh(v);
}

static inline uint32_t load32(const uint8_t *p)
{
    uint32_t v;

    memcpy(&v, p, sizeof(v));
    return le32toh(v);
}

static inline uint64_t load64(const uint8_t *p)
{
    uint64_t v;

    memcpy(&v, p, sizeof(v));
    return le64toh(v);
}

static inline void store16(uint8_t *p, uint16_t v)
{
    v = htole16(v);
    memcpy(p, &v, sizeof(v));
}

static inline void store32(uint8_t *p, uint32_t v)
{
    v = htole32(v);
    memcpy(p, &v, sizeof(v));
}

static inline void store64(uint8_t *p, uint64_t v)
{
    v = htole64(v);
    memcpy(p, &v, sizeof(v));
}

#endif /* QTRACE_FORMAT_LE_H */
