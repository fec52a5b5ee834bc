/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Building the -plugin option value for qtrace record (see plugin-args.h).
 * QEMU parses it with its QemuOpts syntax: "key=value" pairs split on ','
 * where ",," stands for one comma, in the plugin path as in any value.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plugin-args.h"

/*
 * Write value with each comma replaced by comma_as, where a comma_as of
 * ',' means QEMU's escape, a doubled comma.
 */
static void put_value(FILE *f, const char *value, char comma_as)
{
    const char *p;

    for (p = value; *p; p++) {
        if (*p != ',') {
            fputc(*p, f);
        } else if (comma_as != ',') {
            fputc(comma_as, f);
        } else {
            fputs(",,", f);
        }
    }
}

char *plugin_args_join(const struct plugin_args *pa)
{
    char *buf = NULL;
    size_t len = 0;
    size_t i;
    FILE *f = open_memstream(&buf, &len);

    if (!f) {
        return NULL;
    }
    fputs("file=", f);
    put_value(f, pa->plugin, ',');
    fputs(",out=", f);
    put_value(f, pa->out, ',');
    if (pa->events) {
        /*
         * Event lists are comma separated for the user, but a doubled
         * comma would reach the plugin as a comma inside one pattern:
         * the plugin also accepts ';' between patterns, so use that.
         * "@FILE" names a pattern file: its path keeps its commas.
         */
        fputs(",events=", f);
        put_value(f, pa->events, pa->events[0] == '@' ? ',' : ';');
    }
    for (i = 0; i < pa->n_opts; i++) {
        const char *eq = strchr(pa->opts[i], '=');

        if (!eq || eq == pa->opts[i]) {
            continue;           /* plugin_args_check_opt() rejects it */
        }
        /* The key has no comma (checked), only the value is escaped. */
        fprintf(f, ",%.*s=", (int)(eq - pa->opts[i]), pa->opts[i]);
        put_value(f, eq + 1, ',');
    }
    if (ferror(f)) {
        fclose(f);
        free(buf);
        return NULL;
    }
    if (fclose(f) != 0) {
        free(buf);
        return NULL;
    }
    return buf;
}

const char *plugin_args_check_opt(const char *kv)
{
    const char *eq = strchr(kv, '=');
    size_t key_len = eq ? (size_t)(eq - kv) : 0;
    size_t i;

    if (key_len == 0) {
        return "expected KEY=VALUE";
    }
    if (key_len >= 64) {
        return "key too long";
    }
    for (i = 0; i < key_len; i++) {
        char c = kv[i];

        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
              (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '.')) {
            return "a key is letters, digits, '_', '-' and '.'";
        }
    }
    if (key_len == 4 && strncmp(kv, "file", 4) == 0) {
        return "file= is QEMU's plugin path, set by qtrace";
    }
    if (key_len == 3 && strncmp(kv, "out", 3) == 0) {
        return "use -o FILE";
    }
    if (key_len == 6 && strncmp(kv, "events", 6) == 0) {
        return "use -e PATTERNS";
    }
    return NULL;
}
