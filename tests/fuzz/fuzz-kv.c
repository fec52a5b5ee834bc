/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Fuzz target: the key=value parser of the META, INFO and END chunks
 * (src/format/kv.c) on the input as bytes, then a look-up of every key it
 * found and of one it did not, and a second parse into the same list (as
 * the reader does when an INFO chunk completes META).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kv.h"

static volatile uint64_t sink;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct kv_list kv = { 0 };
    char why[128];
    size_t i;

    if (kv_parse(&kv, data, size, why, sizeof(why)) == 0) {
        for (i = 0; i < kv.n; i++) {
            const char *v = kv_get(&kv, kv.items[i].key);

            if (!v) {
                abort();        /* a parsed key that cannot be found */
            }
            sink += strlen(v);
        }
        sink += (uintptr_t)kv_get(&kv, "no such key");
        sink += (uint64_t)kv_parse(&kv, data, size / 2, why, sizeof(why));
    }
    kv_fini(&kv);
    return 0;
}
