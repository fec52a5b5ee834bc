/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The k-way merge of a trace's vCPU streams by host time (see
 * qtrace/merge.h). The planning reader lists the streams from the index
 * and reads each one's first chunk for where it begins (its first stamp)
 * and its first order point. Each stream, once the merge reaches its
 * beginning, gets a reader of its own selecting it (and, when the trace
 * holds order records, a second one reading only those, ahead); a binary
 * heap holds the open streams by the host time of their next record.
 * Runs on the caller's thread.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "idmap.h"
#include "le.h"
#include "reader-int.h"
#include "qtrace/merge.h"

#define NO_ORDER UINT64_MAX

struct mstream {
    uint32_t stream, vcpu;
    uint64_t first_seq;             /* its first DATA chunk */
    uint64_t begin;                 /* host time of its first stamp */
    uint64_t first_order;           /* its first order point's seq (0 when
                                       its first chunk has none: unknown),
                                       NO_ORDER without order records */
    struct qtrace_reader *rd;       /* its records, while open */
    struct qtrace_reader *ord;      /* its order points, ahead */
    uint64_t next_order;            /* seq of its next order point still
                                       to hand out, NO_ORDER: none */
    struct qtrace_record head;      /* its next record, when in the heap */
    uint64_t key;                   /* head's host time: never below the
                                       one before it in the stream */
    bool head_none;                 /* head belongs to no vCPU: first out */
    uint64_t none_seq, none_ord;    /* the last record of no vCPU its
                                       reader handed out: chunk, ordinal */
    bool none_any;
};

struct qtrace_merge {
    struct qtrace_reader *rd;       /* the planning reader (the caller's) */
    uint64_t want[INDEX_WORDS];     /* the events handed out */
    uint64_t sel[INDEX_WORDS];      /* ... and what the streams read */
    uint16_t order_id;              /* 0: no order record to follow */
    uint16_t order_seq_off;         /* its seq argument */
    struct mstream *s;              /* by begin, then stream id */
    size_t n;
    size_t pending;                 /* s[pending..n) not opened yet */
    uint64_t *pending_min_order;    /* min first_order of s[i..n) */
    struct mstream **heap;
    size_t heap_n;
    struct mstream *last;           /* handed out its head: moves on at
                                       the next call */
    uint64_t last_ns;               /* the last host time handed out */
    uint64_t none_seq, none_ord;    /* the last record of no vCPU handed
                                       out: chunk, ordinal */
    bool none_any;
    struct qtrace_reader *end_rd;   /* a stream's reader that finished */
    int failed;                     /* -errno once a reading stopped */
    char fail_msg[sizeof(((struct qtrace_err *)0)->msg)];
    uint64_t n_open, max_open;
};

/* ---- the heap: head of no vCPU first, then host time, then stream ---- */

static bool before(const struct mstream *a, const struct mstream *b)
{
    if (a->head_none != b->head_none) {
        return a->head_none;
    }
    if (a->key != b->key) {
        return a->key < b->key;
    }
    return a->stream < b->stream;
}

static void heap_push(struct qtrace_merge *m, struct mstream *s)
{
    size_t i = m->heap_n++;

    while (i > 0 && before(s, m->heap[(i - 1) / 2])) {
        m->heap[i] = m->heap[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    m->heap[i] = s;
}

/* Remove the entry at i. */
static void heap_remove(struct qtrace_merge *m, size_t i)
{
    struct mstream *s = m->heap[--m->heap_n];
    size_t c;

    if (i == m->heap_n) {
        return;
    }
    /* s takes slot i: up if it beats the parent, else down. */
    while (i > 0 && before(s, m->heap[(i - 1) / 2])) {
        m->heap[i] = m->heap[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    for (;;) {
        c = 2 * i + 1;
        if (c >= m->heap_n) {
            break;
        }
        if (c + 1 < m->heap_n && before(m->heap[c + 1], m->heap[c])) {
            c++;
        }
        if (!before(m->heap[c], s)) {
            break;
        }
        m->heap[i] = m->heap[c];
        i = c;
    }
    m->heap[i] = s;
}

/* ---- the streams' readers ---- */

static int fail(struct qtrace_merge *m, int ret, const char *msg,
                struct qtrace_err *err)
{
    m->failed = ret < 0 ? ret : -EIO;
    snprintf(m->fail_msg, sizeof(m->fail_msg), "%s", msg);
    qtrace_err_set(err, "%s", m->fail_msg);
    return m->failed;
}

static bool is_order(const struct qtrace_merge *m,
                     const struct qtrace_record *rec)
{
    return m->order_id && rec->ev && rec->ev->id == m->order_id &&
           rec->size >= (uint32_t)m->order_seq_off + 8;
}

/* The stream's next order point from its reader ahead. */
static int next_order(struct qtrace_merge *m, struct mstream *s,
                      struct qtrace_err *err)
{
    struct qtrace_record rec;
    int ret;

    s->next_order = NO_ORDER;
    while (s->ord && (ret = qtrace_reader_next(s->ord, &rec, err)) != 0) {
        if (ret < 0) {
            return fail(m, ret, err->msg, err);
        }
        if (is_order(m, &rec) && rec.stream == s->stream) {
            s->next_order = load64(rec.data + m->order_seq_off);
            return 0;
        }
    }
    return 0;
}

/* The stream's reader finished: kept if it is the first to. */
static void finish_stream(struct qtrace_merge *m, struct mstream *s)
{
    qtrace_reader_close(s->ord);
    s->ord = NULL;
    if (m->end_rd) {
        qtrace_reader_close(m->end_rd);
    }
    m->end_rd = s->rd;
    s->rd = NULL;
    m->n_open--;
}

/*
 * The stream's next record into the heap; none when its reader is done.
 * A record of no vCPU another stream's reader handed out already (every
 * reader meets the translation chunks) is passed over.
 */
static int advance(struct qtrace_merge *m, struct mstream *s,
                   struct qtrace_err *err)
{
    struct qtrace_record rec;
    uint64_t t;
    int ret;

    for (;;) {
        ret = qtrace_reader_next(s->rd, &rec, err);
        if (ret < 0) {
            fail(m, ret, err->msg, err);
            finish_stream(m, s);
            return m->failed;
        }
        if (ret == 0) {
            finish_stream(m, s);
            return 0;
        }
        if (rec.vcpu != QTRACE_VCPU_NONE) {
            if (!qtrace_reader_host_time(s->rd, &rec, &t) || t < s->key) {
                t = s->key;
            }
            s->key = t;
            s->head_none = false;
            break;
        }
        if (s->none_any && rec.chunk_seq == s->none_seq) {
            s->none_ord++;
        } else {
            s->none_seq = rec.chunk_seq;
            s->none_ord = 0;
            s->none_any = true;
        }
        if (m->none_any && (s->none_seq < m->none_seq ||
                            (s->none_seq == m->none_seq &&
                             s->none_ord <= m->none_ord))) {
            continue;
        }
        m->none_seq = s->none_seq;
        m->none_ord = s->none_ord;
        m->none_any = true;
        s->head_none = true;
        break;
    }
    s->head = rec;
    heap_push(m, s);
    return 1;
}

/* Open the next pending stream: its readers, its first record. */
static int open_next(struct qtrace_merge *m, struct qtrace_err *err)
{
    struct mstream *s = &m->s[m->pending++];
    uint64_t ord[INDEX_WORDS] = { 0 };
    int ret;

    ret = qtrace_reader_reopen(m->rd, &s->rd, err);
    if (ret == 0) {
        ret = qtrace_reader_select_stream(s->rd, m->sel, s->stream, err);
    }
    if (ret == 0 && m->order_id) {
        index_mask_set(ord, m->order_id);
        ret = qtrace_reader_reopen(m->rd, &s->ord, err);
        if (ret == 0) {
            /* Order points need no host time: no stamps to look for. */
            s->ord->clk.id = 0;
            ret = qtrace_reader_select_stream(s->ord, ord, s->stream, err);
        }
    }
    if (ret < 0) {
        qtrace_reader_close(s->ord);
        qtrace_reader_close(s->rd);
        s->ord = s->rd = NULL;
        return fail(m, ret, err->msg, err);
    }
    if (++m->n_open > m->max_open) {
        m->max_open = m->n_open;
    }
    s->key = s->begin;
    if (m->order_id) {
        ret = next_order(m, s, err);
        if (ret < 0) {
            return ret;
        }
    }
    ret = advance(m, s, err);
    return ret < 0 ? ret : 0;
}

/* ---- choosing the next record ---- */

/*
 * The smallest next order point of the open streams, and the next
 * smallest: a stream's order point waits for every smaller one of the
 * others.
 */
static void order_mins(const struct qtrace_merge *m, uint64_t *min1,
                       const struct mstream **at1, uint64_t *min2)
{
    size_t i;

    *min1 = *min2 = NO_ORDER;
    *at1 = NULL;
    for (i = 0; i < m->heap_n; i++) {
        const struct mstream *s = m->heap[i];

        if (s->next_order < *min1) {
            *min2 = *min1;
            *min1 = s->next_order;
            *at1 = s;
        } else if (s->next_order < *min2) {
            *min2 = s->next_order;
        }
    }
}

/* Whether s's head is an order point that must wait for another's. */
static bool blocked(const struct qtrace_merge *m, const struct mstream *s,
                    uint64_t min1, const struct mstream *at1, uint64_t min2)
{
    uint64_t seq;

    if (s->head_none || !is_order(m, &s->head)) {
        return false;
    }
    seq = load64(s->head.data + m->order_seq_off);
    return seq > (s == at1 ? min2 : min1);
}

/*
 * The heap slot of the record to hand out: the first by time whose order
 * point (if it is one) waits for no other open stream's. The stream
 * holding the smallest point never waits, so there is one. SIZE_MAX when
 * a stream not opened yet must be first (its first point is smaller).
 */
static size_t pick(struct qtrace_merge *m)
{
    const struct mstream *at1, *s;
    uint64_t min1, min2;
    size_t i = 0, j;

    s = m->heap[0];
    if (!m->order_id || s->head_none || !is_order(m, &s->head)) {
        return 0;
    }
    order_mins(m, &min1, &at1, &min2);
    if (blocked(m, s, min1, at1, min2)) {
        i = SIZE_MAX;
        for (j = 1; j < m->heap_n; j++) {
            if (!blocked(m, m->heap[j], min1, at1, min2) &&
                (i == SIZE_MAX || before(m->heap[j], m->heap[i]))) {
                i = j;
            }
        }
        if (i == SIZE_MAX) {
            i = 0;      /* not reached: at1 is never blocked */
        }
    }
    s = m->heap[i];
    if (!s->head_none && is_order(m, &s->head) && m->pending < m->n &&
        m->pending_min_order[m->pending] <
        load64(s->head.data + m->order_seq_off)) {
        return SIZE_MAX;
    }
    return i;
}

int qtrace_merge_next(struct qtrace_merge *m, struct qtrace_record *rec,
                      uint64_t *ns, struct qtrace_err *err)
{
    struct mstream *s;
    size_t i;
    int ret;

    if (m->failed) {
        qtrace_err_set(err, "%s", m->fail_msg);
        return m->failed;
    }
    /* No vCPU stream: the planning reader's records, of no vCPU. */
    if (m->n == 0) {
        ret = qtrace_reader_next(m->rd, rec, err);
        if (ret < 0) {
            return fail(m, ret, err->msg, err);
        }
        *ns = QTRACE_MERGE_NO_TIME;
        return ret;
    }
    if (m->last) {
        s = m->last;
        m->last = NULL;
        ret = advance(m, s, err);
        if (ret < 0) {
            return ret;
        }
    }
    for (;;) {
        if (m->heap_n == 0) {
            if (m->pending == m->n) {
                return 0;
            }
            ret = open_next(m, err);
            if (ret < 0) {
                return ret;
            }
            continue;
        }
        i = pick(m);
        s = i == SIZE_MAX ? NULL : m->heap[i];
        /* Every stream begun by then is open before a record goes out. */
        if (!s || (!s->head_none && m->pending < m->n &&
                   m->s[m->pending].begin <= s->key)) {
            ret = open_next(m, err);
            if (ret < 0) {
                return ret;
            }
            continue;
        }
        heap_remove(m, i);
        if (!s->head_none && is_order(m, &s->head)) {
            ret = next_order(m, s, err);
            if (ret < 0) {
                return ret;
            }
            /* Followed for the order, not asked for: passed over. */
            if (!index_mask_has(m->want, s->head.ev->id)) {
                ret = advance(m, s, err);
                if (ret < 0) {
                    return ret;
                }
                continue;
            }
        }
        break;
    }
    *rec = s->head;
    /*
     * The planning reader's description of the event: callers compare
     * descriptions by address, and each reader holds its own copy of the
     * same catalog (the trace's), with the same ids.
     */
    rec->ev = &qtrace_reader_catalog(m->rd)->events[rec->ev->id];
    if (s->head_none) {
        *ns = QTRACE_MERGE_NO_TIME;
    } else {
        m->last_ns = s->key > m->last_ns ? s->key : m->last_ns;
        *ns = m->last_ns;
    }
    m->last = s;
    return 1;
}

/* ---- planning ---- */

struct plan {
    struct qtrace_merge *m;
    struct idmap ids;               /* stream id -> index in m->s, + 1 */
    size_t cap;
    bool any_order;
    int ret;
    char why[160];
};

static void note_chunk(void *arg, const struct qtrace_chunk_entry *e)
{
    struct plan *p = arg;
    struct qtrace_merge *m = p->m;
    struct mstream *more;
    uint32_t *at;

    if (e->vcpu == QTRACE_VCPU_NONE || p->ret < 0) {
        return;
    }
    if (m->order_id && index_mask_has(e->events, m->order_id)) {
        p->any_order = true;
    }
    at = idmap_put(&p->ids, e->stream, p->why, sizeof(p->why));
    if (!at) {
        p->ret = -ENOMEM;
        return;
    }
    if (*at) {
        return;
    }
    if (m->n == p->cap) {
        p->cap = p->cap ? 2 * p->cap : 16;
        more = realloc(m->s, p->cap * sizeof(*more));
        if (!more) {
            snprintf(p->why, sizeof(p->why), "%s", strerror(ENOMEM));
            p->ret = -ENOMEM;
            return;
        }
        m->s = more;
    }
    memset(&m->s[m->n], 0, sizeof(m->s[m->n]));
    m->s[m->n].stream = e->stream;
    m->s[m->n].vcpu = e->vcpu;
    m->s[m->n].first_seq = e->chunk_seq;
    *at = (uint32_t)++m->n;
}

/* What a stream's first chunk says: its first stamp and order point. */
struct first_scan {
    const struct qtrace_merge *m;
    uint16_t clock_id, off_ns, clock_fixed;
    bool stamp, order;
    uint64_t ns, seq;
};

static void note_first(void *arg, const uint8_t *rec, size_t size)
{
    struct first_scan *f = arg;
    uint16_t id = load16(rec);

    if (id == f->clock_id && !f->stamp && size >= f->clock_fixed) {
        f->stamp = true;
        f->ns = load64(rec + f->off_ns);
    } else if (f->m->order_id && id == f->m->order_id && !f->order &&
               size >= (size_t)f->m->order_seq_off + 8) {
        f->order = true;
        f->seq = load64(rec + f->m->order_seq_off);
    }
}

static int plan_stream(struct qtrace_merge *m, struct mstream *s,
                       bool any_order, struct qtrace_err *err)
{
    struct qtrace_reader *rd = m->rd;
    struct first_scan f = {
        .m = m, .clock_id = rd->clk.id, .off_ns = rd->clk.off_ns,
        .clock_fixed = rd->info[rd->clk.id].fixed_size,
    };
    int ret = reader_chunk_records(rd, s->first_seq, note_first, &f, err);

    if (ret < 0) {
        return ret;
    }
    s->begin = f.stamp && f.ns > rd->clk.origin ? f.ns - rd->clk.origin : 0;
    s->first_order = !any_order ? NO_ORDER : f.order ? f.seq : 0;
    s->next_order = NO_ORDER;
    return 0;
}

static int by_begin(const void *a, const void *b)
{
    const struct mstream *x = a, *y = b;

    if (x->begin != y->begin) {
        return x->begin < y->begin ? -1 : 1;
    }
    return (x->stream > y->stream) - (x->stream < y->stream);
}

/* The order event, when it has the seq the merge follows. */
static void find_order(struct qtrace_merge *m)
{
    const struct qtrace_event_desc *ev =
        qtrace_catalog_find(qtrace_reader_catalog(m->rd), "order");
    unsigned int i;

    for (i = 0; ev && i < ev->n_args; i++) {
        if (strcmp(ev->args[i].name, "seq") == 0 &&
            (ev->args[i].type == QTRACE_ARG_U64 ||
             ev->args[i].type == QTRACE_ARG_I64)) {
            m->order_id = (uint16_t)ev->id;
            m->order_seq_off = ev->args[i].offset;
        }
    }
}

static int plan(struct qtrace_merge *m, struct qtrace_err *err)
{
    struct plan p = { .m = m, .ret = 0 };
    size_t i;
    int ret;

    idmap_init(&p.ids, sizeof(uint32_t), NULL);
    ret = qtrace_reader_chunks(m->rd, note_chunk, &p, err);
    idmap_fini(&p.ids);
    if (ret == 0 && p.ret < 0) {
        qtrace_err_set(err, "%s", p.why);
        ret = p.ret;
    }
    if (!p.any_order) {
        m->order_id = 0;
    }
    for (i = 0; ret == 0 && i < m->n; i++) {
        ret = plan_stream(m, &m->s[i], p.any_order, err);
    }
    if (ret < 0) {
        return ret;
    }
    /* A trace may have no vCPU stream (m->s is then NULL). */
    if (m->n > 1) {
        qsort(m->s, m->n, sizeof(*m->s), by_begin);
    }
    m->heap = calloc(m->n + 1, sizeof(*m->heap));
    m->pending_min_order = calloc(m->n + 1, sizeof(*m->pending_min_order));
    if (!m->heap || !m->pending_min_order) {
        qtrace_err_set(err, "%s", strerror(ENOMEM));
        return -ENOMEM;
    }
    m->pending_min_order[m->n] = NO_ORDER;
    for (i = m->n; i-- > 0;) {
        m->pending_min_order[i] = m->s[i].first_order <
                                  m->pending_min_order[i + 1] ?
                                  m->s[i].first_order :
                                  m->pending_min_order[i + 1];
    }
    qtrace_reader_rewind(m->rd);
    return 0;
}

int qtrace_merge_open(struct qtrace_reader *rd, const uint64_t *want,
                      struct qtrace_merge **out, struct qtrace_err *err)
{
    struct qtrace_merge *m;
    int ret;

    *out = NULL;
    ret = qtrace_reader_use_timeline(rd, err);
    if (ret < 0) {
        return ret;
    }
    m = calloc(1, sizeof(*m));
    if (!m) {
        qtrace_err_set(err, "%s", strerror(ENOMEM));
        return -ENOMEM;
    }
    m->rd = rd;
    if (want) {
        memcpy(m->want, want, sizeof(m->want));
    } else {
        memset(m->want, 0xff, sizeof(m->want));
    }
    memcpy(m->sel, m->want, sizeof(m->sel));
    find_order(m);
    ret = plan(m, err);
    /* Without a stream the planning reader hands out what there is. */
    if (ret == 0 && m->n == 0) {
        ret = qtrace_reader_select(rd, m->want, err);
    }
    if (ret < 0) {
        qtrace_merge_close(m);
        return ret;
    }
    if (m->order_id) {
        index_mask_set(m->sel, m->order_id);
    }
    *out = m;
    return 0;
}

const struct qtrace_reader *qtrace_merge_reader(const struct qtrace_merge *m)
{
    return m->end_rd && (m->failed || (m->heap_n == 0 && !m->last &&
                                       m->pending == m->n)) ?
           m->end_rd : m->rd;
}

void qtrace_merge_counts(const struct qtrace_merge *m, uint64_t *streams,
                         uint64_t *max_open)
{
    *streams = m->n;
    *max_open = m->max_open;
}

void qtrace_merge_close(struct qtrace_merge *m)
{
    size_t i;

    if (!m) {
        return;
    }
    for (i = 0; i < m->n; i++) {
        qtrace_reader_close(m->s[i].rd);
        qtrace_reader_close(m->s[i].ord);
    }
    qtrace_reader_close(m->end_rd);
    free(m->s);
    free(m->heap);
    free(m->pending_min_order);
    free(m);
}
