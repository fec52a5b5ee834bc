/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The project's event catalog for the unit tests (project-catalog.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include "qtrace/err.h"
#include "project-catalog.h"

struct qtrace_catalog *project_catalog(void)
{
    static struct qtrace_catalog cat;
    static bool loaded;
    const char *path = getenv("TRACE_EVENTS");
    struct qtrace_err err;
    char *text;
    FILE *f;
    long len;

    if (loaded) {
        return &cat;
    }
    assert_non_null(path);
    f = fopen(path, "r");
    assert_non_null(f);
    assert_int_equal(fseek(f, 0, SEEK_END), 0);
    len = ftell(f);
    rewind(f);
    text = calloc(1, (size_t)len + 1);
    assert_non_null(text);
    assert_int_equal(fread(text, 1, (size_t)len, f), (size_t)len);
    fclose(f);
    assert_int_equal(qtrace_catalog_parse(&cat, text, &err), 0);
    free(text);
    loaded = true;
    return &cat;
}
