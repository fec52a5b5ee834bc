/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Address and instruction filters: which code gets instrumented. Ranges
 * (range=START-END) limit every execution event; instruction filters
 * (ifilter=MNEMONIC-PREFIX, afilter=ADDR, as in QEMU's execlog) limit
 * exec_insn, mem_access and the text log. Consulted at translation time.
 */
#ifndef QTRACE_PLUGIN_FILTER_H
#define QTRACE_PLUGIN_FILTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "qtrace/err.h"

#define FILTER_MAX 64               /* entries of each kind */

struct filter {
    uint64_t range_start[FILTER_MAX];   /* [start, end) */
    uint64_t range_end[FILTER_MAX];
    size_t n_ranges;
    char *iprefix[FILTER_MAX];          /* owned */
    size_t n_iprefix;
    uint64_t addr[FILTER_MAX];
    size_t n_addrs;
};

void filter_init(struct filter *f);
void filter_fini(struct filter *f);

/* Parsers for the option values; -EINVAL with err saying why. */
int filter_add_range(struct filter *f, const char *spec,
                     struct qtrace_err *err);
int filter_add_iprefix(struct filter *f, const char *prefix,
                       struct qtrace_err *err);
int filter_add_addr(struct filter *f, const char *spec,
                    struct qtrace_err *err);

/* True when pc lies in a selected range (or no range was given). */
bool filter_pc_in_range(const struct filter *f, uint64_t pc);

/* True when instruction filters exist, so disassembly is needed. */
static inline bool filter_has_insn_filters(const struct filter *f)
{
    return f->n_iprefix > 0 || f->n_addrs > 0;
}

/*
 * True when the instruction passes the ifilter/afilter options (always
 * true without them). disas may be NULL when only afilter is used.
 */
bool filter_insn_selected(const struct filter *f, uint64_t pc,
                          const char *disas);

/* Parse a number (decimal or 0x hex) covering the whole string. */
int filter_parse_u64(const char *s, uint64_t *out);

#endif /* QTRACE_PLUGIN_FILTER_H */
