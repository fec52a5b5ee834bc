/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Example instrumentation library: code coverage. Counts the executions
 * of every translated block (one callback per block), and at exit turns
 * them into executions per guest instruction, then:
 *   - lcov=FILE: an lcov tracefile (genhtml, lcov --summary) of the
 *     source lines, from the DWARF line table of the guest's ELF file
 *     (libdw): each line the table gives code for, with the executions
 *     of its most executed instruction, and each function (DWARF
 *     subprogram) with the executions of its first instruction;
 *   - out=FILE (default stderr, when lcov= is not given): per address,
 *     "insn 0xADDR N" for each executed instruction, then per function,
 *     "func NAME insns N execs N" (instructions of it that ran, and how
 *     often its first one did), from the host's symbols: works without
 *     DWARF, and in system mode ("?" for code no symbol covers).
 *
 * A block counts as run whole when it starts: an instruction that
 * faults in the middle of a block makes the rest count too.
 *
 * Arguments (instr-arg=): lcov=FILE, out=FILE, elf=PATH (the ELF file
 * whose DWARF gives the lines; user mode default: the program, through
 * the host's image call), bias=N (run-time minus ELF address of elf=,
 * default 0).
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qtrace/instrument.h"
#include "coverage-lines.h"
#include "out-file.h"

QTRACE_INSTR_DECLARE();

/* One translation of a block; QEMU may translate the same code again. */
struct block {
    uint64_t execs;             /* atomic: vCPUs run it concurrently */
    struct block *next;
    uint32_t n_insns;
    uint64_t pc[];              /* each instruction's address */
};

/* An instruction and how often it ran, at exit. */
struct insn {
    uint64_t pc;
    uint64_t execs;
};

static const struct qtrace_instr_host *host;
static struct block *blocks;
static pthread_mutex_t blocks_lock = PTHREAD_MUTEX_INITIALIZER;
static const char *lcov_path, *out_path, *elf_path;
static uint64_t elf_bias;

static void block_executed(unsigned int vcpu, void *udata)
{
    struct block *b = udata;

    (void)vcpu;
    __atomic_fetch_add(&b->execs, 1, __ATOMIC_RELAXED);
}

static void block_translated(struct qtrace_instr_tb *tb, void *data)
{
    uint32_t i, n = host->tb_n_insns(tb);
    struct block *b = calloc(1, sizeof(*b) + n * sizeof(b->pc[0]));

    (void)data;
    if (!b) {
        return;
    }
    b->n_insns = n;
    for (i = 0; i < n; i++) {
        b->pc[i] = host->insn_vaddr(tb, i);
    }
    /* Translation may run on several threads at once (system mode). */
    pthread_mutex_lock(&blocks_lock);
    b->next = blocks;
    blocks = b;
    pthread_mutex_unlock(&blocks_lock);
    host->exec_tb(host, tb, 0, block_executed, b);
}

/* ---- at exit: executions per instruction ---- */

static int by_pc(const void *a, const void *b)
{
    const struct insn *x = a, *y = b;

    return x->pc < y->pc ? -1 : x->pc > y->pc;
}

/*
 * Every executed instruction once, sorted, with the executions of all
 * the translations holding it added up. Sets *n.
 */
static struct insn *executed_insns(size_t *n)
{
    struct block *b;
    struct insn *v;
    size_t total = 0, i, k;
    uint32_t j;

    for (b = blocks; b; b = b->next) {
        total += b->execs ? b->n_insns : 0;
    }
    v = malloc((total ? total : 1) * sizeof(*v));
    if (!v) {
        *n = 0;
        return NULL;
    }
    for (b = blocks, i = 0; b; b = b->next) {
        for (j = 0; b->execs && j < b->n_insns; j++) {
            v[i++] = (struct insn){ .pc = b->pc[j], .execs = b->execs };
        }
    }
    qsort(v, total, sizeof(*v), by_pc);
    for (i = 0, k = 0; i < total; i++) {
        if (k > 0 && v[k - 1].pc == v[i].pc) {
            v[k - 1].execs += v[i].execs;
        } else {
            v[k++] = v[i];
        }
    }
    *n = k;
    return v;
}

static const struct insn *find_insn(const struct insn *v, size_t n,
                                    uint64_t pc)
{
    return bsearch(&(struct insn){ .pc = pc }, v, n, sizeof(*v), by_pc);
}

/* ---- plain output: addresses and functions ---- */

static void write_plain(FILE *f, const struct insn *v, size_t n)
{
    const char *prev = NULL;
    uint64_t insns = 0, first = 0;
    size_t i;

    for (i = 0; i < n; i++) {
        fprintf(f, "insn 0x%" PRIx64 " %" PRIu64 "\n", v[i].pc, v[i].execs);
    }
    /* Instructions sorted by address: a function's are consecutive. */
    for (i = 0; i <= n; i++) {
        const char *name = NULL;
        uint64_t offset = 1;

        if (i < n) {
            host->symbol(v[i].pc, &name, &offset);
            name = name ? name : "?";
        }
        if (prev && (i == n || strcmp(name, prev) != 0)) {
            fprintf(f, "func %s insns %" PRIu64 " execs %" PRIu64 "\n",
                    prev, insns, first);
            insns = 0;
            first = 0;
        }
        if (i < n) {
            insns++;
            if (offset == 0) {
                first = v[i].execs;
            }
            prev = name;
        }
    }
}

/* ---- lcov tracefile ---- */

/* A source line with code, and its executions. */
struct line_hit {
    const char *file;
    int line;
    uint64_t execs;
};

static int by_file_line(const void *a, const void *b)
{
    const struct line_hit *x = a, *y = b;
    int c = strcmp(x->file, y->file);

    return c ? c : (x->line > y->line) - (x->line < y->line);
}

/*
 * Every line the table has code for, with the executions of its most
 * executed instruction (0 if none ran). Sets *n.
 */
static struct line_hit *line_hits(const struct line_table *t,
                                  const struct insn *v, size_t n_insns,
                                  uint64_t bias, size_t *n)
{
    struct line_hit *h = malloc((t->n_ranges ? t->n_ranges : 1) *
                                sizeof(*h));
    size_t i, k;

    if (!h) {
        *n = 0;
        return NULL;
    }
    for (i = 0; i < t->n_ranges; i++) {
        h[i] = (struct line_hit){ .file = t->ranges[i].file,
                                  .line = t->ranges[i].line };
    }
    for (i = 0; i < n_insns; i++) {
        const struct line_range *r = line_table_find(t, v[i].pc - bias);

        if (r && h[r - t->ranges].execs < v[i].execs) {
            h[r - t->ranges].execs = v[i].execs;
        }
    }
    qsort(h, t->n_ranges, sizeof(*h), by_file_line);
    for (i = 0, k = 0; i < t->n_ranges; i++) {
        if (k > 0 && h[k - 1].line == h[i].line &&
            strcmp(h[k - 1].file, h[i].file) == 0) {
            if (h[k - 1].execs < h[i].execs) {
                h[k - 1].execs = h[i].execs;
            }
        } else {
            h[k++] = h[i];
        }
    }
    *n = k;
    return h;
}

static void write_funcs(FILE *f, const struct line_table *t,
                        const char *file, const struct insn *v, size_t n,
                        uint64_t bias)
{
    size_t i, found = 0, hit = 0;

    for (i = 0; i < t->n_funcs; i++) {
        if (strcmp(t->funcs[i].file, file) == 0) {
            fprintf(f, "FN:%d,%s\n", t->funcs[i].line, t->funcs[i].name);
        }
    }
    for (i = 0; i < t->n_funcs; i++) {
        const struct insn *in;

        if (strcmp(t->funcs[i].file, file) != 0) {
            continue;
        }
        in = find_insn(v, n, t->funcs[i].entry + bias);
        fprintf(f, "FNDA:%" PRIu64 ",%s\n", in ? in->execs : 0,
                t->funcs[i].name);
        found++;
        hit += in != NULL;
    }
    fprintf(f, "FNF:%zu\nFNH:%zu\n", found, hit);
}

/* One record per source file: functions, then lines. */
static void write_lcov(FILE *f, const struct line_table *t,
                       const struct insn *v, size_t n, uint64_t bias)
{
    size_t n_lines, i, start;
    struct line_hit *h = line_hits(t, v, n, bias, &n_lines);

    fprintf(f, "TN:\n");
    for (start = 0; h && start < n_lines;) {
        size_t found = 0, hit = 0;

        fprintf(f, "SF:%s\n", h[start].file);
        write_funcs(f, t, h[start].file, v, n, bias);
        for (i = start; i < n_lines &&
             strcmp(h[i].file, h[start].file) == 0; i++) {
            fprintf(f, "DA:%d,%" PRIu64 "\n", h[i].line, h[i].execs);
            found++;
            hit += h[i].execs > 0;
        }
        fprintf(f, "LF:%zu\nLH:%zu\nend_of_record\n", found, hit);
        start = i;
    }
    free(h);
}

/*
 * The ELF file whose lines to use: elf= as given, or the one holding the
 * first executed instruction that lies in one (user mode).
 */
static const char *lines_file(const struct insn *v, size_t n,
                              uint64_t *bias)
{
    const char *path = NULL;
    size_t i;

    *bias = elf_bias;
    if (elf_path) {
        return elf_path;
    }
    for (i = 0; i < n; i++) {
        if (host->api_version >= QTRACE_INSTR_API_VERSION &&
            host->image(v[i].pc, &path, bias) == QTRACE_INSTR_OK) {
            return path;
        }
    }
    return NULL;
}

static void write_lcov_file(const struct insn *v, size_t n)
{
    struct line_table t;
    uint64_t bias;
    const char *elf = lines_file(v, n, &bias);
    FILE *f;

    if (!elf || line_table_read(&t, elf) < 0) {
        fprintf(stderr, "coverage: lcov=%s: no DWARF line table in %s\n",
                lcov_path, elf ? elf : "the guest (give elf=PATH)");
        return;
    }
    f = fopen(lcov_path, "w");
    if (f) {
        write_lcov(f, &t, v, n, bias);
        fclose(f);
    } else {
        perror(lcov_path);
    }
    line_table_free(&t);
}

/* ---- set-up ---- */

int qtrace_instr_init(const struct qtrace_instr_host *h, int argc,
                      const char **argv, char *errmsg)
{
    int i;

    host = h;
    for (i = 0; i < argc; i++) {
        if (strncmp(argv[i], "lcov=", 5) == 0) {
            lcov_path = argv[i] + 5;
        } else if (strncmp(argv[i], "out=", 4) == 0) {
            out_path = argv[i] + 4;
        } else if (strncmp(argv[i], "elf=", 4) == 0) {
            elf_path = argv[i] + 4;
        } else if (strncmp(argv[i], "bias=", 5) == 0) {
            elf_bias = strtoull(argv[i] + 5, NULL, 0);
        } else {
            snprintf(errmsg, QTRACE_INSTR_ERRMSG_MAX, "unknown argument %s "
                     "(known: lcov=FILE, out=FILE, elf=PATH, bias=N)",
                     argv[i]);
            return 1;
        }
    }
    return h->on_tb_trans(h, block_translated, NULL);
}

void qtrace_instr_fini(void)
{
    size_t n;
    struct insn *v = executed_insns(&n);
    FILE *out;

    if (!v) {
        return;
    }
    if (lcov_path) {
        write_lcov_file(v, n);
    }
    if (out_path || !lcov_path) {
        out = out_path ? fopen(out_path, "w") : stderr;
        if (out) {
            write_plain(out, v, n);
            example_out_close(out);
        }
    }
    free(v);
}
