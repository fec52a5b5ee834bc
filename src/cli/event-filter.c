/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Event filter for the reading commands (see event-filter.h). A pattern
 * that matches nothing is an error: it is almost always a typo, and
 * silently showing nothing would hide it.
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "did-you-mean.h"
#include "event-filter.h"

#define SEPARATORS ",; \t"

static void set_all(struct event_filter *f, const struct qtrace_catalog *cat,
                    bool on)
{
    unsigned int id;

    memset(f->on, 0, sizeof(f->on));
    for (id = 1; id <= cat->n_events && id < QTRACE_MAX_EVENTS; id++) {
        f->on[id] = on;
    }
}

/* "GLOB: no event matches", and the closest name when one is near. */
static void report_no_match(const struct qtrace_catalog *cat,
                            const char *glob, struct qtrace_err *err)
{
    struct did_you_mean dym;
    const char *near;
    unsigned int id;

    did_you_mean_init(&dym, glob);
    for (id = 1; id <= cat->n_events && id < QTRACE_MAX_EVENTS; id++) {
        did_you_mean_consider(&dym, cat->events[id].name);
    }
    near = did_you_mean_result(&dym);
    if (near) {
        qtrace_err_set(err, "%s: no event matches; did you mean '%s'?", glob,
                       near);
    } else {
        qtrace_err_set(err, "%s: no event matches", glob);
    }
}

/* Apply one pattern ("name*" shows, "-name*" hides); 0 or -EINVAL. */
static int apply_pattern(struct event_filter *f,
                         const struct qtrace_catalog *cat, const char *pat,
                         struct qtrace_err *err)
{
    bool show = pat[0] != '-';
    const char *glob = show ? pat : pat + 1;
    unsigned int id, matched = 0;

    if (glob[0] == '\0') {
        qtrace_err_set(err, "%s: empty pattern", pat);
        return -EINVAL;
    }
    for (id = 1; id <= cat->n_events && id < QTRACE_MAX_EVENTS; id++) {
        if (fnmatch(glob, cat->events[id].name, 0) == 0) {
            f->on[id] = show;
            matched++;
        }
    }
    if (matched == 0) {
        report_no_match(cat, glob, err);
        return -EINVAL;
    }
    return 0;
}

int event_filter_parse(struct event_filter *f,
                       const struct qtrace_catalog *cat,
                       const char *patterns, struct qtrace_err *err)
{
    char *copy, *save = NULL, *tok;
    int ret = 0;

    if (!patterns) {
        set_all(f, cat, true);
        return 0;
    }
    if (patterns[strspn(patterns, SEPARATORS)] == '\0') {
        qtrace_err_set(err, "'%s': no pattern given", patterns);
        return -EINVAL;
    }
    patterns += strspn(patterns, SEPARATORS);
    /* "-x" first means "everything but x"; "x" first means "only x". */
    set_all(f, cat, patterns[0] == '-');
    copy = strdup(patterns);
    if (!copy) {
        qtrace_err_set(err, "%s", strerror(ENOMEM));
        return -ENOMEM;
    }
    for (tok = strtok_r(copy, SEPARATORS, &save); tok && ret == 0;
         tok = strtok_r(NULL, SEPARATORS, &save)) {
        ret = apply_pattern(f, cat, tok, err);
    }
    free(copy);
    return ret;
}
