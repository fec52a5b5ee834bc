/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Fuzz target: the trace-events parser (src/tracetool/catalog.c) on the
 * input as text, as a trace's META chunk would hand it over; every event
 * parsed is then looked up by name and id and its format prepared as the
 * reader prepares it.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "qtrace/catalog.h"
#include "qtrace/reader.h"

static volatile uint64_t sink;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = strndup((const char *)data, size);
    struct qtrace_catalog cat = { 0 };
    struct qtrace_err err;
    unsigned int id;

    if (!text) {
        return 0;
    }
    if (qtrace_catalog_parse(&cat, text, &err) == 0) {
        for (id = 1; id <= cat.n_events; id++) {
            const struct qtrace_event_desc *ev = qtrace_catalog_get(&cat, id);
            struct qtrace_fmt *fmt;

            if (!ev || qtrace_catalog_find(&cat, ev->name) == NULL) {
                abort();        /* an event parsed but not found again */
            }
            fmt = qtrace_fmt_new(ev);
            sink += ev->fixed_size + (uintptr_t)fmt;
            qtrace_fmt_free(fmt);
        }
        qtrace_catalog_fini(&cat);
    } else {
        sink += strlen(err.msg);
    }
    free(text);
    return 0;
}
