/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * qtrace report --folded: the trace's call stacks as folded stacks, the
 * text flamegraph.pl, inferno and speedscope read: one line per stack,
 * "ROOT;CALLER;...;FUNCTION COUNT", COUNT the guest instructions that
 * ran with exactly that stack (the tree is flame-tree.c's). Printed only
 * when asked for: it is input for another tool, not a summary to read.
 */
#include <errno.h>
#include <stdio.h>

#include "flame-tree.h"
#include "report-table.h"
#include "report.h"

static const struct rt_col folded_cols[] = {
    { "stack", RT_STR },
    { "instructions", RT_U64 },
};

#define N_FOLDED_COLS (sizeof(folded_cols) / sizeof(folded_cols[0]))

struct table_ctx {
    FILE *out;
    const struct report_flags *flags;
};

/* One stack as a row (--format json, csv). */
static int table_row(void *ctx, const char *stack, uint64_t self)
{
    const struct table_ctx *tc = ctx;
    union rt_val v[N_FOLDED_COLS];

    v[0].s = stack;
    v[1].u = self;
    rt_row(tc->out, tc->flags, v);
    return 0;
}

/* The stacks, as text or as a table. */
static int print_stacks(const struct flame_tree *t,
                        const struct report_flags *flags, FILE *out)
{
    struct table_ctx tc = { out, flags };
    int ret;

    if (flags->format == REPORT_TEXT) {
        return flame_tree_print_folded(t, out);
    }
    rt_begin(out, flags, "folded", folded_cols, N_FOLDED_COLS);
    ret = flame_tree_walk_folded(t, table_row, &tc);
    rt_end(out, flags);
    return ret;
}

static int run_folded(struct qtrace_reader *rd,
                      const struct report_flags *flags, FILE *out,
                      struct qtrace_err *err)
{
    const struct flame_opts o = { .keep_plt = flags->keep_plt,
                                  .per_stream = flags->per_stream };
    struct flame_tree t;
    int ret;

    ret = flame_tree_build(&t, rd, &o, "report", err);
    if (ret == FLAME_EMPTY) {
        return rt_none(out, flags, "folded", folded_cols, N_FOLDED_COLS,
                       "folded: none (no func_entry records; record them "
                       "with -e 'func_*')");
    }
    if (ret == -ENOMEM) {
        return ret;
    }
    /* What was read is printed, even when the trace stops early. */
    print_stacks(&t, flags, out);
    flame_tree_fini(&t);
    return ret < 0 ? ret : 0;
}

const struct report_section report_folded = {
    .option = "folded",
    .help = "call stacks, folded, for flame graphs (only if asked)",
    .run = run_folded,
    .on_request = true,
};
