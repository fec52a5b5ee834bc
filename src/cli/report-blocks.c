/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * qtrace report --blocks: the hottest blocks, by executions (exec_tb
 * records, else tb_count), each with its function and its instructions
 * disassembled from its tb_trans code. Translations of the same code
 * count as one block (src/coverage/ collects them).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "coverage.h"
#include "disasm.h"
#include "guest-syms.h"
#include "insn-walk.h"
#include "report-table.h"
#include "report.h"

/* --top's default for this section: a screenful. */
#define BLOCKS_TOP 20

static const struct rt_col bl_cols[] = {
    { "pc", RT_HEX }, { "function", RT_STR }, { "module", RT_STR },
    { "size", RT_U64 }, { "insns", RT_U64 }, { "execs", RT_U64 },
    { "insns_executed", RT_U64 }, { "share", RT_F64 }, { "disasm", RT_STR },
};

#define N_BL_COLS (sizeof(bl_cols) / sizeof(bl_cols[0]))

static int by_execs(const void *a, const void *b)
{
    const struct cov_block *x = *(const struct cov_block *const *)a;
    const struct cov_block *y = *(const struct cov_block *const *)b;

    if (x->execs != y->execs) {
        return x->execs > y->execs ? -1 : 1;
    }
    return (x->pc > y->pc) - (x->pc < y->pc);
}

/*
 * The block's instructions, "ADDR  TEXT" each, separated by sep, into
 * a new string; undecodable code as its bytes.
 */
static char *block_text(struct insn_walk *w, const struct cov_block *b,
                        const char *sep)
{
    GString *s = g_string_new(NULL);
    uint32_t offs[4096];
    size_t n = insn_walk_block(w, b->code, b->code_len, b->pc, b->size,
                               b->n_insns, offs, 4096), i, k;
    struct disasm *d = insn_walk_decoder(w);

    for (i = 0; i < n; i++) {
        uint32_t end = i + 1 < n ? offs[i + 1] : b->size;
        char text[160] = "";

        if (i) {
            g_string_append(s, sep);
        }
        g_string_append_printf(s, "0x%" PRIx64 "  ", b->pc + offs[i]);
        if (d && offs[i] < b->code_len &&
            disasm_insn(d, b->code + offs[i], b->code_len - offs[i],
                        b->pc + offs[i], insn_walk_thumb(w), text,
                        sizeof(text))) {
            g_string_append(s, text);
            continue;
        }
        /* No decoder (RISC-V in capstone 4): the bytes, as .byte. */
        g_string_append(s, ".byte");
        for (k = offs[i]; k < end && k < b->code_len; k++) {
            g_string_append_printf(s, "%s0x%02x", k == offs[i] ? " " : ",",
                                   b->code[k]);
        }
    }
    return g_string_free(s, FALSE);
}

static void print_row(FILE *out, const struct report_flags *flags,
                      const struct qtrace_symbols *syms,
                      const struct cov_block *b, const char *text,
                      uint64_t total)
{
    uint64_t executed = b->execs * b->n_insns;
    double share = total ? (double)executed / (double)total : 0;
    const char *module = qtrace_symbols_module(syms, b->pc, NULL);
    char name[640];
    union rt_val v[N_BL_COLS];

    guest_syms_fmt(syms, b->pc, false, name, sizeof(name));
    if (flags->format == REPORT_TEXT) {
        /* An address no file names is shown once. */
        fprintf(out, "%12" PRIu64 " %8" PRIu32 " %7.2f%%  0x%" PRIx64
                " %s%s%s%s\n                                    %s\n",
                b->execs, b->n_insns, 100.0 * share, b->pc,
                strncmp(name, "0x", 2) == 0 ? "" : name,
                module ? " (" : "", module ? module : "", module ? ")" : "",
                text);
    } else {
        v[0].u = b->pc;
        v[1].s = name;
        v[2].s = module;
        v[3].u = b->size;
        v[4].u = b->n_insns;
        v[5].u = b->execs;
        v[6].u = executed;
        v[7].f = share;
        v[8].s = text;
        rt_row(out, flags, v);
    }
}

static int print_blocks(FILE *out, const struct report_flags *flags,
                        const struct cov *c, struct qtrace_reader *rd)
{
    const struct cov_block **order = calloc(c->n_blocks,
                                            sizeof(*order));
    struct qtrace_symbols *syms = guest_syms_load(rd, "report");
    struct insn_walk *w = insn_walk_new(c->arch);
    size_t i, n = flags->top_set ? flags->top : BLOCKS_TOP;
    const char *sep = flags->format == REPORT_TEXT ?
        "\n                                    " : "; ";
    uint64_t total = 0;
    char **texts;

    if (!order || !syms || !w) {
        free(order);
        qtrace_symbols_free(syms);
        insn_walk_free(w);
        return -ENOMEM;
    }
    for (i = 0; i < c->n_blocks; i++) {
        order[i] = &c->blocks[i];
        total += c->blocks[i].execs * c->blocks[i].n_insns;
    }
    qsort(order, c->n_blocks, sizeof(*order), by_execs);
    if (n == 0 || n > c->n_blocks) {
        n = c->n_blocks;
    }
    texts = calloc(c->n_blocks, sizeof(*texts));
    if (!texts) {
        free(order);
        qtrace_symbols_free(syms);
        insn_walk_free(w);
        return -ENOMEM;
    }
    /*
     * Disassembled in address order (x86 modes are guessed from the
     * blocks before, insn-walk.h), shown by executions.
     */
    for (i = 0; i < n; i++) {
        texts[order[i] - c->blocks] = (char *)"";
    }
    for (i = 0; i < c->n_blocks; i++) {
        char *t = block_text(w, &c->blocks[i], sep);

        if (texts[i]) {
            texts[i] = t;
        } else {
            g_free(t);
        }
    }
    if (flags->format == REPORT_TEXT) {
        fprintf(out, "blocks: %zu executed, %" PRIu64 " instructions (the "
                "%zu most executed, counts from %s)\n%12s %8s %8s  %s\n",
                c->n_blocks, total, n, c->from_tb_count ? "tb_count"
                : "exec_tb", "EXECS", "INSNS", "SHARE", "BLOCK");
    } else {
        rt_begin(out, flags, "blocks", bl_cols, N_BL_COLS);
    }
    for (i = 0; i < n; i++) {
        print_row(out, flags, syms, order[i], texts[order[i] - c->blocks],
                  total);
    }
    if (flags->format != REPORT_TEXT) {
        rt_end(out, flags);
    }
    for (i = 0; i < c->n_blocks; i++) {
        if (texts[i]) {
            g_free(texts[i]);
        }
    }
    free(texts);
    free(order);
    qtrace_symbols_free(syms);
    insn_walk_free(w);
    return 0;
}

static int run_blocks(struct qtrace_reader *rd,
                      const struct report_flags *flags, FILE *out,
                      struct qtrace_err *err)
{
    struct cov c;
    int ret = cov_collect(&c, rd, err), r;

    if (ret == -ENOMEM) {
        cov_fini(&c);
        return ret;
    }
    if (c.n_blocks == 0) {
        r = rt_none(out, flags, "blocks", bl_cols, N_BL_COLS,
                    c.n_exec_tb == 0 && c.n_tb_count == 0 ?
                    "blocks: none (no exec_tb or tb_count records; record "
                    "them with -e exec_tb)" :
                    "blocks: none (no tb_trans records for the executed "
                    "blocks; record tb_trans too)");
    } else {
        r = print_blocks(out, flags, &c, rd);
        if (r < 0) {
            qtrace_err_set(err, "%s", strerror(ENOMEM));
        }
    }
    cov_fini(&c);
    return ret < 0 ? ret : r;
}

const struct report_section report_blocks = {
    .option = "blocks",
    .help = "the hottest blocks, disassembled, with their function",
    .run = run_blocks,
};
