/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * qtrace report --vcpus: one row per vCPU stream (a vCPU's life; a
 * thread in user mode): its instructions (each exec_tb's block's
 * instructions from its tb_trans, else its exec_insn records), blocks
 * (exec_tb), memory accesses (mem_access), system calls (syscall) and
 * records of any event. Reads every record: blocks are expanded.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "report-table.h"
#include "report.h"

static const struct rt_col vc_cols[] = {
    { "vcpu", RT_U64 }, { "stream", RT_U64 }, { "insns", RT_U64 },
    { "blocks", RT_U64 }, { "accesses", RT_U64 }, { "syscalls", RT_U64 },
    { "records", RT_U64 },
};

#define N_VC_COLS (sizeof(vc_cols) / sizeof(vc_cols[0]))

struct vstat {
    uint32_t vcpu, stream;
    uint64_t insns, blocks, accesses, syscalls, records, exec_insns;
};

struct vc_args {
    const struct qtrace_event_desc *tt, *et, *ei, *mem, *sys;
    int tt_tb, tt_n, et_tb;
};

static int arg_of(const struct qtrace_event_desc *ev, const char *name)
{
    unsigned int i;

    for (i = 0; ev && i < ev->n_args; i++) {
        if (strcmp(ev->args[i].name, name) == 0) {
            return (int)i;
        }
    }
    return -1;
}

static void map_args(struct vc_args *a, const struct qtrace_catalog *cat)
{
    a->tt = qtrace_catalog_find(cat, "tb_trans");
    a->tt_tb = arg_of(a->tt, "tb");
    a->tt_n = arg_of(a->tt, "n_insns");
    if (a->tt_tb < 0 || a->tt_n < 0) {
        a->tt = NULL;
    }
    a->et = qtrace_catalog_find(cat, "exec_tb");
    a->et_tb = arg_of(a->et, "tb");
    if (a->et_tb < 0) {
        a->et = NULL;
    }
    a->ei = qtrace_catalog_find(cat, "exec_insn");
    a->mem = qtrace_catalog_find(cat, "mem_access");
    a->sys = qtrace_catalog_find(cat, "syscall");
}

static struct vstat *stat_of(GHashTable *streams,
                             const struct qtrace_record *rec)
{
    struct vstat *v = g_hash_table_lookup(streams,
                                          GUINT_TO_POINTER(rec->stream));

    if (!v) {
        v = g_new0(struct vstat, 1);
        v->vcpu = rec->vcpu;
        v->stream = rec->stream;
        g_hash_table_insert(streams, GUINT_TO_POINTER(rec->stream), v);
    }
    return v;
}

static int collect(struct qtrace_reader *rd, GHashTable *streams,
                   struct qtrace_err *err)
{
    GHashTable *sizes = g_hash_table_new(NULL, NULL);   /* tb -> insns */
    struct vc_args a;
    struct qtrace_record rec;
    struct vstat *cur = NULL;
    int ret;

    map_args(&a, qtrace_reader_catalog(rd));
    while ((ret = qtrace_reader_next(rd, &rec, err)) > 0) {
        if (rec.vcpu == QTRACE_VCPU_NONE) {
            if (rec.ev == a.tt) {
                g_hash_table_insert(sizes, GUINT_TO_POINTER(
                    (uint32_t)qtrace_record_u64(&rec, (unsigned)a.tt_tb)),
                    GSIZE_TO_POINTER(qtrace_record_u64(&rec,
                                                       (unsigned)a.tt_n)));
            }
            continue;
        }
        if (!cur || cur->stream != rec.stream) {
            cur = stat_of(streams, &rec);
        }
        cur->records++;
        if (rec.ev == a.et) {
            cur->blocks++;
            cur->insns += GPOINTER_TO_SIZE(g_hash_table_lookup(sizes,
                GUINT_TO_POINTER((uint32_t)qtrace_record_u64(&rec,
                                                  (unsigned)a.et_tb))));
        } else if (rec.ev == a.ei) {
            cur->exec_insns++;
        } else if (rec.ev == a.mem) {
            cur->accesses++;
        } else if (rec.ev == a.sys) {
            cur->syscalls++;
        }
    }
    g_hash_table_destroy(sizes);
    return ret;
}

static gint by_vcpu(gconstpointer a, gconstpointer b)
{
    const struct vstat *x = *(const struct vstat *const *)a;
    const struct vstat *y = *(const struct vstat *const *)b;

    if (x->vcpu != y->vcpu) {
        return x->vcpu < y->vcpu ? -1 : 1;
    }
    return (x->stream > y->stream) - (x->stream < y->stream);
}

static void print_streams(FILE *out, const struct report_flags *flags,
                          GHashTable *streams)
{
    GPtrArray *rows = g_ptr_array_new();
    GHashTableIter it;
    gpointer key, value;
    guint i;

    g_hash_table_iter_init(&it, streams);
    while (g_hash_table_iter_next(&it, &key, &value)) {
        struct vstat *v = value;

        /* Without blocks, the instructions are the exec_insn records. */
        if (v->blocks == 0) {
            v->insns = v->exec_insns;
        }
        g_ptr_array_add(rows, v);
    }
    g_ptr_array_sort(rows, by_vcpu);
    if (flags->format == REPORT_TEXT) {
        fprintf(out, "vcpus: %u streams\n%6s %8s %14s %12s %12s %10s %12s\n",
                rows->len, "VCPU", "STREAM", "INSNS", "BLOCKS", "ACCESSES",
                "SYSCALLS", "RECORDS");
    } else {
        rt_begin(out, flags, "vcpus", vc_cols, N_VC_COLS);
    }
    for (i = 0; i < rows->len; i++) {
        const struct vstat *v = g_ptr_array_index(rows, i);
        union rt_val r[N_VC_COLS];

        if (flags->format == REPORT_TEXT) {
            fprintf(out, "%6" PRIu32 " %8" PRIu32 " %14" PRIu64 " %12"
                    PRIu64 " %12" PRIu64 " %10" PRIu64 " %12" PRIu64 "\n",
                    v->vcpu, v->stream, v->insns, v->blocks, v->accesses,
                    v->syscalls, v->records);
            continue;
        }
        r[0].u = v->vcpu;
        r[1].u = v->stream;
        r[2].u = v->insns;
        r[3].u = v->blocks;
        r[4].u = v->accesses;
        r[5].u = v->syscalls;
        r[6].u = v->records;
        rt_row(out, flags, r);
    }
    if (flags->format != REPORT_TEXT) {
        rt_end(out, flags);
    }
    g_ptr_array_free(rows, TRUE);
}

static int run_vcpus(struct qtrace_reader *rd,
                     const struct report_flags *flags, FILE *out,
                     struct qtrace_err *err)
{
    GHashTable *streams = g_hash_table_new_full(NULL, NULL, NULL, g_free);
    int ret = collect(rd, streams, err);
    bool empty = g_hash_table_size(streams) == 0;

    /* What was read is printed, even when the trace stops early. */
    if (empty) {
        rt_none(out, flags, "vcpus", vc_cols, N_VC_COLS,
                "vcpus: none (no record of any vCPU)");
    } else {
        print_streams(out, flags, streams);
    }
    g_hash_table_destroy(streams);
    if (ret < 0) {
        return ret;
    }
    return empty ? REPORT_EMPTY : 0;
}

const struct report_section report_vcpus = {
    .option = "vcpus",
    .help = "per vCPU stream: instructions, blocks, accesses, syscalls",
    .run = run_vcpus,
};
