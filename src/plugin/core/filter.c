/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Address ranges and instruction filters (see filter.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "filter.h"

void filter_init(struct filter *f)
{
    memset(f, 0, sizeof(*f));
}

void filter_fini(struct filter *f)
{
    size_t i;

    for (i = 0; i < f->n_iprefix; i++) {
        free(f->iprefix[i]);
    }
    memset(f, 0, sizeof(*f));
}

int filter_parse_u64(const char *s, uint64_t *out)
{
    char *end;

    if (!s[0] || s[0] == '-' || s[0] == '+' || s[0] == ' ') {
        return -EINVAL;
    }
    errno = 0;
    *out = strtoull(s, &end, 0);
    if (errno || *end != '\0') {
        return -EINVAL;
    }
    return 0;
}

int filter_add_range(struct filter *f, const char *spec,
                     struct qtrace_err *err)
{
    char start_s[64];
    const char *dash = strchr(spec, '-');
    uint64_t start, end;
    size_t n = dash ? (size_t)(dash - spec) : 0;

    if (!dash || n == 0 || n >= sizeof(start_s)) {
        qtrace_err_set(err, "expected START-END");
        return -EINVAL;
    }
    memcpy(start_s, spec, n);
    start_s[n] = '\0';
    if (filter_parse_u64(start_s, &start) < 0 ||
        filter_parse_u64(dash + 1, &end) < 0) {
        qtrace_err_set(err, "expected START-END (numbers, 0x for hex)");
        return -EINVAL;
    }
    if (end <= start) {
        qtrace_err_set(err, "empty range (END must be above START)");
        return -EINVAL;
    }
    if (f->n_ranges == FILTER_MAX) {
        qtrace_err_set(err, "more than %d ranges", FILTER_MAX);
        return -EINVAL;
    }
    f->range_start[f->n_ranges] = start;
    f->range_end[f->n_ranges] = end;
    f->n_ranges++;
    return 0;
}

int filter_add_iprefix(struct filter *f, const char *prefix,
                       struct qtrace_err *err)
{
    if (!prefix[0]) {
        qtrace_err_set(err, "empty mnemonic prefix");
        return -EINVAL;
    }
    if (f->n_iprefix == FILTER_MAX) {
        qtrace_err_set(err, "more than %d instruction filters", FILTER_MAX);
        return -EINVAL;
    }
    f->iprefix[f->n_iprefix] = strdup(prefix);
    if (!f->iprefix[f->n_iprefix]) {
        return -ENOMEM;
    }
    f->n_iprefix++;
    return 0;
}

int filter_add_addr(struct filter *f, const char *spec,
                    struct qtrace_err *err)
{
    uint64_t addr;

    if (filter_parse_u64(spec, &addr) < 0) {
        qtrace_err_set(err, "expected an address (0x for hex)");
        return -EINVAL;
    }
    if (f->n_addrs == FILTER_MAX) {
        qtrace_err_set(err, "more than %d address filters", FILTER_MAX);
        return -EINVAL;
    }
    f->addr[f->n_addrs++] = addr;
    return 0;
}

bool filter_pc_in_range(const struct filter *f, uint64_t pc)
{
    size_t i;

    if (f->n_ranges == 0) {
        return true;
    }
    for (i = 0; i < f->n_ranges; i++) {
        if (pc >= f->range_start[i] && pc < f->range_end[i]) {
            return true;
        }
    }
    return false;
}

bool filter_insn_selected(const struct filter *f, uint64_t pc,
                          const char *disas)
{
    size_t i;

    if (!filter_has_insn_filters(f)) {
        return true;
    }
    for (i = 0; i < f->n_addrs; i++) {
        if (f->addr[i] == pc) {
            return true;
        }
    }
    for (i = 0; disas && i < f->n_iprefix; i++) {
        if (strncmp(disas, f->iprefix[i], strlen(f->iprefix[i])) == 0) {
            return true;
        }
    }
    return false;
}
