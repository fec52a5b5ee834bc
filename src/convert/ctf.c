/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * `qtrace convert --to ctf TRACE DIR`: a CTF 1.8 trace directory that
 * babeltrace2 (and Trace Compass) read: DIR/metadata, the TSDL text of
 * the trace's catalog (ctf-enc.c), and one data stream file per vCPU
 * stream, DIR/stream-S (S the qtrace stream id), plus DIR/global for
 * the records of no vCPU (tb_trans, image_map). Every record selected
 * becomes one event with the same name and fields, at its time.
 *
 * Each stream fills a packet in memory and appends it to its file when
 * it reaches PACKET_BYTES (the file is opened for that append only, so
 * thousands of streams need no thousands of descriptors): memory is one
 * packet per stream, whatever the trace's length. A lost record ends
 * the packet before it, and the next packet's events_discarded counts
 * the records lost so far in that stream, which babeltrace2 reports as
 * discarded events. A time below its stream's last one (a damaged
 * trace; records of no vCPU carry the time of whichever vCPU wrote
 * them) is raised to it: CTF readers need each stream in time order.
 * In a trace with host clock stamps (timeline=on) the clock is the
 * host's, one for every stream, so that babeltrace2 shows the streams
 * in one time order; records of no vCPU then take the latest host time
 * met before them.
 * Runs in the qtrace command, single-threaded.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <glib.h>

#include "convert.h"
#include "ctf-enc.h"

#define PACKET_BYTES (64u * 1024u)

struct ctf_stream {
    uint32_t id;                    /* qtrace stream, UINT32_MAX: global */
    uint32_t vcpu;
    uint64_t last_time;
    uint64_t packets;               /* written so far */
    uint64_t discarded;             /* records lost so far */
    char *path;                     /* its file */
    struct ctf_packet pkt;
};

struct conv_ctf {
    const char *dir;
    const bool *want;
    uint8_t uuid[16];
    GHashTable *streams;            /* stream id -> struct ctf_stream */
    struct ctf_stream *cur;
    const struct qtrace_event_desc *lost;
    int lost_records;               /* its "records" argument, -1 */
    uint64_t events;                /* written */
    bool host;                      /* times are host times */
    uint64_t latest;                /* the latest host time met */
};

static void free_stream(void *p)
{
    struct ctf_stream *st = p;

    ctf_packet_free(&st->pkt);
    free(st->path);
    free(st);
}

/*
 * Append the stream's packet to its file and start the next one. An
 * empty packet is written only when asked (empty).
 */
static int flush_stream(struct conv_ctf *c, struct ctf_stream *st,
                        bool empty, struct qtrace_err *err)
{
    struct ctf_packet_info info = {
        .uuid = c->uuid,
        .stream_instance = st->id,
        .seq_num = st->packets,
        .discarded = st->discarded,
        .cpu_id = st->vcpu,
        .qtrace_stream = st->id,
    };
    FILE *f;
    int e = 0;

    if (st->pkt.n_events == 0 && !empty) {
        return 0;
    }
    ctf_packet_finish(&st->pkt, &info);
    f = fopen(st->path, "ab");
    if (!f || fwrite(st->pkt.data, 1, st->pkt.len, f) != st->pkt.len) {
        e = errno ? errno : EIO;
    }
    if (f && fclose(f) != 0 && !e) {
        e = errno ? errno : EIO;
    }
    if (e) {
        qtrace_err_set(err, "%s: %s", st->path, strerror(e));
        return -e;
    }
    st->packets++;
    ctf_packet_start(&st->pkt);
    return 0;
}

static struct ctf_stream *stream_of(struct conv_ctf *c,
                                    const struct qtrace_record *rec)
{
    uint32_t id = rec->vcpu == QTRACE_VCPU_NONE ? UINT32_MAX : rec->stream;
    struct ctf_stream *st;

    if (c->cur && c->cur->id == id) {
        return c->cur;
    }
    st = g_hash_table_lookup(c->streams, GUINT_TO_POINTER(id));
    if (st) {
        return st;
    }
    st = calloc(1, sizeof(*st));
    if (!st) {
        return NULL;
    }
    st->id = id;
    st->vcpu = rec->vcpu;
    st->path = id == UINT32_MAX ? g_strdup_printf("%s/global", c->dir)
                                : g_strdup_printf("%s/stream-%" PRIu32,
                                                  c->dir, id);
    ctf_packet_start(&st->pkt);
    g_hash_table_insert(c->streams, GUINT_TO_POINTER(id), st);
    return st;
}

static int ctf_record(struct conv *cv, const struct qtrace_record *rec,
                      struct qtrace_err *err)
{
    struct conv_ctf *c = cv->priv;
    struct ctf_stream *st;
    uint64_t time;
    int ret;

    if (!rec->ev || rec->ev->id >= QTRACE_MAX_EVENTS || !c->want[rec->ev->id]) {
        return 0;
    }
    st = c->cur = stream_of(c, rec);
    if (!st) {
        qtrace_err_set(err, "%s", strerror(ENOMEM));
        return -ENOMEM;
    }
    time = rec->time;
    if (c->host) {
        if (rec->vcpu == QTRACE_VCPU_NONE ||
            !qtrace_reader_host_time(cv->rd, rec, &time)) {
            time = rec->vcpu == QTRACE_VCPU_NONE ? c->latest : st->last_time;
        }
        if (time > c->latest) {
            c->latest = time;
        }
    }
    time = time > st->last_time ? time : st->last_time;
    st->last_time = time;
    if (rec->ev == c->lost) {
        /*
         * Readers count the loss from the packet before: a stream that
         * starts with a loss gets an empty packet first, at its time.
         */
        if (st->packets == 0 && st->pkt.n_events == 0) {
            st->pkt.ts_begin = st->pkt.ts_end = time;
        }
        ret = flush_stream(c, st, st->packets == 0, err);
        if (ret < 0) {
            return ret;
        }
        st->discarded += c->lost_records >= 0 ?
            qtrace_record_u64(rec, (unsigned int)c->lost_records) : 0;
    }
    if (!ctf_packet_add(&st->pkt, rec, time)) {
        qtrace_err_set(err, "%s", strerror(ENOMEM));
        return -ENOMEM;
    }
    c->events++;
    return st->pkt.len >= PACKET_BYTES ? flush_stream(c, st, false, err) : 0;
}

/* A stable uuid: the same trace always gives the same directory. */
static void make_uuid(struct conv_ctf *c, struct qtrace_reader *rd)
{
    GChecksum *sum = g_checksum_new(G_CHECKSUM_MD5);
    const struct qtrace_catalog *cat = qtrace_reader_catalog(rd);
    uint64_t size = 0;
    gsize len = sizeof(c->uuid);

    qtrace_reader_offset(rd, &size);
    g_checksum_update(sum, (const guchar *)"qtrace ctf", 10);
    if (cat->text) {
        g_checksum_update(sum, (const guchar *)cat->text, -1);
    }
    g_checksum_update(sum, (const guchar *)&size, sizeof(size));
    g_checksum_get_digest(sum, c->uuid, &len);
    g_checksum_free(sum);
    c->uuid[6] = (uint8_t)((c->uuid[6] & 0x0f) | 0x30);    /* version 3 */
    c->uuid[8] = (uint8_t)((c->uuid[8] & 0x3f) | 0x80);    /* RFC 4122 */
}

static int write_metadata(struct conv_ctf *c, struct conv *cv,
                          struct qtrace_err *err)
{
    char *path = g_strdup_printf("%s/metadata", c->dir);
    FILE *f = fopen(path, "w");
    int e = 0;

    if (!f) {
        e = errno;
    } else {
        e = -ctf_metadata_write(f, qtrace_reader_catalog(cv->rd), c->want,
                                c->uuid, cv->rd, c->host ? CTF_CLOCK_HOST :
                                                           CTF_CLOCK_INSNS);
        if (fclose(f) != 0 && !e) {
            e = errno ? errno : EIO;
        }
    }
    if (e) {
        qtrace_err_set(err, "%s: %s", path, strerror(e));
    }
    g_free(path);
    return -e;
}

static int ctf_begin(struct conv *cv, const char *out, struct qtrace_err *err)
{
    struct conv_ctf *c = cv->priv;
    const struct qtrace_catalog *cat = qtrace_reader_catalog(cv->rd);
    unsigned int i;

    c->dir = out;
    c->want = cv->want;
    c->streams = g_hash_table_new_full(NULL, NULL, NULL, free_stream);
    c->lost = qtrace_catalog_find(cat, "lost");
    c->lost_records = -1;
    for (i = 0; c->lost && i < c->lost->n_args; i++) {
        if (strcmp(c->lost->args[i].name, "records") == 0 &&
            c->lost->args[i].type != QTRACE_ARG_STR &&
            c->lost->args[i].type != QTRACE_ARG_BYTES) {
            c->lost_records = (int)i;
        }
    }
    make_uuid(c, cv->rd);
    /* One clock for every stream when the trace has its stamps. */
    c->host = qtrace_reader_has_timeline(cv->rd) &&
              qtrace_reader_use_timeline(cv->rd, err) == 0;
    return write_metadata(c, cv, err);
}

static gint cmp_id(gconstpointer a, gconstpointer b)
{
    uint32_t x = GPOINTER_TO_UINT(a);
    uint32_t y = GPOINTER_TO_UINT(b);

    return x < y ? -1 : x > y;
}

static int ctf_end(struct conv *cv, bool complete, struct qtrace_err *err)
{
    struct conv_ctf *c = cv->priv;
    GList *ids, *l;
    int ret = 0;

    (void)complete;
    if (!c->streams) {
        return 0;
    }
    ids = g_list_sort(g_hash_table_get_keys(c->streams), cmp_id);
    for (l = ids; l && ret == 0; l = l->next) {
        ret = flush_stream(c, g_hash_table_lookup(c->streams, l->data),
                           false, err);
    }
    g_list_free(ids);
    g_hash_table_destroy(c->streams);
    c->streams = NULL;
    if (ret == 0 && c->events == 0) {
        qtrace_err_set(err, "%s: nothing to convert (no record of the "
                       "events selected)", cv->trace_path);
        ret = -ENODATA;
    }
    return ret;
}

static bool dir_is_empty(const char *path)
{
    GDir *d = g_dir_open(path, 0, NULL);
    bool empty = d && g_dir_read_name(d) == NULL;

    if (d) {
        g_dir_close(d);
    }
    return empty;
}

/*
 * An empty directory, or one whose metadata this converter wrote, may
 * be replaced; any other directory (another tool's CTF trace too) not.
 */
static bool ctf_is_own(const char *out)
{
    char *path = g_strdup_printf("%s/metadata", out);
    char head[sizeof(CTF_TSDL_HEAD)] = "";
    FILE *f = fopen(path, "r");
    bool own = false;

    g_free(path);
    if (f) {
        own = fread(head, 1, sizeof(head) - 1, f) == sizeof(head) - 1 &&
              strcmp(head, CTF_TSDL_HEAD) == 0;
        fclose(f);
    }
    return own || dir_is_empty(out);
}

const struct conv_ops conv_ctf_ops = {
    .name = "ctf",
    .summary = "CTF 1.8 trace directory (babeltrace2, Trace Compass)",
    .priv_size = sizeof(struct conv_ctf),
    .out_is_dir = true,
    .out_kind = "a CTF trace directory",
    .takes_events = true,
    .default_hidden = NULL,
    .is_own = ctf_is_own,
    .begin = ctf_begin,
    .record = ctf_record,
    .end = ctf_end,
};
