/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The table of output formats of `qtrace convert` (see convert.h). */
#include <string.h>

#include "convert.h"

extern const struct conv_ops conv_chrome_ops;
extern const struct conv_ops conv_ctf_ops;
extern const struct conv_ops conv_etrace_ops;
extern const struct conv_ops conv_perfetto_ops;
extern const struct conv_ops conv_uftrace_ops;

const struct conv_ops *const conv_formats[] = {
    &conv_uftrace_ops,
    &conv_etrace_ops,
    &conv_chrome_ops,
    &conv_perfetto_ops,
    &conv_ctf_ops,
    NULL,
};

const struct conv_ops *conv_find(const char *name)
{
    size_t i;

    for (i = 0; conv_formats[i]; i++) {
        if (strcmp(conv_formats[i]->name, name) == 0) {
            return conv_formats[i];
        }
    }
    return NULL;
}
