/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Guest symbols for the reading commands (see guest-syms.h). */
#include <stdint.h>
#include <string.h>

#include "cli.h"
#include "guest-syms.h"
#include "../format/digits.h"

static void warn(void *arg, const char *msg)
{
    cli_error(arg, "%s (addresses shown in hex)", msg);
}

int guest_syms_option(const char *cmd, const char *spec)
{
    struct qtrace_err err = { "" };

    if (qtrace_symbols_extra_add(spec, &err) < 0) {
        cli_error(cmd, "--symbols %s", err.msg);
        return CLI_USAGE;
    }
    return CLI_OK;
}

void guest_syms_options_reset(void)
{
    qtrace_symbols_extra_clear();
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

/* n bytes of src at p, cut at end (the byte kept for the NUL). */
static char *put(char *p, const char *end, const char *src, size_t n)
{
    size_t room = (size_t)(end - p);

    memcpy(p, src, n < room ? n : room);
    return p + (n < room ? n : room);
}

static char *put_hex(char *p, const char *end, uint64_t v)
{
    char tmp[20];
    char *d = digits_u64(tmp + sizeof(tmp), v, 16);

    p = put(p, end, "0x", 2);
    return put(p, end, d, (size_t)(tmp + sizeof(tmp) - d));
}

/* Without printf: dump names every block it prints. */
const char *guest_syms_fmt(const struct qtrace_symbols *s, uint64_t addr,
                           bool with_off, char *buf, size_t len)
{
    uint64_t off = 0;
    const char *name = qtrace_symbols_lookup(s, addr, &off);
    const char *end = buf + len - 1;
    char *p = buf;

    if (!name) {
        const char *module = qtrace_symbols_module(s, addr, &off);

        if (module) {
            p = put(p, end, module, strlen(module));
            p = put(p, end, "+", 1);
            p = put_hex(p, end, off);
        } else {
            p = put_hex(p, end, addr);
        }
    } else {
        p = put(p, end, name, strlen(name));
        if (off || with_off) {
            p = put(p, end, "+", 1);
            p = put_hex(p, end, off);
        }
    }
    *p = '\0';
    return buf;
}

const char *guest_syms_fn_name(const struct qtrace_symbols *s,
                               uint64_t addr, bool keep_plt, char *buf,
                               size_t len)
{
    static const char plt[] = "@plt";
    size_t n = strlen(guest_syms_fmt(s, addr, false, buf, len));

    if (!keep_plt && n > sizeof(plt) - 1 &&
        strcmp(buf + n - (sizeof(plt) - 1), plt) == 0) {
        buf[n - (sizeof(plt) - 1)] = '\0';
    }
    return buf;
}
