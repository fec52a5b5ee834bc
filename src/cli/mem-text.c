/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * mem_access records as text (see mem-text.h). The flag bits are those
 * of docs/format.md (QTRACE_MEM_*); the raw record is left as it is.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "mem-text.h"
#include "qtrace/format.h"

#define MEM_KNOWN_FLAGS                                                     \
    (QTRACE_MEM_STORE | QTRACE_MEM_SIGNED | QTRACE_MEM_BIG_ENDIAN |         \
     QTRACE_MEM_HAS_PADDR | QTRACE_MEM_IO | QTRACE_MEM_HAS_VALUE)

void mem_text_map(struct mem_text *m, const struct qtrace_catalog *cat)
{
    const struct qtrace_event_desc *ev = qtrace_catalog_find(cat,
                                                             "mem_access");
    int *const idx[] = { &m->pc, &m->vaddr, &m->paddr, &m->size, &m->flags,
                         &m->device, &m->value };
    static const char *const names[] = { "pc", "vaddr", "paddr", "size",
                                         "flags", "device", "value" };
    unsigned int i, j;

    m->ev = ev;
    for (j = 0; j < sizeof(names) / sizeof(names[0]); j++) {
        *idx[j] = -1;
        for (i = 0; ev && i < ev->n_args; i++) {
            if (strcmp(ev->args[i].name, names[j]) == 0) {
                *idx[j] = (int)i;
            }
        }
    }
    /* Without these five, the catalog's own format is the safer text. */
    if (m->pc < 0 || m->vaddr < 0 || m->paddr < 0 || m->size < 0 ||
        m->flags < 0) {
        m->ev = NULL;
    }
}

/* Append to buf like snprintf, keeping the total length needed in *n. */
#define APPEND(buf, len, n, ...)                                            \
    do {                                                                    \
        int w_ = snprintf((buf) + ((n) < (len) ? (n) : (len)),              \
                          (n) < (len) ? (len) - (n) : 0, __VA_ARGS__);      \
        (n) += w_ > 0 ? (size_t)w_ : 0;                                     \
    } while (0)

int mem_text_fmt(const struct mem_text *m, const struct qtrace_record *rec,
                 char *buf, size_t len)
{
    unsigned int flags = (unsigned int)qtrace_record_u64(rec,
                                                         (unsigned)m->flags);
    const uint8_t *dev = NULL;
    size_t n = 0, dev_len = 0;

    if (len > 0) {
        buf[0] = '\0';
    }
    APPEND(buf, len, n, "pc 0x%" PRIx64 " vaddr 0x%" PRIx64,
           qtrace_record_u64(rec, (unsigned)m->pc),
           qtrace_record_u64(rec, (unsigned)m->vaddr));
    if (flags & QTRACE_MEM_HAS_PADDR) {
        APPEND(buf, len, n, " paddr 0x%" PRIx64,
               qtrace_record_u64(rec, (unsigned)m->paddr));
    }
    APPEND(buf, len, n, " size %" PRIu64 " %s%s%s%s",
           qtrace_record_u64(rec, (unsigned)m->size),
           (flags & QTRACE_MEM_STORE) ? "store" : "load",
           (flags & QTRACE_MEM_SIGNED) ? " sext" : "",
           (flags & QTRACE_MEM_BIG_ENDIAN) ? " be" : "",
           (flags & QTRACE_MEM_IO) ? " io" : "");
    if (m->device >= 0) {
        dev = qtrace_record_bytes(rec, (unsigned)m->device, &dev_len);
    }
    if (dev && dev_len > 0) {
        APPEND(buf, len, n, " dev '%.*s'", (int)dev_len, (const char *)dev);
    }
    if ((flags & QTRACE_MEM_HAS_VALUE) && m->value >= 0) {
        APPEND(buf, len, n, " value 0x%" PRIx64,
               qtrace_record_u64(rec, (unsigned)m->value));
    }
    if (flags & ~MEM_KNOWN_FLAGS) {
        APPEND(buf, len, n, " flags 0x%x", flags & ~MEM_KNOWN_FLAGS);
    }
    return (int)n;
}
