/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * One pass over a trace into the coverage tables of coverage.h: the
 * translations (tb_trans), their executions (exec_tb, tb_count) and the
 * files mapped (image_map). Translations of the same code (same address
 * and size) share one block; a tb id maps to its block through a hash
 * table with a one-entry cache, since exec_tb records come in runs of
 * the same few blocks.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "cov-elf.h"
#include "coverage.h"

/* One translated block while collecting (executed or not). */
struct tblock {
    struct cov_block b;             /* execs unused here */
    uint64_t execs_tb;              /* from exec_tb records */
    uint64_t execs_count;           /* from tb_count records */
};

struct bkey {
    uint64_t pc;
    uint32_t size;
};

/* Where the arguments sit in the trace's catalog. */
struct args {
    const struct qtrace_event_desc *tt, *et, *tc, *im;
    int tt_pc, tt_tb, tt_size, tt_n, tt_code;
    int et_tb;
    int tc_tb, tc_count;
    int im_start, im_end, im_off, im_path;
};

struct collector {
    struct args a;
    struct tblock *all;             /* every translation's block */
    size_t n_all, cap_all;
    GHashTable *by_key;             /* struct bkey -> index + 1 */
    GHashTable *by_tb;              /* tb id -> index + 1 */
    GHashTable *pending;            /* tb id -> executions before its
                                       tb_trans (not the plugin's order) */
    GHashTable *by_path;            /* path -> module index + 1 */
    uint32_t last_tb;               /* the cache: last tb id looked up */
    size_t last_idx;                /* ... its index + 1, 0: none */
};

static guint bkey_hash(gconstpointer p)
{
    const struct bkey *k = p;

    return (guint)(k->pc ^ (k->pc >> 29) ^ ((uint64_t)k->size << 7));
}

static gboolean bkey_equal(gconstpointer a, gconstpointer b)
{
    const struct bkey *x = a, *y = b;

    return x->pc == y->pc && x->size == y->size;
}

/* An event is used only when it has every argument this file reads. */
static void map_args(struct args *a, const struct qtrace_catalog *cat)
{
    a->tt = qtrace_catalog_find(cat, "tb_trans");
    a->tt_pc = qtrace_event_arg(a->tt, "pc");
    a->tt_tb = qtrace_event_arg(a->tt, "tb");
    a->tt_size = qtrace_event_arg(a->tt, "size");
    a->tt_n = qtrace_event_arg(a->tt, "n_insns");
    a->tt_code = qtrace_event_arg(a->tt, "code");
    if (a->tt_pc < 0 || a->tt_tb < 0 || a->tt_size < 0) {
        a->tt = NULL;
    }
    a->et = qtrace_catalog_find(cat, "exec_tb");
    a->et_tb = qtrace_event_arg(a->et, "tb");
    if (a->et_tb < 0) {
        a->et = NULL;
    }
    a->tc = qtrace_catalog_find(cat, "tb_count");
    a->tc_tb = qtrace_event_arg(a->tc, "tb");
    a->tc_count = qtrace_event_arg(a->tc, "count");
    if (a->tc_tb < 0 || a->tc_count < 0) {
        a->tc = NULL;
    }
    a->im = qtrace_catalog_find(cat, "image_map");
    a->im_start = qtrace_event_arg(a->im, "start");
    a->im_end = qtrace_event_arg(a->im, "end");
    a->im_off = qtrace_event_arg(a->im, "offset");
    a->im_path = qtrace_event_arg(a->im, "path");
    if (a->im_start < 0 || a->im_end < 0 || a->im_off < 0 ||
        a->im_path < 0) {
        a->im = NULL;
    }
}

static void want(uint64_t *w, const struct qtrace_event_desc *ev)
{
    if (ev) {
        w[ev->id / 64] |= 1ull << (ev->id % 64);
    }
}

static int oom(struct qtrace_err *err)
{
    qtrace_err_set(err, "%s", strerror(ENOMEM));
    return -ENOMEM;
}

/* A tb_trans record: a new block, or one more tb id of a known one. */
static int add_translation(struct collector *co, struct qtrace_reader *rd,
                           const struct qtrace_record *rec,
                           struct qtrace_err *err)
{
    const struct args *a = &co->a;
    uint32_t tb = (uint32_t)qtrace_record_u64(rec, (unsigned)a->tt_tb);
    struct bkey key = {
        .pc = qtrace_record_u64(rec, (unsigned)a->tt_pc),
        .size = (uint32_t)qtrace_record_u64(rec, (unsigned)a->tt_size),
    };
    size_t idx = GPOINTER_TO_SIZE(g_hash_table_lookup(co->by_key, &key));
    const uint8_t *code = NULL;
    size_t len = 0;
    struct tblock *t;
    int ret;

    if (idx == 0) {
        if (a->tt_code >= 0) {
            code = qtrace_record_bytes(rec, (unsigned)a->tt_code, &len);
        }
        len = code ? (len < key.size ? len : key.size) : 0;
        ret = qtrace_reader_charge(rd, sizeof(*t) + 2 * sizeof(key) + 96 +
                                   len, err);
        if (ret < 0) {
            return ret;
        }
        if (co->n_all == co->cap_all) {
            size_t cap = co->cap_all ? co->cap_all * 2 : 1024;
            struct tblock *more = realloc(co->all, cap * sizeof(*more));

            if (!more) {
                return oom(err);
            }
            co->all = more;
            co->cap_all = cap;
        }
        t = &co->all[co->n_all];
        memset(t, 0, sizeof(*t));
        t->b.pc = key.pc;
        t->b.size = key.size;
        t->b.n_insns = a->tt_n >= 0 ?
            (uint32_t)qtrace_record_u64(rec, (unsigned)a->tt_n) : 0;
        t->b.code = len ? g_memdup2(code, len) : NULL;
        t->b.code_len = (uint32_t)len;
        idx = ++co->n_all;
        g_hash_table_insert(co->by_key, g_memdup2(&key, sizeof(key)),
                            GSIZE_TO_POINTER(idx));
    }
    g_hash_table_insert(co->by_tb, GUINT_TO_POINTER(tb),
                        GSIZE_TO_POINTER(idx));
    if (co->last_tb == tb) {
        co->last_idx = idx;
    }
    return 0;
}

/* The block of tb id tb, index + 1, or 0. */
static size_t block_of(struct collector *co, uint32_t tb)
{
    if (co->last_idx == 0 || co->last_tb != tb) {
        co->last_tb = tb;
        co->last_idx = GPOINTER_TO_SIZE(g_hash_table_lookup(
            co->by_tb, GUINT_TO_POINTER(tb)));
    }
    return co->last_idx;
}

static void count_execs(struct collector *co, uint32_t tb, uint64_t n,
                        bool from_tb)
{
    size_t idx = block_of(co, tb);
    uint64_t *p;

    if (idx == 0) {
        gpointer key = GUINT_TO_POINTER(tb);
        uint64_t *old = g_hash_table_lookup(co->pending, key);

        if (!old) {
            old = g_new0(uint64_t, 2);
            g_hash_table_insert(co->pending, key, old);
        }
        old[from_tb ? 0 : 1] += n;
        return;
    }
    p = from_tb ? &co->all[idx - 1].execs_tb : &co->all[idx - 1].execs_count;
    *p += n;
}

/* Cut [start, end) out of every segment of every module. */
static int unmap_range(struct cov *c, uint64_t start, uint64_t end)
{
    size_t m, i;

    for (m = 0; m < c->n_mods; m++) {
        struct cov_module *mod = &c->mods[m];

        for (i = 0; i < mod->n_segs; i++) {
            struct cov_segment *s = &mod->segs[i];
            struct cov_segment tail;
            struct cov_segment *more;

            if (s->end <= start || s->start >= end) {
                continue;
            }
            tail = (struct cov_segment){ end, s->end,
                                         s->offset + (end - s->start) };
            if (s->start < start) {
                s->end = start;
            } else {
                memmove(s, s + 1, (mod->n_segs - i - 1) * sizeof(*s));
                mod->n_segs--;
                i--;
            }
            if (tail.start < tail.end) {
                more = realloc(mod->segs, (mod->n_segs + 1) * sizeof(*more));
                if (!more) {
                    return -ENOMEM;
                }
                mod->segs = more;
                mod->segs[mod->n_segs++] = tail;
            }
        }
    }
    return 0;
}

/* An image_map record: its file's module gets the range. */
static int add_mapping(struct cov *c, struct collector *co,
                       const struct qtrace_record *rec,
                       struct qtrace_err *err)
{
    const struct args *a = &co->a;
    uint64_t start = qtrace_record_u64(rec, (unsigned)a->im_start);
    uint64_t end = qtrace_record_u64(rec, (unsigned)a->im_end);
    uint64_t off = qtrace_record_u64(rec, (unsigned)a->im_off);
    size_t len, idx;
    const uint8_t *p = qtrace_record_bytes(rec, (unsigned)a->im_path, &len);
    struct cov_module *mod;
    struct cov_segment *segs;
    char *path;

    if (!p || len == 0 || end <= start) {
        return 0;
    }
    path = g_strndup((const char *)p, len);
    if (unmap_range(c, start, end) < 0) {
        g_free(path);
        return oom(err);
    }
    idx = GPOINTER_TO_SIZE(g_hash_table_lookup(co->by_path, path));
    if (idx == 0) {
        struct cov_module *more = realloc(c->mods, (c->n_mods + 1) *
                                          sizeof(*more));

        if (!more) {
            g_free(path);
            return oom(err);
        }
        c->mods = more;
        memset(&c->mods[c->n_mods], 0, sizeof(*c->mods));
        c->mods[c->n_mods].path = strdup(path);
        idx = ++c->n_mods;
        g_hash_table_insert(co->by_path, path, GSIZE_TO_POINTER(idx));
    } else {
        g_free(path);
    }
    mod = &c->mods[idx - 1];
    if (!mod->path) {
        return oom(err);
    }
    segs = realloc(mod->segs, (mod->n_segs + 1) * sizeof(*segs));
    if (!segs) {
        return oom(err);
    }
    mod->segs = segs;
    mod->segs[mod->n_segs++] = (struct cov_segment){ start, end, off };
    return 0;
}

static int read_records(struct cov *c, struct collector *co,
                        struct qtrace_reader *rd, struct qtrace_err *err)
{
    const struct args *a = &co->a;
    struct qtrace_record rec;
    int ret;

    while ((ret = qtrace_reader_next(rd, &rec, err)) > 0) {
        if (rec.ev == a->et) {
            c->n_exec_tb++;
            count_execs(co, (uint32_t)qtrace_record_u64(&rec,
                        (unsigned)a->et_tb), 1, true);
        } else if (rec.ev == a->tt) {
            c->n_tb_trans++;
            ret = add_translation(co, rd, &rec, err);
        } else if (rec.ev == a->tc) {
            c->n_tb_count++;
            count_execs(co, (uint32_t)qtrace_record_u64(&rec,
                        (unsigned)a->tc_tb), qtrace_record_u64(&rec,
                        (unsigned)a->tc_count), false);
        } else if (rec.ev == a->im) {
            ret = add_mapping(c, co, &rec, err);
        }
        if (ret < 0) {
            return ret;
        }
    }
    return ret;
}

static int by_pc(const void *x, const void *y)
{
    const struct cov_block *a = x, *b = y;

    if (a->pc != b->pc) {
        return a->pc < b->pc ? -1 : 1;
    }
    return (a->size > b->size) - (a->size < b->size);
}

static int by_start(const void *x, const void *y)
{
    const struct cov_segment *a = x, *b = y;

    return (a->start > b->start) - (a->start < b->start);
}

/*
 * Executions of tb ids met before their tb_trans; then the executed
 * blocks, counted by exec_tb if the trace has any, else by tb_count.
 */
static int keep_executed(struct cov *c, struct collector *co)
{
    GHashTableIter it;
    gpointer key, value;
    size_t i, n = 0;

    g_hash_table_iter_init(&it, co->pending);
    while (g_hash_table_iter_next(&it, &key, &value)) {
        size_t idx = GPOINTER_TO_SIZE(g_hash_table_lookup(co->by_tb, key));
        const uint64_t *v = value;

        if (idx) {
            co->all[idx - 1].execs_tb += v[0];
            co->all[idx - 1].execs_count += v[1];
        } else {
            c->n_unknown += c->n_exec_tb ? v[0] : v[1];
        }
    }
    c->from_tb_count = c->n_exec_tb == 0 && c->n_tb_count > 0;
    c->blocks = calloc(co->n_all ? co->n_all : 1, sizeof(*c->blocks));
    if (!c->blocks) {
        return -ENOMEM;
    }
    for (i = 0; i < co->n_all; i++) {
        struct tblock *t = &co->all[i];
        uint64_t execs = c->from_tb_count ? t->execs_count : t->execs_tb;

        if (execs == 0) {
            g_free((void *)t->b.code);
            continue;
        }
        c->blocks[n] = t->b;
        c->blocks[n++].execs = execs;
    }
    c->n_blocks = n;
    qsort(c->blocks, n, sizeof(*c->blocks), by_pc);
    return 0;
}

/* Segments sorted; bias and entry of the files that are ELF files. */
static void finish_modules(struct cov *c)
{
    size_t m, k = 0;

    for (m = 0; m < c->n_mods; m++) {
        struct cov_module *mod = &c->mods[m];
        struct qtrace_err ignored;
        struct cov_elf e;

        if (mod->n_segs == 0) {
            free(mod->segs);
            free(mod->path);
            continue;
        }
        qsort(mod->segs, mod->n_segs, sizeof(*mod->segs), by_start);
        mod->entry = mod->segs[0].start;
        if (cov_elf_read(mod->path, false, &e, &ignored) == 0) {
            mod->elf = cov_elf_bias(&e, mod->segs[0].start,
                                    mod->segs[0].offset, &mod->bias);
            if (mod->elf) {
                mod->entry = e.entry + mod->bias;
            }
            cov_elf_fini(&e);
        }
        c->mods[k++] = *mod;
    }
    c->n_mods = k;
}

static void free_collector(struct collector *co, bool keep_code)
{
    size_t i;

    for (i = 0; !keep_code && i < co->n_all; i++) {
        g_free((void *)co->all[i].b.code);
    }
    free(co->all);
    if (co->by_key) {
        g_hash_table_destroy(co->by_key);
        g_hash_table_destroy(co->by_tb);
        g_hash_table_destroy(co->pending);
        g_hash_table_destroy(co->by_path);
    }
}

int cov_collect(struct cov *c, struct qtrace_reader *rd,
                struct qtrace_err *err)
{
    uint64_t w[QTRACE_MAX_EVENTS / 64] = { 0 };
    const char *arch = qtrace_reader_meta(rd, "arch");
    const char *mode = qtrace_reader_meta(rd, "mode");
    struct collector co;
    int ret, read_ret;

    memset(c, 0, sizeof(*c));
    memset(&co, 0, sizeof(co));
    c->arch = arch ? arch : "unknown";
    c->system = mode && strcmp(mode, "system") == 0;
    map_args(&co.a, qtrace_reader_catalog(rd));
    co.by_key = g_hash_table_new_full(bkey_hash, bkey_equal, g_free, NULL);
    co.by_tb = g_hash_table_new(NULL, NULL);
    co.pending = g_hash_table_new_full(NULL, NULL, NULL, g_free);
    co.by_path = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
                                       NULL);
    want(w, co.a.tt);
    want(w, co.a.et);
    want(w, co.a.tc);
    want(w, co.a.im);
    read_ret = qtrace_reader_select(rd, w, err);
    if (read_ret == 0) {
        read_ret = read_records(c, &co, rd, err);
        qtrace_reader_select(rd, NULL, NULL);
    }
    ret = keep_executed(c, &co);
    finish_modules(c);
    free_collector(&co, ret == 0);
    if (ret < 0) {
        return oom(err);
    }
    return read_ret < 0 ? read_ret : 0;
}

void cov_fini(struct cov *c)
{
    size_t i;

    for (i = 0; i < c->n_blocks; i++) {
        g_free((void *)c->blocks[i].code);
    }
    free(c->blocks);
    for (i = 0; i < c->n_mods; i++) {
        free(c->mods[i].path);
        free(c->mods[i].segs);
    }
    free(c->mods);
    memset(c, 0, sizeof(*c));
}
