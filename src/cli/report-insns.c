/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * qtrace report --insns: the instruction mix of the run, each executed
 * instruction counted as often as its block ran, by mnemonic and by
 * class: the groups capstone puts it in (jump, call, ret, int,
 * privilege, branch_relative, and the architecture's: sse2, fpu, neon
 * ...); an instruction in no group is "other". Mode groups (x86's
 * mode64, not64bitmode) say nothing of the instruction and are left out.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "coverage.h"
#include "disasm.h"
#include "insn-walk.h"
#include "report-table.h"
#include "report.h"

static const struct rt_col in_cols[] = {
    { "by", RT_STR }, { "name", RT_STR }, { "count", RT_U64 },
    { "share", RT_F64 },
};

#define N_IN_COLS (sizeof(in_cols) / sizeof(in_cols[0]))

#define MAX_GROUPS 8

struct mix {
    GHashTable *mnems;              /* mnemonic -> uint64_t count */
    GHashTable *classes;            /* group name -> uint64_t count */
    uint64_t total;                 /* instructions executed */
};

static void add(GHashTable *t, const char *name, uint64_t n)
{
    uint64_t *c = g_hash_table_lookup(t, name);

    if (!c) {
        c = g_new0(uint64_t, 1);
        g_hash_table_insert(t, g_strdup(name), c);
    }
    *c += n;
}

static bool is_mode_group(const char *name)
{
    return strstr(name, "mode") != NULL;
}

static void count_block(struct mix *m, struct insn_walk *w,
                        const struct cov_block *b)
{
    uint32_t offs[4096];
    size_t n = insn_walk_block(w, b->code, b->code_len, b->pc, b->size,
                               b->n_insns, offs, 4096), i, g, n_groups;
    struct disasm *d = insn_walk_decoder(w);

    for (i = 0; i < n; i++) {
        const char *groups[MAX_GROUPS];
        char mnem[64];
        bool classed = false;

        n_groups = 0;
        if (offs[i] >= b->code_len ||
            !disasm_insn_groups(d, b->code + offs[i], b->code_len - offs[i],
                                b->pc + offs[i], insn_walk_thumb(w), mnem,
                                sizeof(mnem), groups, MAX_GROUPS,
                                &n_groups)) {
            snprintf(mnem, sizeof(mnem), "(bad)");
        }
        add(m->mnems, mnem, b->execs);
        for (g = 0; g < n_groups; g++) {
            if (!is_mode_group(groups[g])) {
                add(m->classes, groups[g], b->execs);
                classed = true;
            }
        }
        if (!classed) {
            add(m->classes, "other", b->execs);
        }
        m->total += b->execs;
    }
}

struct row {
    const char *name;
    uint64_t count;
};

static gint by_count(gconstpointer a, gconstpointer b)
{
    const struct row *x = a, *y = b;

    if (x->count != y->count) {
        return x->count > y->count ? -1 : 1;
    }
    return strcmp(x->name, y->name);
}

/* One table: t's rows, most frequent first, at most top (0: all). */
static void print_table(FILE *out, const struct report_flags *flags,
                        GHashTable *t, const char *by, uint64_t total)
{
    GArray *rows = g_array_new(FALSE, FALSE, sizeof(struct row));
    GHashTableIter it;
    gpointer key, value;
    size_t i, n;

    g_hash_table_iter_init(&it, t);
    while (g_hash_table_iter_next(&it, &key, &value)) {
        struct row r = { key, *(uint64_t *)value };

        g_array_append_val(rows, r);
    }
    g_array_sort(rows, by_count);
    n = flags->top_set && flags->top && flags->top < rows->len ? flags->top
                                                               : rows->len;
    if (flags->format == REPORT_TEXT) {
        fprintf(out, "%s:\n%14s %8s  %s\n", by, "COUNT", "SHARE",
                strcmp(by, "mnemonic") == 0 ? "MNEMONIC" : "CLASS");
    }
    for (i = 0; i < n; i++) {
        const struct row *r = &g_array_index(rows, struct row, i);
        double share = total ? (double)r->count / (double)total : 0;
        union rt_val v[N_IN_COLS];

        if (flags->format == REPORT_TEXT) {
            fprintf(out, "%14" PRIu64 " %7.2f%%  %s\n", r->count,
                    100.0 * share, r->name);
            continue;
        }
        v[0].s = by;
        v[1].s = r->name;
        v[2].u = r->count;
        v[3].f = share;
        rt_row(out, flags, v);
    }
    g_array_free(rows, TRUE);
}

static int print_mix(FILE *out, const struct report_flags *flags,
                     const struct cov *c)
{
    struct insn_walk *w = insn_walk_new_detail(c->arch);
    struct mix m = { NULL, NULL, 0 };
    size_t i;

    if (!w) {
        return -ENOMEM;
    }
    m.mnems = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
                                    g_free);
    m.classes = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
                                      g_free);
    for (i = 0; i < c->n_blocks; i++) {
        count_block(&m, w, &c->blocks[i]);
    }
    if (flags->format == REPORT_TEXT) {
        fprintf(out, "instructions: %" PRIu64 " executed (%s, counts from "
                "%s)\n", m.total, c->arch, c->from_tb_count ? "tb_count" :
                "exec_tb");
    } else {
        rt_begin(out, flags, "insns", in_cols, N_IN_COLS);
    }
    print_table(out, flags, m.mnems, "mnemonic", m.total);
    print_table(out, flags, m.classes, "class", m.total);
    if (flags->format != REPORT_TEXT) {
        rt_end(out, flags);
    }
    g_hash_table_destroy(m.mnems);
    g_hash_table_destroy(m.classes);
    insn_walk_free(w);
    return 0;
}

static int run_insns(struct qtrace_reader *rd,
                     const struct report_flags *flags, FILE *out,
                     struct qtrace_err *err)
{
    const char *arch = qtrace_reader_meta(rd, "arch");
    struct disasm *probe = disasm_new(arch ? arch : "unknown");
    char why[160];
    struct cov c;
    int ret, r;

    disasm_free(probe);
    if (!probe) {
        snprintf(why, sizeof(why), "insns: none (no disassembler for %s "
                 "in this capstone)", arch ? arch : "an unknown target");
        return rt_none(out, flags, "insns", in_cols, N_IN_COLS, why);
    }
    ret = cov_collect(&c, rd, err);
    if (ret == -ENOMEM) {
        cov_fini(&c);
        return ret;
    }
    if (c.n_blocks == 0) {
        r = rt_none(out, flags, "insns", in_cols, N_IN_COLS,
                    "insns: none (no exec_tb or tb_count records with "
                    "their tb_trans; record them with -e exec_tb)");
    } else {
        r = print_mix(out, flags, &c);
        if (r < 0) {
            qtrace_err_set(err, "%s", strerror(ENOMEM));
        }
    }
    cov_fini(&c);
    return ret < 0 ? ret : r;
}

const struct report_section report_insns = {
    .option = "insns",
    .help = "instruction mix: executions by mnemonic and by class",
    .run = run_insns,
};
