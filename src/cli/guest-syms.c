/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Guest symbols for the reading commands (see guest-syms.h). */
#include <inttypes.h>
#include <stdio.h>

#include "cli.h"
#include "guest-syms.h"

static void warn(void *arg, const char *msg)
{
    cli_error(arg, "%s (addresses shown in hex)", msg);
}

struct qtrace_symbols *guest_syms_load(struct qtrace_reader *rd,
                                       const char *cmd)
{
    struct qtrace_symbols *s = qtrace_symbols_new();

    if (!s || qtrace_symbols_load_trace(s, rd, warn, (void *)cmd) < 0) {
        cli_error(cmd, "guest symbols: out of memory");
        qtrace_symbols_free(s);
        return NULL;
    }
    return s;
}

const char *guest_syms_fmt(const struct qtrace_symbols *s, uint64_t addr,
                           bool with_off, char *buf, size_t len)
{
    uint64_t off = 0;
    const char *name = qtrace_symbols_lookup(s, addr, &off);

    if (!name) {
        snprintf(buf, len, "0x%" PRIx64, addr);
    } else if (off || with_off) {
        snprintf(buf, len, "%s+0x%" PRIx64, name, off);
    } else {
        snprintf(buf, len, "%s", name);
    }
    return buf;
}
