/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The --symbols files of this process (qtrace_symbols_extra_add in
 * include/qtrace/symbols.h): each read once when given, then lent to
 * every table qtrace_symbols_load_trace() fills, so that every reading
 * command and every converter names addresses after them without
 * knowing of the option. Main thread only.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "user-file.h"

static struct user_file *extra;
static size_t n_extra, cap_extra;

/*
 * FILE[@ADDR] into a path (malloc'ed) and *at. A spec naming an
 * existing file is a path as a whole, so a name holding '@' needs no
 * escaping. ADDR is hexadecimal, 0x optional (kallsyms prints none).
 */
static int parse_spec(const char *spec, char **path, uint64_t *at,
                      bool *has_at, struct qtrace_err *err)
{
    const char *sign = strrchr(spec, '@');
    struct stat st;
    char *end;

    *has_at = false;
    if (!sign || sign == spec || stat(spec, &st) == 0) {
        *path = strdup(spec);
        return *path ? 0 : -ENOMEM;
    }
    errno = 0;
    *at = strtoull(sign + 1, &end, 16);
    if (sign[1] == '\0' || sign[1] == '-' || *end != '\0' || errno) {
        qtrace_err_set(err, "%s: '%s' after @ is not a hexadecimal address",
                       spec, sign + 1);
        return -EINVAL;
    }
    *has_at = true;
    *path = strndup(spec, (size_t)(sign - spec));
    return *path ? 0 : -ENOMEM;
}

int qtrace_symbols_extra_add(const char *spec, struct qtrace_err *err)
{
    char *path = NULL;
    uint64_t at = 0;
    bool has_at;
    int ret = parse_spec(spec, &path, &at, &has_at, err);

    if (ret == -ENOMEM) {
        qtrace_err_set(err, "%s: %s", spec, strerror(ENOMEM));
    }
    if (ret == 0 && n_extra == cap_extra) {
        size_t cap = cap_extra ? 2 * cap_extra : 4;
        void *grown = realloc(extra, cap * sizeof(*extra));

        if (!grown) {
            qtrace_err_set(err, "%s: %s", spec, strerror(ENOMEM));
            ret = -ENOMEM;
        } else {
            extra = grown;
            cap_extra = cap;
        }
    }
    if (ret == 0) {
        ret = user_file_read(&extra[n_extra], path, has_at ? &at : NULL,
                             err);
        n_extra += ret == 0;
    }
    free(path);
    return ret;
}

void qtrace_symbols_extra_clear(void)
{
    size_t i;

    for (i = 0; i < n_extra; i++) {
        user_file_fini(&extra[i]);
    }
    free(extra);
    extra = NULL;
    n_extra = cap_extra = 0;
}

int extra_files_place(struct qtrace_symbols *s)
{
    size_t i;

    for (i = 0; i < n_extra; i++) {
        if (symbols_add_user(s, &extra[i]) < 0) {
            return -ENOMEM;
        }
    }
    return 0;
}
