/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * qtrace report --syscalls: how often the guest made each system call and
 * how many failed, like `strace -c` without the times (QEMU runs a system
 * call between two guest instructions: no guest time passes). Names come
 * from the trace's architecture (qtrace/syscall.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "qtrace/syscall.h"
#include "report.h"
#include "report-table.h"

/* Linux returns -4095..-1 for a failed call. */
#define MAX_ERRNO 4095

struct sc_count {
    int64_t num;
    uint64_t calls;                 /* syscall records */
    uint64_t errors;                /* syscall_ret records with an error */
    char name[40];
};

struct sc_args {
    const struct qtrace_event_desc *sys, *ret;
    unsigned int sys_num, ret_num, ret_ret;
};

static bool find_arg(const struct qtrace_event_desc *ev, const char *name,
                     unsigned int *idx)
{
    unsigned int i;

    for (i = 0; ev && i < ev->n_args; i++) {
        if (strcmp(ev->args[i].name, name) == 0) {
            *idx = i;
            return true;
        }
    }
    return false;
}

static void map_args(struct sc_args *m, const struct qtrace_catalog *cat)
{
    m->sys = qtrace_catalog_find(cat, "syscall");
    m->ret = qtrace_catalog_find(cat, "syscall_ret");
    if (!find_arg(m->sys, "num", &m->sys_num)) {
        m->sys = NULL;
    }
    if (!find_arg(m->ret, "num", &m->ret_num) ||
        !find_arg(m->ret, "ret", &m->ret_ret)) {
        m->ret = NULL;
    }
}

static struct sc_count *count_of(GHashTable *counts, int64_t num)
{
    struct sc_count *c = g_hash_table_lookup(counts, &num);

    if (!c) {
        c = g_new0(struct sc_count, 1);
        c->num = num;
        g_hash_table_insert(counts, &c->num, c);
    }
    return c;
}

/* Add ev to a selection of events (qtrace_reader_select). */
static void want_event(uint64_t *want, const struct qtrace_event_desc *ev)
{
    if (ev) {
        want[ev->id / 64] |= 1ull << (ev->id % 64);
    }
}

/*
 * Count every syscall and failed syscall_ret; the read error, if any.
 * Only the chunks that hold them are read: on a block trace, a few.
 */
static int count_calls(struct qtrace_reader *rd, GHashTable *counts,
                       struct qtrace_err *err)
{
    uint64_t want[QTRACE_MAX_EVENTS / 64] = { 0 };
    struct qtrace_record rec;
    struct sc_args m = { NULL, NULL, 0, 0, 0 };
    int ret;

    map_args(&m, qtrace_reader_catalog(rd));
    want_event(want, m.sys);
    want_event(want, m.ret);
    ret = qtrace_reader_select(rd, want, err);
    if (ret < 0) {
        return ret;
    }
    while ((ret = qtrace_reader_next(rd, &rec, err)) > 0) {
        if (rec.ev == m.sys) {
            count_of(counts, qtrace_record_i64(&rec, m.sys_num))->calls++;
        } else if (rec.ev == m.ret) {
            int64_t r = qtrace_record_i64(&rec, m.ret_ret);

            if (r < 0 && r >= -MAX_ERRNO) {
                count_of(counts,
                         qtrace_record_i64(&rec, m.ret_num))->errors++;
            }
        }
    }
    qtrace_reader_select(rd, NULL, NULL);
    return ret;
}

static gint by_calls(gconstpointer a, gconstpointer b)
{
    const struct sc_count *x = a;
    const struct sc_count *y = b;

    if (x->calls != y->calls) {
        return x->calls > y->calls ? -1 : 1;
    }
    return strcmp(x->name, y->name);
}

static const struct rt_col sc_cols[] = {
    { "syscall", RT_STR }, { "number", RT_I64 }, { "calls", RT_U64 },
    { "errors", RT_U64 },
};

#define N_SC_COLS (sizeof(sc_cols) / sizeof(sc_cols[0]))

/* The rows as a table (--format json, csv): no total row. */
static void table_counts(FILE *out, const struct report_flags *flags,
                         GList *list)
{
    GList *l;

    rt_begin(out, flags, "syscalls", sc_cols, N_SC_COLS);
    for (l = list; l; l = l->next) {
        const struct sc_count *c = l->data;
        union rt_val v[N_SC_COLS];

        v[0].s = c->name;
        v[1].i = c->num;
        v[2].u = c->calls;
        v[3].u = c->errors;
        rt_row(out, flags, v);
    }
    rt_end(out, flags);
}

static void print_counts(FILE *out, const struct report_flags *flags,
                         GHashTable *counts, const char *arch)
{
    const struct qtrace_syscall_table *t = qtrace_syscall_table_find(arch);
    GList *list = g_hash_table_get_values(counts);
    GList *l;
    uint64_t calls = 0, errors = 0;

    for (l = list; l; l = l->next) {
        struct sc_count *c = l->data;
        const char *name = qtrace_syscall_name(t, c->num);

        if (name) {
            snprintf(c->name, sizeof(c->name), "%s", name);
        } else {
            snprintf(c->name, sizeof(c->name), "syscall_%" PRId64, c->num);
        }
        calls += c->calls;
        errors += c->errors;
    }
    list = g_list_sort(list, by_calls);
    if (flags->format != REPORT_TEXT) {
        table_counts(out, flags, list);
        g_list_free(list);
        return;
    }
    fprintf(out, "syscalls (%s):\n", arch);
    fprintf(out, "  %10s %10s  %s\n", "calls", "errors", "syscall");
    for (l = list; l; l = l->next) {
        const struct sc_count *c = l->data;

        fprintf(out, "  %10" PRIu64 " %10" PRIu64 "  %s\n", c->calls,
                c->errors, c->name);
    }
    fprintf(out, "  %10s %10s  %s\n", "----------", "----------",
            "----------------");
    fprintf(out, "  %10" PRIu64 " %10" PRIu64 "  total\n", calls, errors);
    g_list_free(list);
}

/* The line that replaces the table when nothing was counted. */
static void print_none(FILE *out, const struct report_flags *flags,
                       const struct sc_args *m)
{
    rt_none(out, flags, "syscalls", sc_cols, N_SC_COLS, !m->sys ?
            "syscalls: none (no syscall event in the trace's catalog)" :
            "syscalls: none (no syscall records; record them with -e "
            "'syscall*')");
}

static int run_syscalls(struct qtrace_reader *rd,
                        const struct report_flags *flags, FILE *out,
                        struct qtrace_err *err)
{
    const char *arch = qtrace_reader_meta(rd, "arch");
    GHashTable *counts = g_hash_table_new_full(g_int64_hash, g_int64_equal,
                                               NULL, g_free);
    struct sc_args m = { NULL, NULL, 0, 0, 0 };
    int ret = count_calls(rd, counts, err);
    bool empty = g_hash_table_size(counts) == 0;

    /* What was read is printed, even when the trace stops early. */
    if (empty) {
        map_args(&m, qtrace_reader_catalog(rd));
        print_none(out, flags, &m);
    } else {
        print_counts(out, flags, counts, arch ? arch : "unknown");
    }
    g_hash_table_destroy(counts);
    if (ret < 0) {
        return ret;
    }
    return empty ? REPORT_EMPTY : 0;
}

const struct report_section report_syscalls = {
    .option = "syscalls",
    .help = "system calls: count and errors per call, like strace -c",
    .run = run_syscalls,
};
