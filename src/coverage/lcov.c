/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The lcov writer (coverage.h): the tracefile format of lcov's geninfo
 * (man geninfo, "TRACEFILE FORMAT"), one record per source file:
 *
 *   TN:
 *   SF:<absolute path of the source file>
 *   FN:<declaration line>,<function>       one per function
 *   FNDA:<executions of its entry>,<function>
 *   FNF:<functions>  FNH:<functions entered>
 *   DA:<line>,<executions>                 one per line with code
 *   LF:<lines with code>  LH:<lines executed>
 *   end_of_record
 *
 * A line's executions are those of its most executed instruction, as
 * gcov counts a line (a block counts as run whole when it starts).
 * Executions per address come from the blocks as a step function: each
 * block adds its executions over its bytes.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "coverage.h"
#include "lines.h"

/* [start, end) executed execs times (ELF addresses of one module). */
struct step {
    uint64_t start, end;
    uint64_t execs;
};

struct edge {
    uint64_t addr;
    int64_t delta;                  /* executions starting (+), ending (-) */
};

struct hit {
    const char *file;
    int line;
    uint64_t execs;
};

static int by_addr(const void *a, const void *b)
{
    const struct edge *x = a, *y = b;

    return (x->addr > y->addr) - (x->addr < y->addr);
}

/* The module's executions per address, as disjoint steps. */
static struct step *steps_of(const struct cov *c,
                             const struct cov_module *mod, size_t *n)
{
    struct edge *e = malloc((2 * c->n_blocks + 1) * sizeof(*e));
    struct step *s = malloc((2 * c->n_blocks + 1) * sizeof(*s));
    size_t i, k = 0, m = 0;
    int64_t level = 0;

    if (!e || !s) {
        free(e);
        free(s);
        return NULL;
    }
    for (i = 0; i < c->n_blocks; i++) {
        const struct cov_block *b = &c->blocks[i];

        if (cov_module_of(c, b->pc, NULL) != mod) {
            continue;
        }
        e[k++] = (struct edge){ b->pc - mod->bias, (int64_t)b->execs };
        e[k++] = (struct edge){ b->pc - mod->bias + b->size,
                                -(int64_t)b->execs };
    }
    qsort(e, k, sizeof(*e), by_addr);
    for (i = 0; i < k; i++) {
        level += e[i].delta;
        if (i + 1 < k && e[i + 1].addr == e[i].addr) {
            continue;
        }
        if (level > 0 && i + 1 < k) {
            s[m++] = (struct step){ e[i].addr, e[i + 1].addr,
                                    (uint64_t)level };
        }
    }
    free(e);
    *n = m;
    return s;
}

/* The most executions of any address in [start, end). */
static uint64_t max_in(const struct step *s, size_t n, uint64_t start,
                       uint64_t end)
{
    size_t lo = 0, hi = n;
    uint64_t most = 0;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;

        if (s[mid].end <= start) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    for (; lo < n && s[lo].start < end; lo++) {
        most = s[lo].execs > most ? s[lo].execs : most;
    }
    return most;
}

static int by_file_line(const void *a, const void *b)
{
    const struct hit *x = a, *y = b;
    int d = strcmp(x->file, y->file);

    return d ? d : (x->line > y->line) - (x->line < y->line);
}

/* Every line with code once, with its most executed instruction's. */
static struct hit *line_hits(const struct line_table *t,
                             const struct step *s, size_t n_steps,
                             size_t *n)
{
    struct hit *h = malloc((t->n_ranges ? t->n_ranges : 1) * sizeof(*h));
    size_t i, k = 0;

    if (!h) {
        return NULL;
    }
    for (i = 0; i < t->n_ranges; i++) {
        const struct line_range *r = &t->ranges[i];

        h[i] = (struct hit){ r->file, r->line,
                             max_in(s, n_steps, r->start, r->end) };
    }
    qsort(h, t->n_ranges, sizeof(*h), by_file_line);
    for (i = 0; i < t->n_ranges; i++) {
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

static void write_funcs(FILE *out, const struct line_table *t,
                        const char *file, const struct step *s, size_t n)
{
    size_t i, found = 0, hit = 0;

    for (i = 0; i < t->n_funcs; i++) {
        if (strcmp(t->funcs[i].file, file) == 0) {
            fprintf(out, "FN:%d,%s\n", t->funcs[i].line, t->funcs[i].name);
        }
    }
    for (i = 0; i < t->n_funcs; i++) {
        const struct line_func *f = &t->funcs[i];
        uint64_t execs;

        if (strcmp(f->file, file) != 0) {
            continue;
        }
        execs = max_in(s, n, f->entry, f->entry + 1);
        fprintf(out, "FNDA:%" PRIu64 ",%s\n", execs, f->name);
        found++;
        hit += execs > 0;
    }
    fprintf(out, "FNF:%zu\nFNH:%zu\n", found, hit);
}

static int write_module(FILE *out, const struct cov *c,
                        const struct cov_module *mod,
                        const struct line_table *t)
{
    size_t n_steps, n_hits, start, i;
    struct step *s = steps_of(c, mod, &n_steps);
    struct hit *h = s ? line_hits(t, s, n_steps, &n_hits) : NULL;

    if (!h) {
        free(s);
        return -ENOMEM;
    }
    for (start = 0; start < n_hits; start = i) {
        size_t found = 0, hit = 0;

        fprintf(out, "SF:%s\n", h[start].file);
        write_funcs(out, t, h[start].file, s, n_steps);
        for (i = start; i < n_hits &&
             strcmp(h[i].file, h[start].file) == 0; i++) {
            fprintf(out, "DA:%d,%" PRIu64 "\n", h[i].line, h[i].execs);
            found++;
            hit += h[i].execs > 0;
        }
        fprintf(out, "LF:%zu\nLH:%zu\nend_of_record\n", found, hit);
    }
    free(h);
    free(s);
    return 0;
}

static bool ran_code(const struct cov *c, const struct cov_module *mod)
{
    size_t i;

    for (i = 0; i < c->n_blocks; i++) {
        if (cov_module_of(c, c->blocks[i].pc, NULL) == mod) {
            return true;
        }
    }
    return false;
}

int cov_write_lcov(const struct cov *c, FILE *out, cov_warn_fn warn,
                   void *arg, struct qtrace_err *err)
{
    size_t i;
    int written = 0;

    fprintf(out, "TN:\n");
    for (i = 0; i < c->n_mods; i++) {
        const struct cov_module *mod = &c->mods[i];
        struct line_table t;
        char msg[4200];
        int ret;

        if (!mod->elf || !ran_code(c, mod)) {
            continue;
        }
        if (line_table_read(&t, mod->path) < 0) {
            snprintf(msg, sizeof(msg), "%s: no DWARF line table (its lines "
                     "are left out)", mod->path);
            if (warn) {
                warn(arg, msg);
            }
            continue;
        }
        ret = write_module(out, c, mod, &t);
        line_table_free(&t);
        if (ret < 0) {
            qtrace_err_set(err, "%s", strerror(-ret));
            return ret;
        }
        written++;
    }
    return written;
}
