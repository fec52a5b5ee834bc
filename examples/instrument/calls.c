/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Example instrumentation library: function calls per function, from the
 * host's function entry and exit callbacks (qtrace's call tracker).
 *
 * Arguments (instr-arg=): out=FILE (default stderr).
 *
 * Output, at exit, one line per function entered, most called first:
 *   func NAME calls N tail N signal N returns N unwound N replaced N
 *        end N depth MIN-MAX
 * (one line) where NAME is the symbol or 0xADDR, calls/tail/signal count
 * entries by kind, returns/unwound/replaced/end exits by kind, and
 * MIN-MAX the depths it ran at. Needs API 1.1.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qtrace/instrument.h"
#include "out-file.h"

QTRACE_INSTR_DECLARE();

#define MAX_VCPUS 1024
#define SLOTS 4096              /* functions per vCPU; a power of two */
#define KINDS 4

struct func {
    uint64_t entry;             /* 0: free slot */
    const char *name;
    uint64_t entries[KINDS];    /* by QTRACE_INSTR_FUNC_CALL.. kind */
    uint64_t exits[KINDS];      /* by QTRACE_INSTR_FUNC_RETURN.. kind */
    uint32_t min_depth;
    uint32_t max_depth;
};

/*
 * One table per vCPU, written only by that vCPU's thread: no lock and no
 * atomic per call. Merged at exit.
 */
static struct func *tables[MAX_VCPUS];
static uint64_t full;           /* calls of functions past SLOTS */
static FILE *out;

static struct func *slot(unsigned int vcpu, uint64_t entry)
{
    struct func *t;
    size_t i, n;

    if (vcpu >= MAX_VCPUS) {
        return NULL;
    }
    if (!tables[vcpu]) {
        tables[vcpu] = calloc(SLOTS, sizeof(struct func));
        if (!tables[vcpu]) {
            return NULL;
        }
    }
    t = tables[vcpu];
    i = (size_t)((entry * 0x9e3779b97f4a7c15ull) >> 40) & (SLOTS - 1);
    for (n = 0; n < SLOTS; n++, i = (i + 1) & (SLOTS - 1)) {
        if (t[i].entry == entry) {
            return &t[i];
        }
        if (t[i].entry == 0) {
            t[i].entry = entry;
            t[i].min_depth = UINT32_MAX;
            return &t[i];
        }
    }
    __atomic_fetch_add(&full, 1, __ATOMIC_RELAXED);
    return NULL;
}

static void entered(unsigned int vcpu, const struct qtrace_instr_func *f,
                    void *data)
{
    struct func *fn = slot(vcpu, f->entry);

    (void)data;
    if (!fn) {
        return;
    }
    fn->name = f->name;
    fn->entries[f->kind % KINDS]++;
    if (f->depth < fn->min_depth) {
        fn->min_depth = f->depth;
    }
    if (f->depth > fn->max_depth) {
        fn->max_depth = f->depth;
    }
}

static void exited(unsigned int vcpu, const struct qtrace_instr_func *f,
                   void *data)
{
    struct func *fn = slot(vcpu, f->entry);

    (void)data;
    if (fn) {
        fn->exits[f->kind % KINDS]++;
    }
}

static uint64_t calls_of(const struct func *f)
{
    return f->entries[0] + f->entries[1] + f->entries[2];
}

static int by_calls(const void *a, const void *b)
{
    const struct func *x = a, *y = b;

    if (calls_of(x) != calls_of(y)) {
        return calls_of(x) > calls_of(y) ? -1 : 1;
    }
    return x->entry < y->entry ? -1 : x->entry > y->entry;
}

/* Adds vCPU table t into the merged table m of *n entries. */
static void merge(struct func *m, size_t *n, const struct func *t)
{
    size_t i, j, k;

    for (i = 0; i < SLOTS; i++) {
        if (!t[i].entry) {
            continue;
        }
        for (j = 0; j < *n && m[j].entry != t[i].entry; j++) {
        }
        if (j == *n) {
            m[(*n)++] = t[i];
            continue;
        }
        for (k = 0; k < KINDS; k++) {
            m[j].entries[k] += t[i].entries[k];
            m[j].exits[k] += t[i].exits[k];
        }
        m[j].name = m[j].name ? m[j].name : t[i].name;
        m[j].min_depth = t[i].min_depth < m[j].min_depth ?
                         t[i].min_depth : m[j].min_depth;
        m[j].max_depth = t[i].max_depth > m[j].max_depth ?
                         t[i].max_depth : m[j].max_depth;
    }
}

static void print_func(const struct func *f)
{
    char addr[32];

    snprintf(addr, sizeof(addr), "0x%llx", (unsigned long long)f->entry);
    fprintf(out, "func %s calls %llu tail %llu signal %llu returns %llu "
            "unwound %llu replaced %llu end %llu depth %u-%u\n",
            f->name ? f->name : addr,
            (unsigned long long)f->entries[QTRACE_INSTR_FUNC_CALL],
            (unsigned long long)f->entries[QTRACE_INSTR_FUNC_TAIL],
            (unsigned long long)f->entries[QTRACE_INSTR_FUNC_SIGNAL],
            (unsigned long long)f->exits[QTRACE_INSTR_FUNC_RETURN],
            (unsigned long long)f->exits[QTRACE_INSTR_FUNC_UNWOUND],
            (unsigned long long)f->exits[QTRACE_INSTR_FUNC_REPLACED],
            (unsigned long long)f->exits[QTRACE_INSTR_FUNC_END],
            f->min_depth == UINT32_MAX ? 0 : f->min_depth, f->max_depth);
}

int qtrace_instr_init(const struct qtrace_instr_host *h, int argc,
                      const char **argv, char *errmsg)
{
    int i, rc;

    for (i = 0; i < argc; i++) {
        if (strncmp(argv[i], "out=", 4) != 0) {
            snprintf(errmsg, QTRACE_INSTR_ERRMSG_MAX,
                     "unknown argument %s (known: out=FILE)", argv[i]);
            return 1;
        }
    }
    if (h->api_version < QTRACE_INSTR_API_VERSION) {
        snprintf(errmsg, QTRACE_INSTR_ERRMSG_MAX,
                 "needs instrumentation API 1.1 (function callbacks)");
        return 1;
    }
    rc = h->on_func_entry(h, entered, NULL);
    if (rc == QTRACE_INSTR_OK) {
        rc = h->on_func_exit(h, exited, NULL);
    }
    if (rc != QTRACE_INSTR_OK) {
        snprintf(errmsg, QTRACE_INSTR_ERRMSG_MAX,
                 "no function calls on %s (%d)", h->target, rc);
        return 1;
    }
    out = example_out_open(argc, argv);
    if (!out) {
        snprintf(errmsg, QTRACE_INSTR_ERRMSG_MAX, "cannot open out=");
        return 1;
    }
    return 0;
}

void qtrace_instr_fini(void)
{
    struct func *merged;
    size_t n = 0, n_tables = 0, i;

    for (i = 0; i < MAX_VCPUS; i++) {
        n_tables += tables[i] != NULL;
    }
    merged = calloc((n_tables ? n_tables : 1) * SLOTS, sizeof(*merged));
    if (!merged) {
        return;
    }
    for (i = 0; i < MAX_VCPUS; i++) {
        if (tables[i]) {
            merge(merged, &n, tables[i]);
        }
    }
    qsort(merged, n, sizeof(*merged), by_calls);
    for (i = 0; i < n; i++) {
        print_func(&merged[i]);
    }
    if (full) {
        fprintf(out, "functions past the table: %llu calls not counted\n",
                (unsigned long long)full);
    }
    free(merged);
    example_out_close(out);
}
