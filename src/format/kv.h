/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * "key=value" lines, as the META and END chunks hold them
 * (docs/format.md): parsed into a list that keeps the order.
 */
#ifndef QTRACE_FORMAT_KV_H
#define QTRACE_FORMAT_KV_H

#include <stddef.h>
#include <stdint.h>

struct kv {
    const char *key;                /* points into kv_list.buf */
    const char *value;              /* same */
};

struct kv_list {
    char *buf;                      /* NUL-separated copy of the text */
    struct kv *items;
    size_t n;
};

/* Release what kv holds; it is then empty and may be parsed into again. */
void kv_fini(struct kv_list *kv);

/*
 * Parse "key=value\n" lines (the last newline may be missing; empty lines
 * are skipped). Returns 0, or -ENOMEM / -EBADMSG with why filled
 * ("line N: REASON").
 */
int kv_parse(struct kv_list *kv, const uint8_t *text, size_t len,
             char *why, size_t why_len);

/* The value of key, or NULL. */
const char *kv_get(const struct kv_list *kv, const char *key);

#endif /* QTRACE_FORMAT_KV_H */
