/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * `qtrace convert --to perfetto TRACE OUT.pftrace`: the trace's
 * timelines (timeline.c) as a Perfetto protobuf trace, written packet
 * by packet with pb.c (no Perfetto SDK): a Trace message is a run of
 * TracePacket fields, so each packet goes out as soon as it is built.
 * Runs in the qtrace command, single-threaded.
 *
 * Layout (field numbers from Perfetto's protos/perfetto/trace/:
 * trace.proto, trace_packet.proto, track_event/track_event.proto,
 * track_descriptor.proto, process_descriptor.proto,
 * thread_descriptor.proto, debug_annotation.proto,
 * interned_data/interned_data.proto):
 *   - sequence 1: a TrackDescriptor of the guest's process (uuid 1, pid
 *     1), and the instants of records of no vCPU on it;
 *   - per vCPU stream, its own packet sequence (2, 3, ... in order of
 *     appearance): a TrackDescriptor of a thread track (uuid stream + 2,
 *     tid = stream id), then its TrackEvents (slice begin/end, instant).
 * The first packet of a sequence clears its incremental state; the
 * others need it. Event names, categories and argument names are
 * interned: a string gets one iid for the whole file (one table per
 * kind), and its InternedData entry goes out in the first packet of
 * each sequence that uses it, so a name costs its bytes once per
 * stream and then two or three bytes per event. Each sequence's packets
 * are in time order (a stream's records are), which every sorter takes.
 * Timestamps are the stream's instruction counts as nanoseconds of the
 * default clock, or in a trace with host clock stamps (timeline=on) the
 * host's nanoseconds since the trace began, one clock for all streams;
 * the process's name says which ("[1 ns = 1 guest instruction]" or
 * "[host time]").
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "convert.h"
#include "pb.h"
#include "timeline.h"

enum {
    TRACE_PACKET = 1,               /* Trace.packet */
    TP_TIMESTAMP = 8,               /* TracePacket */
    TP_SEQ_ID = 10,                 /* trusted_packet_sequence_id */
    TP_TRACK_EVENT = 11,
    TP_INTERNED = 12,
    TP_SEQ_FLAGS = 13,
    TP_TRACK_DESCRIPTOR = 60,
    TP_FIRST_ON_SEQ = 87,
    TD_UUID = 1,                    /* TrackDescriptor */
    TD_NAME = 2,
    TD_PROCESS = 3,
    TD_THREAD = 4,
    PD_PID = 1,                     /* ProcessDescriptor */
    PD_NAME = 6,
    THD_PID = 1,                    /* ThreadDescriptor */
    THD_TID = 2,
    THD_NAME = 5,
    TE_CATEGORY_IIDS = 3,           /* TrackEvent */
    TE_DEBUG = 4,
    TE_TYPE = 9,
    TE_NAME_IID = 10,
    TE_TRACK_UUID = 11,
    ID_CATEGORIES = 1,              /* InternedData */
    ID_NAMES = 2,
    ID_ANNOTATION_NAMES = 3,
    IN_IID = 1,                     /* EventCategory, EventName, */
    IN_NAME = 2,                    /* DebugAnnotationName */
    DA_NAME_IID = 1,                /* DebugAnnotation */
    DA_BOOL = 2,
    DA_UINT = 3,
    DA_INT = 4,
    DA_STRING = 6,
    DA_POINTER = 7,
};

enum { SEQ_CLEARED = 1, SEQ_NEEDS_STATE = 2 };
enum { TYPE_BEGIN = 1, TYPE_END = 2, TYPE_INSTANT = 3 };

#define PROCESS_UUID 1
#define GUEST_PID 1
#define GLOBAL_SEQ 1

/* Kinds of interned strings, each its own table of iids. */
enum { KIND_NAME, KIND_CAT, KIND_ARG, N_KINDS };

static const uint32_t kind_field[N_KINDS] = {
    ID_NAMES, ID_CATEGORIES, ID_ANNOTATION_NAMES,
};

/* Which iids of each kind a sequence has been given, by bit. */
struct seq {
    uint32_t id;                    /* trusted_packet_sequence_id */
    uint64_t track;                 /* its track's uuid */
    GByteArray *sent[N_KINDS];
};

struct conv_perfetto {
    FILE *f;
    char *fbuf;
    const char *out;
    struct timeline *tl;
    GHashTable *iids[N_KINDS];      /* string -> iid, from 1 */
    GPtrArray *strs[N_KINDS];       /* iid - 1 -> string (the key) */
    GHashTable *seqs;               /* stream id -> struct seq */
    struct seq global;              /* sequence 1, the process track */
    struct seq *cur;
    uint32_t cur_stream;
    uint32_t n_seqs;
    struct pb_buf pkt;              /* the packet being built */
    struct pb_buf body;             /* its TrackEvent, built first */
    uint64_t pending[N_KINDS][TIMELINE_MAX_ARGS + 1];  /* new iids of it */
    unsigned int n_pending[N_KINDS];
    uint64_t n_packets;
};

static bool has_bit(const GByteArray *a, uint64_t bit)
{
    return bit / 8 < a->len && (a->data[bit / 8] >> (bit % 8) & 1);
}

static void set_bit(GByteArray *a, uint64_t bit)
{
    if (bit / 8 >= a->len) {
        guint old = a->len;

        g_byte_array_set_size(a, (guint)(bit / 8 + 1));
        memset(a->data + old, 0, a->len - old);
    }
    a->data[bit / 8] |= (uint8_t)(1u << (bit % 8));
}

/*
 * The iid of s in table kind, made when new; noted as pending when seq
 * has not had it yet, so the packet being built carries its entry.
 */
static uint64_t intern(struct conv_perfetto *p, struct seq *seq, int kind,
                       const char *s)
{
    gpointer v = g_hash_table_lookup(p->iids[kind], s);
    uint64_t iid;

    if (!v) {
        char *copy = g_strdup(s);

        iid = p->strs[kind]->len + 1;
        g_ptr_array_add(p->strs[kind], copy);
        g_hash_table_insert(p->iids[kind], copy,
                            GSIZE_TO_POINTER((gsize)iid));
    } else {
        iid = GPOINTER_TO_SIZE(v);
    }
    if (!has_bit(seq->sent[kind], iid) &&
        p->n_pending[kind] < TIMELINE_MAX_ARGS + 1) {
        set_bit(seq->sent[kind], iid);
        p->pending[kind][p->n_pending[kind]++] = iid;
    }
    return iid;
}

/* The InternedData of the pending iids, if any. */
static void put_interned(struct conv_perfetto *p)
{
    pb_mark m, e;
    unsigned int k, i;

    if (!p->n_pending[KIND_NAME] && !p->n_pending[KIND_CAT] &&
        !p->n_pending[KIND_ARG]) {
        return;
    }
    m = pb_begin(&p->pkt, TP_INTERNED);
    for (k = 0; k < N_KINDS; k++) {
        for (i = 0; i < p->n_pending[k]; i++) {
            e = pb_begin(&p->pkt, kind_field[k]);
            pb_uint(&p->pkt, IN_IID, p->pending[k][i]);
            pb_str(&p->pkt, IN_NAME,
                   g_ptr_array_index(p->strs[k], p->pending[k][i] - 1));
            pb_end(&p->pkt, e);
        }
        p->n_pending[k] = 0;
    }
    pb_end(&p->pkt, m);
}

/* The packet built in p->pkt, framed as a Trace.packet field. */
static int flush_packet(struct conv_perfetto *p, struct qtrace_err *err)
{
    uint8_t head[1 + PB_VARINT_MAX];
    size_t n;

    if (p->pkt.oom) {
        qtrace_err_set(err, "%s", strerror(ENOMEM));
        return -ENOMEM;
    }
    head[0] = TRACE_PACKET << 3 | PB_WIRE_LEN;
    n = 1 + pb_varint_enc(head + 1, p->pkt.len);
    if (fwrite(head, 1, n, p->f) != n ||
        fwrite(p->pkt.data, 1, p->pkt.len, p->f) != p->pkt.len) {
        int e = errno ? errno : EIO;

        qtrace_err_set(err, "%s: %s", p->out, strerror(e));
        return -e;
    }
    p->n_packets++;
    pb_reset(&p->pkt);
    return 0;
}

static void seq_init(struct seq *s, uint32_t id, uint64_t track)
{
    unsigned int k;

    s->id = id;
    s->track = track;
    for (k = 0; k < N_KINDS; k++) {
        s->sent[k] = g_byte_array_new();
    }
}

static void seq_fini(struct seq *s)
{
    unsigned int k;

    for (k = 0; k < N_KINDS; k++) {
        if (s->sent[k]) {
            g_byte_array_free(s->sent[k], TRUE);
            s->sent[k] = NULL;
        }
    }
}

static void free_seq(void *ptr)
{
    seq_fini(ptr);
    free(ptr);
}

/* A sequence's first packet: it starts with no incremental state. */
static void start_first_packet(struct conv_perfetto *p, const struct seq *s)
{
    pb_uint(&p->pkt, TP_SEQ_ID, s->id);
    pb_uint(&p->pkt, TP_SEQ_FLAGS, SEQ_CLEARED);
    pb_uint(&p->pkt, TP_FIRST_ON_SEQ, 1);
}

static int on_track(void *arg, uint32_t stream, uint32_t vcpu,
                    struct qtrace_err *err)
{
    struct conv_perfetto *p = arg;
    struct seq *s = calloc(1, sizeof(*s));
    char name[64];
    pb_mark td, th;

    if (!s) {
        qtrace_err_set(err, "%s", strerror(ENOMEM));
        return -ENOMEM;
    }
    seq_init(s, GLOBAL_SEQ + 1 + p->n_seqs++, (uint64_t)stream + 2);
    g_hash_table_insert(p->seqs, GUINT_TO_POINTER(stream), s);
    timeline_track_name(stream, vcpu, name, sizeof(name));
    start_first_packet(p, s);
    td = pb_begin(&p->pkt, TP_TRACK_DESCRIPTOR);
    pb_uint(&p->pkt, TD_UUID, s->track);
    pb_str(&p->pkt, TD_NAME, name);
    th = pb_begin(&p->pkt, TD_THREAD);
    pb_uint(&p->pkt, THD_PID, GUEST_PID);
    pb_uint(&p->pkt, THD_TID, stream);
    pb_str(&p->pkt, THD_NAME, name);
    pb_end(&p->pkt, th);
    pb_end(&p->pkt, td);
    return flush_packet(p, err);
}

static struct seq *seq_of(struct conv_perfetto *p, uint32_t stream)
{
    if (stream == TIMELINE_GLOBAL) {
        return &p->global;
    }
    if (!p->cur || p->cur_stream != stream) {
        p->cur = g_hash_table_lookup(p->seqs, GUINT_TO_POINTER(stream));
        p->cur_stream = stream;
    }
    return p->cur;
}

/* Its DebugAnnotations, whose names are interned. */
static void put_args(struct conv_perfetto *p, struct seq *s,
                     const struct timeline_event *e)
{
    char hex[2 * 64 + 1];
    unsigned int i;
    size_t j;

    for (i = 0; i < e->n_args; i++) {
        const struct timeline_arg *a = &e->args[i];
        uint64_t iid = intern(p, s, KIND_ARG, a->name);
        pb_mark m = pb_begin(&p->pkt, TE_DEBUG);

        pb_uint(&p->pkt, DA_NAME_IID, iid);
        switch (a->type) {
        case TL_ARG_I64:
            pb_int(&p->pkt, DA_INT, a->i);
            break;
        case TL_ARG_HEX:
            pb_uint(&p->pkt, DA_POINTER, a->u);
            break;
        case TL_ARG_BOOL:
            pb_uint(&p->pkt, DA_BOOL, a->u != 0);
            break;
        case TL_ARG_STR:
            pb_bytes(&p->pkt, DA_STRING, a->s, a->len);
            break;
        case TL_ARG_BYTES:
            /* Shown as hex text, cut at 64 bytes (translated code). */
            for (j = 0; j < a->len && j < 64; j++) {
                snprintf(hex + 2 * j, 3, "%02x", (unsigned char)a->s[j]);
            }
            hex[2 * j] = '\0';
            pb_str(&p->pkt, DA_STRING, hex);
            break;
        default:
            pb_uint(&p->pkt, DA_UINT, a->u);
            break;
        }
        pb_end(&p->pkt, m);
    }
}

static int put_event(struct conv_perfetto *p, int type,
                     const struct timeline_event *e, struct qtrace_err *err)
{
    struct seq *s = seq_of(p, e->stream);
    struct pb_buf saved;
    uint64_t name_iid = 0, cat_iid = 0;
    pb_mark m;

    if (!s) {
        qtrace_err_set(err, "stream %" PRIu32 ": no track", e->stream);
        return -EINVAL;
    }
    if (e->name) {
        name_iid = intern(p, s, KIND_NAME, e->name);
    }
    if (e->cat && type != TYPE_END) {
        cat_iid = intern(p, s, KIND_CAT, e->cat);
    }
    /*
     * The TrackEvent first, into its own buffer: building it interns the
     * argument names, whose entries go before it in the packet.
     */
    pb_reset(&p->body);
    saved = p->pkt;
    p->pkt = p->body;
    m = pb_begin(&p->pkt, TP_TRACK_EVENT);
    pb_uint(&p->pkt, TE_TYPE, (uint64_t)type);
    pb_uint(&p->pkt, TE_TRACK_UUID, s->track);
    if (name_iid) {
        pb_uint(&p->pkt, TE_NAME_IID, name_iid);
    }
    if (cat_iid) {
        pb_uint(&p->pkt, TE_CATEGORY_IIDS, cat_iid);
    }
    put_args(p, s, e);
    pb_end(&p->pkt, m);
    p->body = p->pkt;
    p->pkt = saved;

    pb_uint(&p->pkt, TP_TIMESTAMP, e->time);
    pb_uint(&p->pkt, TP_SEQ_ID, s->id);
    pb_uint(&p->pkt, TP_SEQ_FLAGS, SEQ_NEEDS_STATE);
    put_interned(p);
    pb_raw(&p->pkt, p->body.data, p->body.len);
    if (p->body.oom) {
        p->pkt.oom = true;
    }
    return flush_packet(p, err);
}

static int on_begin(void *arg, const struct timeline_event *e,
                    struct qtrace_err *err)
{
    return put_event(arg, TYPE_BEGIN, e, err);
}

static int on_end(void *arg, const struct timeline_event *e,
                  struct qtrace_err *err)
{
    return put_event(arg, TYPE_END, e, err);
}

static int on_instant(void *arg, const struct timeline_event *e,
                      struct qtrace_err *err)
{
    return put_event(arg, TYPE_INSTANT, e, err);
}

static const struct timeline_ops perfetto_timeline_ops = {
    on_track, on_begin, on_end, on_instant,
};

/* What the process's name says of the clock (and perfetto_is_own finds). */
#define INSNS_MARK "[1 ns = 1 guest instruction]"
#define HOST_MARK "[host time]"

/* The process track, first packet of the file (and of sequence 1). */
static int put_process(struct conv_perfetto *p, struct qtrace_err *err)
{
    char name[320];
    pb_mark td, pd;

    snprintf(name, sizeof(name), "%s %s", timeline_program(p->tl),
             timeline_is_host(p->tl) ? HOST_MARK : INSNS_MARK);
    start_first_packet(p, &p->global);
    td = pb_begin(&p->pkt, TP_TRACK_DESCRIPTOR);
    pb_uint(&p->pkt, TD_UUID, PROCESS_UUID);
    pb_str(&p->pkt, TD_NAME, name);
    pd = pb_begin(&p->pkt, TD_PROCESS);
    pb_uint(&p->pkt, PD_PID, GUEST_PID);
    pb_str(&p->pkt, PD_NAME, name);
    pb_end(&p->pkt, pd);
    pb_end(&p->pkt, td);
    return flush_packet(p, err);
}

static int perfetto_begin(struct conv *cv, const char *out,
                          struct qtrace_err *err)
{
    struct conv_perfetto *p = cv->priv;
    unsigned int k;
    int e;

    p->out = out;
    for (k = 0; k < N_KINDS; k++) {
        p->iids[k] = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
                                           NULL);
        p->strs[k] = g_ptr_array_new();
    }
    p->seqs = g_hash_table_new_full(NULL, NULL, NULL, free_seq);
    seq_init(&p->global, GLOBAL_SEQ, PROCESS_UUID);
    p->tl = timeline_new(cv->rd, cv->want, &perfetto_timeline_ops, p, err);
    if (!p->tl) {
        return -ENOMEM;
    }
    p->f = fopen(out, "wb");
    if (!p->f) {
        e = errno;
        qtrace_err_set(err, "%s: %s", out, strerror(e));
        return -e;
    }
    p->fbuf = malloc(1 << 20);
    if (p->fbuf) {
        setvbuf(p->f, p->fbuf, _IOFBF, 1 << 20);
    }
    return put_process(p, err);
}

static int perfetto_record(struct conv *cv, const struct qtrace_record *rec,
                           struct qtrace_err *err)
{
    struct conv_perfetto *p = cv->priv;

    return timeline_record(p->tl, rec, err);
}

static void free_state(struct conv_perfetto *p)
{
    unsigned int k;

    timeline_free(p->tl);
    p->tl = NULL;
    for (k = 0; k < N_KINDS; k++) {
        if (p->iids[k]) {
            g_hash_table_destroy(p->iids[k]);
            p->iids[k] = NULL;
        }
        if (p->strs[k]) {
            g_ptr_array_free(p->strs[k], TRUE);
            p->strs[k] = NULL;
        }
    }
    if (p->seqs) {
        g_hash_table_destroy(p->seqs);
        p->seqs = NULL;
        seq_fini(&p->global);
    }
    pb_free(&p->pkt);
    pb_free(&p->body);
}

static int perfetto_end(struct conv *cv, bool complete,
                        struct qtrace_err *err)
{
    struct conv_perfetto *p = cv->priv;
    int ret = 0, e;
    bool bad;

    (void)complete;
    if (p->tl && p->f) {
        ret = timeline_finish(p->tl, err);
        if (ret == 0) {
            ret = timeline_check_shown(p->tl, cv->trace_path, err);
        }
    }
    if (p->f) {
        bad = ferror(p->f) != 0;
        if ((fclose(p->f) != 0 || bad) && ret == 0) {
            e = errno ? errno : EIO;
            qtrace_err_set(err, "%s: %s", p->out, strerror(e));
            ret = -e;
        }
        p->f = NULL;
    }
    free(p->fbuf);
    p->fbuf = NULL;
    free_state(p);
    return ret;
}

/* Whether out starts with the process packet put_process writes. */
static bool perfetto_is_own(const char *out)
{
    uint8_t head[512];
    FILE *f = fopen(out, "rb");
    uint64_t len;
    size_t n, k;

    if (!f) {
        return false;
    }
    n = fread(head, 1, sizeof(head), f);
    fclose(f);
    if (n < 2 || head[0] != (TRACE_PACKET << 3 | PB_WIRE_LEN)) {
        return false;
    }
    k = pb_varint_dec(head + 1, n - 1, &len);
    if (k == 0 || len > n - 1 - k) {
        return false;
    }
    return memmem(head + 1 + k, (size_t)len, INSNS_MARK,
                  sizeof(INSNS_MARK) - 1) != NULL ||
           memmem(head + 1 + k, (size_t)len, HOST_MARK,
                  sizeof(HOST_MARK) - 1) != NULL;
}

const struct conv_ops conv_perfetto_ops = {
    .name = "perfetto",
    .summary = "Perfetto protobuf trace (Perfetto UI, trace_processor)",
    .priv_size = sizeof(struct conv_perfetto),
    .out_kind = "a Perfetto trace written by qtrace",
    .takes_events = true,
    .default_hidden = timeline_default_hidden,
    .is_own = perfetto_is_own,
    .begin = perfetto_begin,
    .record = perfetto_record,
    .end = perfetto_end,
};
