/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * qtrace report --memory: the guest's memory accesses (mem_access
 * records) by 4 KiB page of their virtual address and by the function
 * of the instruction that made them: loads and stores, and their bytes.
 * Only the chunks holding mem_access (and image_map, for the names) are
 * read.
 */
#include <endian.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "guest-syms.h"
#include "qtrace/format.h"
#include "report-table.h"
#include "report.h"

#define PAGE_MASK (~(uint64_t)0xfff)

static const struct rt_col mem_cols[] = {
    { "by", RT_STR }, { "name", RT_STR }, { "loads", RT_U64 },
    { "stores", RT_U64 }, { "load_bytes", RT_U64 },
    { "store_bytes", RT_U64 },
};

#define N_MEM_COLS (sizeof(mem_cols) / sizeof(mem_cols[0]))

struct acc {
    char *name;                     /* page "0x..." or function, owned */
    uint64_t loads, stores;
    uint64_t load_bytes, store_bytes;
};

struct mem_args {
    const struct qtrace_event_desc *ev;
    int pc, vaddr, size, flags;
    bool fixed;                     /* all four unsigned integers: read at
                                       their offsets (see field) */
    bool native;                    /* and of the plugin's sizes (8, 8, 1,
                                       1): read without a switch */
    uint16_t off_pc, off_vaddr, off_size, off_flags;
};

/* Whether argument i of ev is an unsigned integer. */
static bool is_unsigned(const struct qtrace_event_desc *ev, int i)
{
    enum qtrace_arg_type t = ev->args[i].type;

    return t == QTRACE_ARG_U8 || t == QTRACE_ARG_U16 ||
           t == QTRACE_ARG_U32 || t == QTRACE_ARG_U64;
}

/*
 * Unsigned argument i of a record whose fixed part is whole: what
 * qtrace_record_u64 gives, without its checks (a quarter of the
 * section's time, four times per access).
 */
static inline uint64_t field(const struct qtrace_record *rec, int i)
{
    const struct qtrace_arg_desc *a = &rec->ev->args[i];
    const uint8_t *p = rec->data + a->offset;
    uint64_t v = 0;

    switch (a->size) {
    case 1:
        return p[0];
    case 2:
        return (uint64_t)p[0] | (uint64_t)p[1] << 8;
    case 4:
        memcpy(&v, p, 4);
        return le64toh(v);
    default:
        memcpy(&v, p, 8);
        return le64toh(v);
    }
}

static inline uint64_t u64_at(const uint8_t *p)
{
    uint64_t v;

    memcpy(&v, p, 8);
    return le64toh(v);
}

/* Whether argument i of ev is an unsigned integer of size bytes. */
static bool is_u(const struct qtrace_event_desc *ev, int i, uint8_t size)
{
    return is_unsigned(ev, i) && ev->args[i].size == size;
}

static void free_acc(void *p)
{
    struct acc *a = p;

    g_free(a->name);
    g_free(a);
}

static struct acc *acc_of(GHashTable *t, gconstpointer key, bool page,
                          const struct qtrace_symbols *syms, uint64_t pc)
{
    struct acc *a = g_hash_table_lookup(t, key);
    char name[640];

    if (!a) {
        a = g_new0(struct acc, 1);
        if (page) {
            a->name = g_strdup_printf("0x%" PRIx64,
                                      (uint64_t)GPOINTER_TO_SIZE(key));
        } else {
            a->name = g_strdup(guest_syms_fn_name(syms, pc, true, name,
                                                  sizeof(name)));
        }
        g_hash_table_insert(t, (gpointer)key, a);
    }
    return a;
}

static void count(struct acc *a, bool store, uint64_t size)
{
    if (store) {
        a->stores++;
        a->store_bytes += size;
    } else {
        a->loads++;
        a->load_bytes += size;
    }
}

/*
 * The function of an access's pc: its symbol's start (or the pc when no
 * symbol covers it) is the key, so one function is one row.
 */
static uint64_t func_key(const struct qtrace_symbols *syms, uint64_t pc)
{
    uint64_t off = 0;

    return qtrace_symbols_lookup(syms, pc, &off) ? pc - off : pc;
}

/*
 * Rows found lately, by page and by pc: a loop's accesses come back to
 * the same few, and a slot saves the hash table and, for a pc, the
 * symbol lookup. Direct-mapped; a slot with no row is empty.
 */
#define ROW_CACHE_SLOTS 4096u

struct row_cache {
    uint64_t key[ROW_CACHE_SLOTS];
    struct acc *row[ROW_CACHE_SLOTS];
};

static inline size_t row_slot(uint64_t key)
{
    return (size_t)((key ^ key >> 12 ^ key >> 24) & (ROW_CACHE_SLOTS - 1));
}

static struct acc *page_row(struct row_cache *c, GHashTable *pages,
                            uint64_t page)
{
    size_t i = row_slot(page >> 12);

    if (!c->row[i] || c->key[i] != page) {
        c->row[i] = acc_of(pages, GSIZE_TO_POINTER(page), true, NULL, 0);
        c->key[i] = page;
    }
    return c->row[i];
}

static struct acc *func_row(struct row_cache *c, GHashTable *funcs,
                            const struct qtrace_symbols *syms, uint64_t pc)
{
    size_t i = row_slot(pc);

    if (!c->row[i] || c->key[i] != pc) {
        uint64_t fk = func_key(syms, pc);

        c->row[i] = acc_of(funcs, GSIZE_TO_POINTER(fk), false, syms, fk);
        c->key[i] = pc;
    }
    return c->row[i];
}

static int collect(struct qtrace_reader *rd, const struct mem_args *m,
                   const struct qtrace_symbols *syms, GHashTable *pages,
                   GHashTable *funcs, struct qtrace_err *err)
{
    uint64_t want[QTRACE_MAX_EVENTS / 64] = { 0 };
    struct row_cache *by_page = g_new0(struct row_cache, 1);
    struct row_cache *by_pc = g_new0(struct row_cache, 1);
    struct qtrace_record rec;
    int ret;

    want[m->ev->id / 64] |= 1ull << (m->ev->id % 64);
    ret = qtrace_reader_select(rd, want, err);
    while (ret >= 0 && (ret = qtrace_reader_next(rd, &rec, err)) > 0) {
        uint64_t pc, va, size;
        bool store;

        if (m->native && rec.ev == m->ev && rec.size >= m->ev->fixed_size) {
            pc = u64_at(rec.data + m->off_pc);
            va = u64_at(rec.data + m->off_vaddr);
            size = rec.data[m->off_size];
            store = (rec.data[m->off_flags] & QTRACE_MEM_STORE) != 0;
        } else if (m->fixed && rec.size >= rec.ev->fixed_size) {
            pc = field(&rec, m->pc);
            va = field(&rec, m->vaddr);
            size = field(&rec, m->size);
            store = (field(&rec, m->flags) & QTRACE_MEM_STORE) != 0;
        } else {
            pc = qtrace_record_u64(&rec, (unsigned)m->pc);
            va = qtrace_record_u64(&rec, (unsigned)m->vaddr);
            size = qtrace_record_u64(&rec, (unsigned)m->size);
            store = (qtrace_record_u64(&rec, (unsigned)m->flags) &
                     QTRACE_MEM_STORE) != 0;
        }

        count(page_row(by_page, pages, va & PAGE_MASK), store, size);
        count(func_row(by_pc, funcs, syms, pc), store, size);
    }
    qtrace_reader_select(rd, NULL, NULL);
    g_free(by_page);
    g_free(by_pc);
    return ret;
}

static gint by_accesses(gconstpointer a, gconstpointer b)
{
    const struct acc *x = *(const struct acc *const *)a;
    const struct acc *y = *(const struct acc *const *)b;
    uint64_t nx = x->loads + x->stores, ny = y->loads + y->stores;

    if (nx != ny) {
        return nx > ny ? -1 : 1;
    }
    return strcmp(x->name, y->name);
}

static void print_table(FILE *out, const struct report_flags *flags,
                        GHashTable *t, const char *by)
{
    GPtrArray *rows = g_ptr_array_new();
    GHashTableIter it;
    gpointer key, value;
    size_t i, n;

    g_hash_table_iter_init(&it, t);
    while (g_hash_table_iter_next(&it, &key, &value)) {
        g_ptr_array_add(rows, value);
    }
    g_ptr_array_sort(rows, by_accesses);
    n = flags->top_set && flags->top && flags->top < rows->len ? flags->top
                                                               : rows->len;
    if (flags->format == REPORT_TEXT) {
        fprintf(out, "by %s:\n%12s %12s %14s %14s  %s\n", by, "LOADS",
                "STORES", "LOAD_BYTES", "STORE_BYTES",
                strcmp(by, "page") == 0 ? "PAGE" : "FUNCTION");
    }
    for (i = 0; i < n; i++) {
        const struct acc *a = g_ptr_array_index(rows, i);
        union rt_val v[N_MEM_COLS];

        if (flags->format == REPORT_TEXT) {
            fprintf(out, "%12" PRIu64 " %12" PRIu64 " %14" PRIu64 " %14"
                    PRIu64 "  %s\n", a->loads, a->stores, a->load_bytes,
                    a->store_bytes, a->name);
            continue;
        }
        v[0].s = by;
        v[1].s = a->name;
        v[2].u = a->loads;
        v[3].u = a->stores;
        v[4].u = a->load_bytes;
        v[5].u = a->store_bytes;
        rt_row(out, flags, v);
    }
    g_ptr_array_free(rows, TRUE);
}

static void print_accesses(FILE *out, const struct report_flags *flags,
                           GHashTable *pages, GHashTable *funcs)
{
    uint64_t loads = 0, stores = 0, lb = 0, sb = 0;
    GHashTableIter it;
    gpointer key, value;

    if (flags->format != REPORT_TEXT) {
        rt_begin(out, flags, "memory", mem_cols, N_MEM_COLS);
        print_table(out, flags, pages, "page");
        print_table(out, flags, funcs, "function");
        rt_end(out, flags);
        return;
    }
    g_hash_table_iter_init(&it, pages);
    while (g_hash_table_iter_next(&it, &key, &value)) {
        const struct acc *a = value;

        loads += a->loads;
        stores += a->stores;
        lb += a->load_bytes;
        sb += a->store_bytes;
    }
    fprintf(out, "memory: %" PRIu64 " loads (%" PRIu64 " bytes), %" PRIu64
            " stores (%" PRIu64 " bytes), %u pages of 4 KiB, %u functions\n",
            loads, lb, stores, sb, g_hash_table_size(pages),
            g_hash_table_size(funcs));
    print_table(out, flags, pages, "page");
    print_table(out, flags, funcs, "function");
}

static int run_memory(struct qtrace_reader *rd,
                      const struct report_flags *flags, FILE *out,
                      struct qtrace_err *err)
{
    struct mem_args m;
    struct qtrace_symbols *syms;
    GHashTable *pages, *funcs;
    bool empty;
    int ret;

    m.ev = qtrace_catalog_find(qtrace_reader_catalog(rd), "mem_access");
    m.pc = qtrace_event_arg(m.ev, "pc");
    m.vaddr = qtrace_event_arg(m.ev, "vaddr");
    m.size = qtrace_event_arg(m.ev, "size");
    m.flags = qtrace_event_arg(m.ev, "flags");
    if (m.pc < 0 || m.vaddr < 0 || m.size < 0 || m.flags < 0) {
        return rt_none(out, flags, "memory", mem_cols, N_MEM_COLS,
                       "memory: none (no mem_access event in the trace's "
                       "catalog)");
    }
    m.fixed = is_unsigned(m.ev, m.pc) && is_unsigned(m.ev, m.vaddr) &&
              is_unsigned(m.ev, m.size) && is_unsigned(m.ev, m.flags);
    m.native = is_u(m.ev, m.pc, 8) && is_u(m.ev, m.vaddr, 8) &&
               is_u(m.ev, m.size, 1) && is_u(m.ev, m.flags, 1);
    m.off_pc = m.ev->args[m.pc].offset;
    m.off_vaddr = m.ev->args[m.vaddr].offset;
    m.off_size = m.ev->args[m.size].offset;
    m.off_flags = m.ev->args[m.flags].offset;
    syms = guest_syms_load(rd, "report");
    if (!syms) {
        qtrace_err_set(err, "guest symbols: %s", strerror(ENOMEM));
        return -ENOMEM;
    }
    pages = g_hash_table_new_full(NULL, NULL, NULL, free_acc);
    funcs = g_hash_table_new_full(NULL, NULL, NULL, free_acc);
    ret = collect(rd, &m, syms, pages, funcs, err);
    empty = g_hash_table_size(pages) == 0;
    /* What was read is printed, even when the trace stops early. */
    if (empty) {
        rt_none(out, flags, "memory", mem_cols, N_MEM_COLS,
                "memory: none (no mem_access records; record them with -e "
                "mem_access)");
    } else {
        print_accesses(out, flags, pages, funcs);
    }
    g_hash_table_destroy(pages);
    g_hash_table_destroy(funcs);
    qtrace_symbols_free(syms);
    if (ret < 0) {
        return ret;
    }
    return empty ? REPORT_EMPTY : 0;
}

const struct report_section report_memory = {
    .option = "memory",
    .help = "memory accesses by page and function: loads, stores, bytes",
    .run = run_memory,
};
