/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * qtrace coverage --format text: per module and per function, the
 * blocks, instructions and bytes of code that ran, and for a function
 * the share of its symbol's size that ran. Instructions are found by
 * address (insn-walk.h): an instruction in two translations counts once.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "coverage-text.h"
#include "insn-walk.h"

/* One instruction that ran. */
struct insn {
    uint64_t addr;
    uint32_t len;
    uint64_t execs;
};

/* One function's (or a module's unnamed code's) counts. */
struct fstat {
    uint64_t start;                 /* symbol start, or sort key */
    const char *name;               /* owned by the symbol table */
    size_t mod;                     /* index in cov mods, n_mods: none */
    uint64_t size;                  /* symbol size, 0: no symbol */
    uint64_t blocks, insns, bytes, execs;
};

struct mstat {
    uint64_t blocks, insns, bytes, funcs;
};

static int by_addr(const void *a, const void *b)
{
    const struct insn *x = a, *y = b;

    return (x->addr > y->addr) - (x->addr < y->addr);
}

/* Every instruction that ran, once, sorted by address. */
static struct insn *all_insns(const struct cov *c, size_t *n)
{
    struct insn_walk *w = insn_walk_new(c->arch);
    struct insn *v = NULL;
    size_t cap = 0, k = 0, i, j, m;
    uint32_t offs[4096];

    for (i = 0; w && i < c->n_blocks; i++) {
        const struct cov_block *b = &c->blocks[i];

        m = insn_walk_block(w, b->code, b->code_len, b->pc, b->size,
                            b->n_insns, offs, sizeof(offs) / sizeof(*offs));
        if (k + m > cap) {
            struct insn *more;

            cap = (k + m) * 2;
            more = realloc(v, cap * sizeof(*v));
            if (!more) {
                break;
            }
            v = more;
        }
        for (j = 0; j < m; j++) {
            uint32_t end = j + 1 < m ? offs[j + 1] : b->size;

            v[k++] = (struct insn){ b->pc + offs[j], end - offs[j],
                                    b->execs };
        }
    }
    insn_walk_free(w);
    if (!v) {
        *n = 0;
        return NULL;
    }
    qsort(v, k, sizeof(*v), by_addr);
    for (i = 0, m = 0; i < k; i++) {
        if (m > 0 && v[m - 1].addr == v[i].addr) {
            v[m - 1].execs += v[i].execs;
            v[m - 1].len = v[i].len > v[m - 1].len ? v[i].len : v[m - 1].len;
        } else {
            v[m++] = v[i];
        }
    }
    *n = m;
    return v;
}

static size_t module_index(const struct cov *c, uint64_t addr)
{
    const struct cov_module *mod = cov_module_of(c, addr, NULL);

    return mod ? (size_t)(mod - c->mods) : c->n_mods;
}

/* The stat of addr's function, made when first met. */
static struct fstat *stat_of(GHashTable *funcs, const struct cov *c,
                             const struct qtrace_symbols *syms,
                             uint64_t addr)
{
    uint64_t off = 0, size = 0;
    const char *name = qtrace_symbols_lookup_sized(syms, addr, &off, &size);
    size_t mod = module_index(c, addr);
    /* Unnamed code of a module is one row, keyed past every address. */
    uint64_t key = name ? addr - off : UINT64_MAX - mod;
    struct fstat *f = g_hash_table_lookup(funcs, &key);

    if (!f) {
        f = g_new0(struct fstat, 1);
        f->start = key;
        f->name = name;
        f->mod = mod;
        f->size = name ? size : 0;
        g_hash_table_insert(funcs, &f->start, f);
    }
    return f;
}

static const char *module_name(const struct cov *c, size_t mod)
{
    const char *slash;

    if (mod >= c->n_mods) {
        return "(no module)";
    }
    slash = strrchr(c->mods[mod].path, '/');
    return slash ? slash + 1 : c->mods[mod].path;
}

static gint by_module_start(gconstpointer a, gconstpointer b)
{
    const struct fstat *x = *(const struct fstat *const *)a;
    const struct fstat *y = *(const struct fstat *const *)b;

    if (x->mod != y->mod) {
        return x->mod < y->mod ? -1 : 1;
    }
    return (x->start > y->start) - (x->start < y->start);
}

static void print_modules(FILE *out, const struct cov *c,
                          const struct mstat *ms)
{
    size_t m;

    fprintf(out, "modules:\n%12s %12s %12s %10s  %s\n", "BLOCKS", "INSNS",
            "BYTES", "FUNCS", "MODULE");
    for (m = 0; m <= c->n_mods; m++) {
        if (ms[m].blocks == 0 && ms[m].insns == 0) {
            continue;
        }
        fprintf(out, "%12" PRIu64 " %12" PRIu64 " %12" PRIu64 " %10" PRIu64
                "  %s\n", ms[m].blocks, ms[m].insns, ms[m].bytes,
                ms[m].funcs, module_name(c, m));
    }
}

static void print_functions(FILE *out, const struct cov *c, GPtrArray *fs)
{
    guint i;

    fprintf(out, "functions:\n%12s %12s %12s %10s %7s %12s  %s\n", "BLOCKS",
            "INSNS", "BYTES", "SIZE", "COVER", "EXECS", "FUNCTION");
    for (i = 0; i < fs->len; i++) {
        const struct fstat *f = g_ptr_array_index(fs, i);
        char size[24] = "-", cover[16] = "-";

        if (f->size) {
            snprintf(size, sizeof(size), "%" PRIu64, f->size);
            snprintf(cover, sizeof(cover), "%.1f%%", 100.0 *
                     (double)(f->bytes < f->size ? f->bytes : f->size) /
                     (double)f->size);
        }
        fprintf(out, "%12" PRIu64 " %12" PRIu64 " %12" PRIu64 " %10s %7s %12"
                PRIu64 "  %s (%s)\n", f->blocks, f->insns, f->bytes, size,
                cover, f->execs, f->name ? f->name : "(no symbol)",
                module_name(c, f->mod));
    }
}

int coverage_text_print(const struct cov *c,
                        const struct qtrace_symbols *syms, FILE *out)
{
    GHashTable *funcs = g_hash_table_new_full(g_int64_hash, g_int64_equal,
                                              NULL, g_free);
    struct mstat *ms = calloc(c->n_mods + 1, sizeof(*ms));
    size_t n = 0, i;
    struct insn *v = all_insns(c, &n);
    uint64_t insns = 0, bytes = 0;
    GPtrArray *order = g_ptr_array_new();
    GHashTableIter it;
    gpointer key, value;

    if (!ms || (!v && c->n_blocks)) {
        free(ms);
        free(v);
        g_hash_table_destroy(funcs);
        g_ptr_array_free(order, TRUE);
        return -1;
    }
    for (i = 0; i < n; i++) {
        struct fstat *f = stat_of(funcs, c, syms, v[i].addr);

        f->insns++;
        f->bytes += v[i].len;
        ms[f->mod].insns++;
        ms[f->mod].bytes += v[i].len;
        insns++;
        bytes += v[i].len;
    }
    for (i = 0; i < c->n_blocks; i++) {
        struct fstat *f = stat_of(funcs, c, syms, c->blocks[i].pc);

        f->blocks++;
        f->execs += c->blocks[i].execs;
        ms[f->mod].blocks++;
    }
    g_hash_table_iter_init(&it, funcs);
    while (g_hash_table_iter_next(&it, &key, &value)) {
        struct fstat *f = value;

        ms[f->mod].funcs += f->name != NULL;
        g_ptr_array_add(order, f);
    }
    g_ptr_array_sort(order, by_module_start);
    fprintf(out, "coverage (%s, %s mode, counts from %s): %zu blocks, %"
            PRIu64 " instructions, %" PRIu64 " bytes\n", c->arch,
            c->system ? "system" : "user",
            c->from_tb_count ? "tb_count" : "exec_tb", c->n_blocks, insns,
            bytes);
    print_modules(out, c, ms);
    print_functions(out, c, order);
    g_ptr_array_free(order, TRUE);
    g_hash_table_destroy(funcs);
    free(ms);
    free(v);
    return 0;
}
