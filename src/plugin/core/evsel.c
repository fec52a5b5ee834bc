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
#include <unistd.h>

#include "../../symbols/open-file.h"
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
    struct qtrace_err why;
    FILE *f;
    int ret = 0;
    int fd;

    /*
     * Only a regular file, opened without blocking: a directory reads as
     * empty (the defaults would stay), /dev/zero never ends, a FIFO
     * without a writer would hold QEMU at load.
     */
    fd = open_regular_file(path, &why);
    if (fd < 0) {
        qtrace_err_set(err, "@%s", why.msg);
        return fd;
    }
    f = fdopen(fd, "r");
    if (!f) {
        ret = -errno;
        qtrace_err_set(err, "@%s: %s", path, strerror(errno));
        close(fd);
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

int evsel_parse(struct evsel *sel, const char *spec, struct qtrace_err *err)
{
    bool first = true;

    if (spec[0] == '@') {
        return apply_file(sel, spec + 1, &first, err);
    }
    if (strspn(spec, ",; \t") == strlen(spec)) {
        qtrace_err_set(err, "no pattern given");
        return -EINVAL;
    }
    return apply_list(sel, spec, &first, err);
}

/*
 * "event needs needed": recording event without needed is of no use.
 * Blocks and instructions cannot be shown without their code; function
 * addresses mean little without the images they fall in (every name
 * would print in hex).
 */
static const struct {
    const char *event, *needed;
} implications[] = {
    { "exec_tb", "tb_trans" },
    { "exec_insn", "tb_trans" },
    { "func_entry", "image_map" },
    { "func_exit", "image_map" },
};

void evsel_apply_implications(struct evsel *sel)
{
    size_t i;

    for (i = 0; i < sizeof(implications) / sizeof(implications[0]); i++) {
        const struct qtrace_event_desc *ev =
            qtrace_catalog_find(sel->cat, implications[i].event);
        const struct qtrace_event_desc *need =
            qtrace_catalog_find(sel->cat, implications[i].needed);

        if (ev && need && evsel_is_enabled(sel, ev->id) &&
            need->id < QTRACE_MAX_EVENTS && !sel->removed[need->id]) {
            sel->on[need->id] = true;
        }
    }
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
