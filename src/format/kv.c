/* SPDX-License-Identifier: GPL-2.0-or-later */
/* "key=value" lines (see kv.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kv.h"

void kv_fini(struct kv_list *kv)
{
    free(kv->buf);
    free(kv->items);
    memset(kv, 0, sizeof(*kv));
}

int kv_parse(struct kv_list *kv, const uint8_t *text, size_t len,
             char *why, size_t why_len)
{
    size_t lines = 1;
    size_t i;
    char *line;
    char *next;
    unsigned int line_no = 0;

    kv_fini(kv);
    for (i = 0; i < len; i++) {
        lines += text[i] == '\n';
    }
    kv->buf = malloc(len + 1);
    kv->items = calloc(lines, sizeof(*kv->items));
    if (!kv->buf || !kv->items) {
        snprintf(why, why_len, "%s", strerror(ENOMEM));
        return -ENOMEM;
    }
    memcpy(kv->buf, text, len);
    kv->buf[len] = '\0';
    for (line = kv->buf; *line; line = next) {
        char *eq;

        line_no++;
        next = strchr(line, '\n');
        next = next ? (*next = '\0', next + 1) : line + strlen(line);
        if (*line == '\0') {
            continue;
        }
        eq = strchr(line, '=');
        if (!eq || eq == line) {
            snprintf(why, why_len, "line %u: not a key=value line",
                     line_no);
            return -EBADMSG;
        }
        *eq = '\0';
        kv->items[kv->n].key = line;
        kv->items[kv->n].value = eq + 1;
        kv->n++;
    }
    return 0;
}

const char *kv_get(const struct kv_list *kv, const char *key)
{
    size_t i;

    for (i = 0; i < kv->n; i++) {
        if (strcmp(kv->items[i].key, key) == 0) {
            return kv->items[i].value;
        }
    }
    return NULL;
}
