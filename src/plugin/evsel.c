/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Event selection from glob patterns and pattern files (see evsel.h).
 * Runs at install time on QEMU's main thread.
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "evsel.h"

void evsel_init(struct evsel *sel, const struct qtrace_catalog *cat)
{
    unsigned int id;

    memset(sel, 0, sizeof(*sel));
    sel->cat = cat;
    for (id = 1; id <= cat->n_events && id < QTRACE_MAX_EVENTS; id++) {
        sel->on[id] = !cat->events[id].disabled;
    }
}

void evsel_enable(struct evsel *sel, unsigned int id)
{
    if (id < QTRACE_MAX_EVENTS) {
        sel->on[id] = true;
    }
}

/* Apply one pattern; first tells whether it is the first of the spec. */
static int apply_pattern(struct evsel *sel, const char *pat, bool *first,
                         struct qtrace_err *err)
{
    bool enable = true;
    unsigned int id, matched = 0;

    if (pat[0] == '-') {
        enable = false;
        pat++;
    }
    if (pat[0] == '\0') {
        qtrace_err_set(err, "empty pattern");
        return -EINVAL;
    }
    if (*first && enable) {
        memset(sel->on, 0, sizeof(sel->on));
    }
    *first = false;
    for (id = 1; id <= sel->cat->n_events && id < QTRACE_MAX_EVENTS; id++) {
        if (fnmatch(pat, sel->cat->events[id].name, 0) == 0) {
            sel->on[id] = enable;
            sel->removed[id] = !enable;
            matched++;
        }
    }
    if (matched == 0) {
        qtrace_err_set(err, "%s: no event matches", pat);
        return -EINVAL;
    }
    return 0;
}

/* Split list on ',' and ';' (and surrounding blanks), apply each. */
static int apply_list(struct evsel *sel, const char *list, bool *first,
                      struct qtrace_err *err)
{
    char *copy = strdup(list);
    char *save = NULL;
    char *tok;
    int ret = 0;

    if (!copy) {
        return -ENOMEM;
    }
    for (tok = strtok_r(copy, ",; \t\r\n", &save); tok && ret == 0;
         tok = strtok_r(NULL, ",; \t\r\n", &save)) {
        ret = apply_pattern(sel, tok, first, err);
    }
    free(copy);
    return ret;
}

static int apply_file(struct evsel *sel, const char *path, bool *first,
                      struct qtrace_err *err)
{
    char line[1024];
    unsigned int lineno = 0;
    FILE *f = fopen(path, "r");
    int ret = 0;

    if (!f) {
        ret = -errno;
        qtrace_err_set(err, "@%s: %s", path, strerror(errno));
        return ret;
    }
    while (ret == 0 && fgets(line, sizeof(line), f)) {
        lineno++;
        line[strcspn(line, "#")] = '\0';
        ret = apply_list(sel, line, first, err);
        if (ret < 0) {
            char why[sizeof(err->msg)];

            snprintf(why, sizeof(why), "%s", err->msg);
            qtrace_err_set(err, "@%s: line %u: %s", path, lineno, why);
        }
    }
    fclose(f);
    return ret;
}

/* The id of the event called name, or 0 when the catalog has none. */
static unsigned int find_id(const struct evsel *sel, const char *name)
{
    unsigned int id;

    for (id = 1; id <= sel->cat->n_events && id < QTRACE_MAX_EVENTS; id++) {
        if (strcmp(sel->cat->events[id].name, name) == 0) {
            return id;
        }
    }
    return 0;
}

/*
 * Function addresses mean little without the images they fall in: a
 * trace of calls without image_map shows every name in hex. So function
 * events bring image_map, unless the user removed it by name.
 */
static void apply_implied(struct evsel *sel)
{
    unsigned int entry = find_id(sel, "func_entry");
    unsigned int exit = find_id(sel, "func_exit");
    unsigned int map = find_id(sel, "image_map");

    if (map && !sel->removed[map] &&
        ((entry && sel->on[entry]) || (exit && sel->on[exit]))) {
        sel->on[map] = true;
    }
}

int evsel_parse(struct evsel *sel, const char *spec, struct qtrace_err *err)
{
    bool first = true;
    int ret;

    if (spec[0] == '@') {
        ret = apply_file(sel, spec + 1, &first, err);
    } else if (strspn(spec, ",; \t") == strlen(spec)) {
        qtrace_err_set(err, "no pattern given");
        return -EINVAL;
    } else {
        ret = apply_list(sel, spec, &first, err);
    }
    if (ret == 0) {
        apply_implied(sel);
    }
    return ret;
}

void evsel_fmt(const struct evsel *sel, char *buf, size_t len)
{
    unsigned int id;
    size_t used = 0;

    if (len == 0) {
        return;
    }
    buf[0] = '\0';
    for (id = 1; id <= sel->cat->n_events && id < QTRACE_MAX_EVENTS; id++) {
        int n;

        if (!sel->on[id]) {
            continue;
        }
        n = snprintf(buf + used, len - used, "%s%s", used ? "," : "",
                     sel->cat->events[id].name);
        if (n < 0 || (size_t)n >= len - used) {
            break;
        }
        used += (size_t)n;
    }
}
