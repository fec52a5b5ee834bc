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
#include "report.h"

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
        fprintf(out, "folded: none (no func_entry records; record them "
                "with -e 'func_*')\n");
        return REPORT_EMPTY;
    }
    if (ret == -ENOMEM) {
        return ret;
    }
    /* What was read is printed, even when the trace stops early. */
    flame_tree_print_folded(&t, out);
    flame_tree_fini(&t);
    return ret < 0 ? ret : 0;
}

const struct report_section report_folded = {
    .option = "folded",
    .help = "call stacks, folded, for flame graphs (only if asked)",
    .run = run_folded,
    .on_request = true,
};
