/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * mem_access records as text (see mem-text.h). The flag bits are those
 * of docs/format.md (QTRACE_MEM_*); the raw record is left as it is.
 */
#include <stdbool.h>
#include <string.h>

#include "digits.h"
#include "le.h"
#include "mem-text.h"
#include "qtrace/format.h"

#define MEM_KNOWN_FLAGS                                                     \
    (QTRACE_MEM_STORE | QTRACE_MEM_SIGNED | QTRACE_MEM_BIG_ENDIAN |         \
     QTRACE_MEM_HAS_PADDR | QTRACE_MEM_IO | QTRACE_MEM_HAS_VALUE)

/* Whether argument arg of ev is an unsigned integer (read as it is). */
static bool is_unsigned(const struct qtrace_event_desc *ev, int arg)
{
    switch (ev->args[arg].type) {
    case QTRACE_ARG_U8:
    case QTRACE_ARG_U16:
    case QTRACE_ARG_U32:
    case QTRACE_ARG_U64:
        return true;
    default:
        return false;
    }
}

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
    m->fast = m->ev && is_unsigned(ev, m->pc) && is_unsigned(ev, m->vaddr) &&
              is_unsigned(ev, m->paddr) && is_unsigned(ev, m->size) &&
              is_unsigned(ev, m->flags) &&
              (m->value < 0 || is_unsigned(ev, m->value)) &&
              (m->device < 0 || ev->args[m->device].type == QTRACE_ARG_STR ||
               ev->args[m->device].type == QTRACE_ARG_BYTES);
}

/*
 * The text being built: like snprintf, bytes past cap are counted, not
 * written. Without printf: dump prints millions of these lines, and
 * snprintf made a dump of accesses half again as slow.
 */
struct text {
    char *buf;
    size_t cap;                     /* bytes of buf, the NUL included */
    size_t n;                       /* length of the whole text */
};

static void put(struct text *t, const char *s, size_t len)
{
    if (t->n + 1 < t->cap) {
        size_t room = t->cap - 1 - t->n;

        memcpy(t->buf + t->n, s, len < room ? len : room);
    }
    t->n += len;
}

#define put_lit(t, s) put((t), (s), sizeof(s) - 1)

static void put_hex(struct text *t, uint64_t v)
{
    char digits[16];
    char *start = digits_hex(digits + sizeof(digits), v);

    put_lit(t, "0x");
    put(t, start, (size_t)(digits + sizeof(digits) - start));
}

static void put_dec(struct text *t, uint64_t v)
{
    char digits[DIGITS_MAX];
    char *start = digits_dec(digits + sizeof(digits), v);

    put(t, start, (size_t)(digits + sizeof(digits) - start));
}

static uint64_t arg_u64(const struct qtrace_record *rec, int arg)
{
    return qtrace_record_u64(rec, (unsigned int)arg);
}

/* Unsigned argument arg, inside the record's fixed part: no check. */
static inline uint64_t fixed_u64(const struct qtrace_record *rec,
                                 const struct qtrace_arg_desc *a)
{
    const uint8_t *p = rec->data + a->offset;

    switch (a->size) {
    case 1:
        return p[0];
    case 2:
        return load16(p);
    case 4:
        return load32(p);
    default:
        return load64(p);
    }
}

/* A literal at p, returning the end. */
#define lit(p, s) ((char *)memcpy((p), (s), sizeof(s) - 1) + sizeof(s) - 1)

static inline char *hex_at(char *p, uint64_t v)
{
    unsigned int n = digits_hex_len(v);

    p = lit(p, "0x");
    digits_hex(p + n, v);
    return p + n;
}

/*
 * The text of the common record (no device name, flags this reader
 * knows) written straight into buf, which has MEM_TEXT_FAST_ROOM bytes:
 * the same text as the general way, in a third of its instructions
 * (dump prints hundreds of millions). NULL when the record is not one.
 */
static char *fmt_fast(const struct mem_text *m,
                      const struct qtrace_record *rec, char *p)
{
    const struct qtrace_arg_desc *a = m->ev->args;
    unsigned int flags;
    unsigned int n;
    uint64_t size;

    if (rec->size < m->ev->fixed_size) {
        return NULL;
    }
    flags = (unsigned int)fixed_u64(rec, &a[m->flags]);
    if ((flags & ~MEM_KNOWN_FLAGS) ||
        (m->device >= 0 && load16(rec->data + a[m->device].offset) != 0)) {
        return NULL;
    }
    p = lit(p, "pc ");
    p = hex_at(p, fixed_u64(rec, &a[m->pc]));
    p = lit(p, " vaddr ");
    p = hex_at(p, fixed_u64(rec, &a[m->vaddr]));
    if (flags & QTRACE_MEM_HAS_PADDR) {
        p = lit(p, " paddr ");
        p = hex_at(p, fixed_u64(rec, &a[m->paddr]));
    }
    p = lit(p, " size ");
    size = fixed_u64(rec, &a[m->size]);
    n = digits_dec_len(size);
    digits_dec(p + n, size);
    p += n;
    if (flags & QTRACE_MEM_STORE) {
        p = lit(p, " store");
    } else {
        p = lit(p, " load");
    }
    if (flags & QTRACE_MEM_SIGNED) {
        p = lit(p, " sext");
    }
    if (flags & QTRACE_MEM_BIG_ENDIAN) {
        p = lit(p, " be");
    }
    if (flags & QTRACE_MEM_IO) {
        p = lit(p, " io");
    }
    if ((flags & QTRACE_MEM_HAS_VALUE) && m->value >= 0) {
        p = lit(p, " value ");
        p = hex_at(p, fixed_u64(rec, &a[m->value]));
    }
    return p;
}

int mem_text_fmt(const struct mem_text *m, const struct qtrace_record *rec,
                 char *buf, size_t len)
{
    unsigned int flags;
    char *end;

    /* pc, vaddr, paddr, value 4 x 18, size 20, words 50: below 192. */
    if (m->fast && len >= MEM_TEXT_FAST_ROOM &&
        (end = fmt_fast(m, rec, buf)) != NULL) {
        *end = '\0';
        return (int)(end - buf);
    }
    flags = (unsigned int)arg_u64(rec, m->flags);
    struct text t = { buf, len, 0 };
    const uint8_t *dev = NULL;
    size_t dev_len = 0;

    put_lit(&t, "pc ");
    put_hex(&t, arg_u64(rec, m->pc));
    put_lit(&t, " vaddr ");
    put_hex(&t, arg_u64(rec, m->vaddr));
    if (flags & QTRACE_MEM_HAS_PADDR) {
        put_lit(&t, " paddr ");
        put_hex(&t, arg_u64(rec, m->paddr));
    }
    put_lit(&t, " size ");
    put_dec(&t, arg_u64(rec, m->size));
    if (flags & QTRACE_MEM_STORE) {
        put_lit(&t, " store");
    } else {
        put_lit(&t, " load");
    }
    if (flags & QTRACE_MEM_SIGNED) {
        put_lit(&t, " sext");
    }
    if (flags & QTRACE_MEM_BIG_ENDIAN) {
        put_lit(&t, " be");
    }
    if (flags & QTRACE_MEM_IO) {
        put_lit(&t, " io");
    }
    if (m->device >= 0) {
        dev = qtrace_record_bytes(rec, (unsigned int)m->device, &dev_len);
    }
    if (dev && dev_len > 0) {
        put_lit(&t, " dev '");
        put(&t, (const char *)dev, dev_len);
        put_lit(&t, "'");
    }
    if ((flags & QTRACE_MEM_HAS_VALUE) && m->value >= 0) {
        put_lit(&t, " value ");
        put_hex(&t, arg_u64(rec, m->value));
    }
    if (flags & ~MEM_KNOWN_FLAGS) {
        put_lit(&t, " flags ");
        put_hex(&t, flags & ~MEM_KNOWN_FLAGS);
    }
    if (len > 0) {
        buf[t.n < len ? t.n : len - 1] = '\0';
    }
    return (int)t.n;
}
