/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * qtrace report --vcpus: one row per vCPU stream (a vCPU's life; a
 * thread in user mode): its instructions (each exec_tb's block's
 * instructions from its tb_trans, else its exec_insn records), blocks
 * (exec_tb), memory accesses (mem_access), system calls (syscall) and
 * records of any event; in a trace with host clock stamps (timeline=on),
 * when it began and ended on the host's clock (since the trace began)
 * and how long it stood still in between (system calls, idle, waiting
 * for buffers: the clock records' pauses). Reads every record: blocks
 * are expanded.
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

/* The same with the host times, for a trace with clock stamps. */
static const struct rt_col vc_host_cols[] = {
    { "vcpu", RT_U64 }, { "stream", RT_U64 }, { "insns", RT_U64 },
    { "blocks", RT_U64 }, { "accesses", RT_U64 }, { "syscalls", RT_U64 },
    { "records", RT_U64 }, { "start_ns", RT_U64 }, { "end_ns", RT_U64 },
    { "paused_ns", RT_U64 },
};

#define N_VC_HOST_COLS (sizeof(vc_host_cols) / sizeof(vc_host_cols[0]))

struct vstat {
    uint32_t vcpu, stream;
    uint64_t insns, blocks, accesses, syscalls, records, exec_insns;
    bool timed;                     /* start and end are set */
    uint64_t start, end, paused;    /* host ns (see the top) */
};

struct vc_args {
    const struct qtrace_event_desc *tt, *et, *ei, *mem, *sys, *clock;
    int tt_tb, tt_n, et_tb, clock_ns, clock_resume;
    bool host;                      /* the trace's timeline is used */
};

static void map_args(struct vc_args *a, const struct qtrace_catalog *cat)
{
    a->tt = qtrace_catalog_find(cat, "tb_trans");
    a->tt_tb = qtrace_event_arg(a->tt, "tb");
    a->tt_n = qtrace_event_arg(a->tt, "n_insns");
    if (a->tt_tb < 0 || a->tt_n < 0) {
        a->tt = NULL;
    }
    a->et = qtrace_catalog_find(cat, "exec_tb");
    a->et_tb = qtrace_event_arg(a->et, "tb");
    if (a->et_tb < 0) {
        a->et = NULL;
    }
    a->ei = qtrace_catalog_find(cat, "exec_insn");
    a->mem = qtrace_catalog_find(cat, "mem_access");
    a->sys = qtrace_catalog_find(cat, "syscall");
    a->clock = qtrace_catalog_find(cat, "clock");
    a->clock_ns = qtrace_event_arg(a->clock, "ns");
    a->clock_resume = qtrace_event_arg(a->clock, "resume_ns");
    if (a->clock_ns < 0 || a->clock_resume < 0) {
        a->clock = NULL;
    }
}

/* A vCPU record's host time: the stream's span and its pauses. */
static void note_host_time(struct qtrace_reader *rd, const struct vc_args *a,
                           struct vstat *v, const struct qtrace_record *rec)
{
    uint64_t t, ns, resume;

    if (!qtrace_reader_host_time(rd, rec, &t)) {
        return;
    }
    if (!v->timed) {
        v->start = t;
        v->timed = true;
    }
    if (t > v->end) {
        v->end = t;
    }
    if (rec->ev == a->clock) {
        ns = qtrace_record_u64(rec, (unsigned)a->clock_ns);
        resume = qtrace_record_u64(rec, (unsigned)a->clock_resume);
        if (resume > ns) {
            v->paused += resume - ns;
            /* A closing stamp's pause ends the stream's span too. */
            if (t + (resume - ns) > v->end) {
                v->end = t + (resume - ns);
            }
        }
    }
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

/*
 * Instructions per translation id. Ids are handed out densely from 1, so
 * the first ARRAY_IDS of them are in an array, which a block record
 * indexes without hashing (a hash table look-up per block was a
 * sixteenth of the report's time); a larger id, which a real trace
 * rarely has and a damaged one may, in a hash table.
 */
#define ARRAY_IDS (1u << 22)

struct sizes {
    GArray *low;                    /* uint32_t per id below ARRAY_IDS */
    GHashTable *high;               /* id -> insns above */
};

static void note_size(struct sizes *z, uint64_t tb, uint64_t n)
{
    if (tb >= ARRAY_IDS) {
        g_hash_table_insert(z->high, GSIZE_TO_POINTER(tb),
                            GSIZE_TO_POINTER(n));
        return;
    }
    if (tb >= z->low->len) {
        g_array_set_size(z->low, (guint)tb + 1);
    }
    g_array_index(z->low, uint32_t, tb) = (uint32_t)n;
}

static uint64_t size_of(const struct sizes *z, uint64_t tb)
{
    if (tb < z->low->len) {
        return g_array_index(z->low, uint32_t, tb);
    }
    return tb < ARRAY_IDS ? 0 :
           GPOINTER_TO_SIZE(g_hash_table_lookup(z->high,
                                                GSIZE_TO_POINTER(tb)));
}

static int collect(struct qtrace_reader *rd, GHashTable *streams,
                   struct qtrace_err *err)
{
    struct sizes sizes = {
        .low = g_array_new(FALSE, TRUE, sizeof(uint32_t)),
        .high = g_hash_table_new(NULL, NULL),
    };
    struct vc_args a;
    struct qtrace_record rec;
    struct vstat *cur = NULL;
    int ret;

    map_args(&a, qtrace_reader_catalog(rd));
    a.host = qtrace_reader_has_timeline(rd) &&
             qtrace_reader_use_timeline(rd, err) == 0;
    while ((ret = qtrace_reader_next(rd, &rec, err)) > 0) {
        if (rec.vcpu == QTRACE_VCPU_NONE) {
            if (rec.ev == a.tt) {
                note_size(&sizes, qtrace_record_u64(&rec, (unsigned)a.tt_tb),
                          qtrace_record_u64(&rec, (unsigned)a.tt_n));
            }
            continue;
        }
        if (!cur || cur->stream != rec.stream) {
            cur = stat_of(streams, &rec);
        }
        cur->records++;
        if (a.host) {
            note_host_time(rd, &a, cur, &rec);
        }
        if (rec.ev == a.et) {
            cur->blocks++;
            cur->insns += size_of(&sizes, qtrace_record_u64(&rec,
                                                 (unsigned)a.et_tb));
        } else if (rec.ev == a.ei) {
            cur->exec_insns++;
        } else if (rec.ev == a.mem) {
            cur->accesses++;
        } else if (rec.ev == a.sys) {
            cur->syscalls++;
        }
    }
    g_array_free(sizes.low, TRUE);
    g_hash_table_destroy(sizes.high);
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

/* Host nanoseconds as seconds, to the microsecond: "12.345678". */
static void print_seconds(FILE *out, bool timed, uint64_t ns)
{
    if (!timed) {
        fprintf(out, " %11s", "-");
        return;
    }
    fprintf(out, " %4" PRIu64 ".%06" PRIu64, ns / 1000000000u,
            ns % 1000000000u / 1000u);
}

static void print_streams(FILE *out, const struct report_flags *flags,
                          GHashTable *streams, bool host)
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
        fprintf(out, "vcpus: %u streams%s\n%6s %8s %14s %12s %12s %10s "
                "%12s", rows->len, host ? " (host times in seconds since "
                "the trace began)" : "", "VCPU", "STREAM", "INSNS", "BLOCKS",
                "ACCESSES", "SYSCALLS", "RECORDS");
        if (host) {
            fprintf(out, " %11s %11s %11s", "START", "END", "PAUSED");
        }
        fputc('\n', out);
    } else if (host) {
        rt_begin(out, flags, "vcpus", vc_host_cols, N_VC_HOST_COLS);
    } else {
        rt_begin(out, flags, "vcpus", vc_cols, N_VC_COLS);
    }
    for (i = 0; i < rows->len; i++) {
        const struct vstat *v = g_ptr_array_index(rows, i);
        union rt_val r[N_VC_HOST_COLS];

        if (flags->format == REPORT_TEXT) {
            fprintf(out, "%6" PRIu32 " %8" PRIu32 " %14" PRIu64 " %12"
                    PRIu64 " %12" PRIu64 " %10" PRIu64 " %12" PRIu64,
                    v->vcpu, v->stream, v->insns, v->blocks, v->accesses,
                    v->syscalls, v->records);
            if (host) {
                print_seconds(out, v->timed, v->start);
                print_seconds(out, v->timed, v->end);
                print_seconds(out, v->timed, v->paused);
            }
            fputc('\n', out);
            continue;
        }
        r[0].u = v->vcpu;
        r[1].u = v->stream;
        r[2].u = v->insns;
        r[3].u = v->blocks;
        r[4].u = v->accesses;
        r[5].u = v->syscalls;
        r[6].u = v->records;
        r[7].u = v->start;
        r[8].u = v->end;
        r[9].u = v->paused;
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
    bool host = qtrace_reader_has_timeline(rd);

    /* What was read is printed, even when the trace stops early. */
    if (empty) {
        rt_none(out, flags, "vcpus", vc_cols, N_VC_COLS,
                "vcpus: none (no record of any vCPU)");
    } else {
        print_streams(out, flags, streams, host);
    }
    g_hash_table_destroy(streams);
    if (ret < 0) {
        return ret;
    }
    return empty ? REPORT_EMPTY : 0;
}

const struct report_section report_vcpus = {
    .option = "vcpus",
    .help = "per vCPU stream: instructions, blocks, accesses, syscalls "
            "(and with host clock stamps: when it ran, how long it stood "
            "still)",
    .run = run_vcpus,
    .light = true,
};
