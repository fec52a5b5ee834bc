/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The native trace reader, its index half: finds the trace's INDEX chunk
 * (docs/format.md, "INDEX chunk") from the end of the file, or rebuilds
 * the index with one pass that decodes no record when the trace has none
 * (cut short), and walks only the chunks that hold the events a caller
 * selected. Runs on the caller's thread, like the rest of the reader.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "le.h"
#include "chunk.h"
#include "packed.h"
#include "reader-int.h"

/*
 * How far from the end of the file the INDEX chunk's tag is looked for:
 * only the END chunk, a few hundred bytes of text, follows it.
 */
#define INDEX_TAIL (64u << 10)

/* The INDEX tag nearest the end of the file, or NULL. */
static const uint8_t *find_tag(const struct qtrace_reader *rd)
{
    const uint8_t *lo = rd->map + rd->first_off;
    const uint8_t *p = rd->map + rd->size;

    if (rd->size - rd->first_off > INDEX_TAIL) {
        lo = p - INDEX_TAIL;
    }
    for (p -= 8; p >= lo; p--) {
        if (*p == 'Q' && memcmp(p, INDEX_TAG, 8) == 0) {
            return p;
        }
    }
    return NULL;
}

/*
 * The INDEX chunk whose tag is at tag, checked as any chunk (magic,
 * length, checksum) without stopping the reader when it is not one.
 */
static bool check_index_chunk(const struct qtrace_reader *rd,
                              const uint8_t *tag, uint64_t *off,
                              struct qtrace_chunk_hdr *hdr)
{
    const uint8_t *p;

    *off = load64(tag - 8);
    if (*off < rd->first_off || *off > rd->size - CHUNK_HDR_SIZE) {
        return false;
    }
    p = rd->map + *off;
    hdr->magic = load32(p);
    hdr->kind = load16(p + 4);
    hdr->len = load32(p + 16);
    hdr->crc = load32(p + 20);
    hdr->seq = load64(p + 24);
    return hdr->magic == QTRACE_CHUNK_MAGIC &&
           hdr->kind == QTRACE_CHUNK_INDEX &&
           *off + CHUNK_HDR_SIZE + hdr->len == (uint64_t)(tag + 8 - rd->map) &&
           qtrace_chunk_crc((const struct qtrace_chunk_hdr *)(const void *)p,
                            p + CHUNK_HDR_SIZE, hdr->len) == hdr->crc;
}

/* Entries in file order, all before the INDEX chunk. */
static bool entries_sane(const struct index *ix, uint64_t index_off,
                         uint64_t index_seq)
{
    size_t i;

    for (i = 0; i < ix->n; i++) {
        if (ix->e[i].off >= index_off || ix->e[i].seq >= index_seq ||
            (i > 0 && (ix->e[i].off <= ix->e[i - 1].off ||
                       ix->e[i].seq <= ix->e[i - 1].seq))) {
            return false;
        }
    }
    return true;
}

/*
 * The END chunk that ends the file, if any: a valid chunk of kind END
 * whose payload ends on the file's last byte, looked for in the tail
 * (END is a few lines of text). Its seq is not checked: its position is
 * not known without a pass, and a wrong one only lowers a bound.
 */
static const uint8_t *find_end_chunk(const struct qtrace_reader *rd,
                                     uint32_t *len)
{
    const uint8_t *lo = rd->map + rd->first_off;
    const uint8_t *p;

    if (rd->size - rd->first_off < CHUNK_HDR_SIZE) {
        return NULL;
    }
    if (rd->size - rd->first_off > INDEX_TAIL) {
        lo = rd->map + rd->size - INDEX_TAIL;
    }
    for (p = rd->map + rd->size - CHUNK_HDR_SIZE; p >= lo; p--) {
        if (load32(p) != QTRACE_CHUNK_MAGIC ||
            load16(p + 4) != QTRACE_CHUNK_END ||
            (uint64_t)(p - rd->map) + CHUNK_HDR_SIZE + load32(p + 16) !=
            rd->size) {
            continue;
        }
        *len = load32(p + 16);
        if (qtrace_chunk_crc((const struct qtrace_chunk_hdr *)(const void *)p,
                             p + CHUNK_HDR_SIZE, *len) == load32(p + 20)) {
            return p + CHUNK_HDR_SIZE;
        }
    }
    return NULL;
}

/* END's decimal value of key, or UINT64_MAX when absent or not one. */
static uint64_t end_count(const struct kv_list *end, const char *key)
{
    const char *v = kv_get(end, key);
    char *stop;
    uint64_t n;

    if (!v || *v < '0' || *v > '9') {
        return UINT64_MAX;
    }
    errno = 0;
    n = strtoull(v, &stop, 10);
    return *stop != '\0' || errno ? UINT64_MAX : n;
}

void reader_tail_end_bounds(const struct qtrace_reader *rd,
                            struct end_bounds *b)
{
    struct kv_list end = { 0 };
    const uint8_t *payload;
    char why[128];
    uint32_t len;

    b->records = b->streams = b->translations = UINT64_MAX;
    payload = find_end_chunk(rd, &len);
    if (payload && kv_parse(&end, payload, len, why, sizeof(why)) == 0) {
        b->records = end_count(&end, "records");
        b->streams = end_count(&end, "streams");
        b->translations = end_count(&end, "translations");
    }
    kv_fini(&end);
}

/* Load the file's own index; false when it has none that holds. */
static bool load_index(struct qtrace_reader *rd)
{
    struct qtrace_chunk_hdr hdr;
    const uint8_t *tag = find_tag(rd);
    uint64_t off;

    /*
     * Each entry names a chunk of 32 bytes at least before the INDEX: a
     * count past that is refused before its entries are allocated.
     */
    if (!tag || !check_index_chunk(rd, tag, &off, &hdr) ||
        hdr.len < INDEX_HDR_SIZE ||
        load32(rd->map + off + CHUNK_HDR_SIZE + 4) >
        (off - rd->first_off) / CHUNK_HDR_SIZE ||
        index_decode(&rd->ix, rd->map + off + CHUNK_HDR_SIZE, hdr.len) < 0 ||
        !entries_sane(&rd->ix, off, hdr.seq)) {
        index_fini(&rd->ix);
        return false;
    }
    rd->ix_stop_off = off;
    rd->ix_stop_no = hdr.seq;
    return true;
}

/*
 * The events of one DATA chunk, decompressed if needed. False when the
 * chunk cannot be decoded: the reading stops there, and the walk then
 * reaches it to say why.
 */
static bool scan_chunk(struct qtrace_reader *rd, const struct index_ids *ids,
                       const struct qtrace_chunk_hdr *hdr,
                       const uint8_t *payload, uint64_t *mask,
                       uint64_t *blocks_left)
{
    size_t len = hdr->len;
    uint64_t blocks;
    char why[160];

    if (hdr->flags & ~(QTRACE_CHUNK_ZSTD | QTRACE_CHUNK_PACKED_FLAGS)) {
        return false;
    }
    if ((hdr->flags & QTRACE_CHUNK_ZSTD) &&
        zchunk_inflate(&rd->zbuf, payload, hdr->len, QTRACE_CHUNK_MAX,
                       &payload, &len, why, sizeof(why)) < 0) {
        return false;
    }
    /*
     * A bad record is met when the chunk is read: always read it. So
     * with blocks past the END chunk's count (unpack.c refuses them).
     */
    if (index_scan_blocks(payload, len, hdr->flags,
                          ids, mask, &blocks) < 0 || blocks > *blocks_left) {
        memset(mask, 0xff, INDEX_WORDS * sizeof(*mask));
        *blocks_left = 0;
    } else {
        *blocks_left -= blocks;
    }
    return true;
}

/*
 * A trace without its index (cut short, or from an older writer): one
 * pass over the chunks, checked as the reader checks them, decompressed
 * but not expanded. It stops where reading would stop, and the walk
 * goes on from there to meet the same END, cut or error.
 */
static int rebuild_index(struct qtrace_reader *rd)
{
    struct qtrace_chunk_hdr hdr;
    struct index_entry e;
    struct index_ids ids;
    struct qtrace_err err;
    const uint8_t *payload;
    uint64_t off = rd->first_off, no = 1;
    uint64_t blocks_left = rd->up.records_bound;
    int ret = 0;

    index_ids_find(&ids, &rd->cat);
    while (off < rd->size &&
           reader_check_chunk(rd, off, no, &hdr, &payload, &err) == 0 &&
           hdr.kind != QTRACE_CHUNK_END && hdr.kind != QTRACE_CHUNK_META) {
        reader_progress(rd, off);
        if (hdr.kind == QTRACE_CHUNK_DATA) {
            memset(&e, 0, sizeof(e));
            e.off = off;
            e.seq = no;
            e.vcpu = hdr.vcpu;
            e.stream = hdr.stream;
            if (!scan_chunk(rd, &ids, &hdr, payload, e.mask,
                            &blocks_left)) {
                break;
            }
            ret = index_add(&rd->ix, &e);
            if (ret < 0) {
                break;
            }
        }
        off += CHUNK_HDR_SIZE + hdr.len;
        no++;
    }
    rd->ix_stop_off = off;
    rd->ix_stop_no = no;
    return ret;
}

bool qtrace_reader_index(struct qtrace_reader *rd)
{
    reader_ahead_pause(rd);
    if (!rd->ix_tried && !rd->etr) {
        rd->ix_tried = true;
        rd->ix_from_file = load_index(rd);
        rd->ix_ready = rd->ix_from_file;
    }
    return rd->ix_from_file;
}

/*
 * Events whose chunks must be read to hand out want: a packed stream's
 * blocks need their translations, and its accesses their blocks; a lost
 * record restarts a packed stream's state.
 */
static void find_needed(struct qtrace_reader *rd, const uint64_t *want)
{
    const struct unpacker *u = &rd->up;
    bool blocks = index_mask_has(want, u->exec_tb.id) ||
                  index_mask_has(want, u->mem.id);

    memcpy(rd->need, want, sizeof(rd->need));
    index_mask_set(rd->need, u->lost_id);
    if (blocks) {
        index_mask_set(rd->need, u->exec_tb.id);
        index_mask_set(rd->need, u->mem.id);
        index_mask_set(rd->need, u->tb_trans_id);
    }
    /* id 0 stands for an event the catalog lacks: never needed. */
    rd->need[0] &= ~1ull;
    rd->up.skip_blocks = !blocks;
}

int reader_index_ready(struct qtrace_reader *rd, struct qtrace_err *err)
{
    int ret;

    qtrace_reader_index(rd);
    if (rd->ix_ready) {
        return 0;
    }
    ret = rebuild_index(rd);
    qtrace_reader_rewind(rd);
    if (ret < 0) {
        qtrace_err_set(err, "chunk index: %s", rd->ix.why);
        index_fini(&rd->ix);
        return ret;
    }
    rd->ix_ready = true;
    return 0;
}

int qtrace_reader_select(struct qtrace_reader *rd, const uint64_t *want,
                         struct qtrace_err *err)
{
    int ret;

    reader_ahead_drop(rd);
    rd->selecting = false;
    rd->sel_one = false;
    rd->up.skip_blocks = false;
    qtrace_reader_rewind(rd);
    if (!want || rd->etr) {
        return 0;
    }
    ret = reader_index_ready(rd, err);
    if (ret < 0) {
        return ret;
    }
    memcpy(rd->want, want, sizeof(rd->want));
    find_needed(rd, want);
    rd->selecting = true;
    rd->sel_next = 0;
    return 0;
}

int qtrace_reader_select_stream(struct qtrace_reader *rd,
                                const uint64_t *want, uint32_t stream,
                                struct qtrace_err *err)
{
    uint64_t all[INDEX_WORDS];
    int ret;

    if (rd->etr) {
        qtrace_err_set(err, "an etrace file has no vCPU streams to select");
        return -EINVAL;
    }
    if (!want) {
        memset(all, 0xff, sizeof(all));
        want = all;
    }
    ret = qtrace_reader_select(rd, want, err);
    if (ret == 0) {
        rd->sel_one = true;
        rd->sel_stream = stream;
    }
    return ret;
}

int qtrace_reader_chunks(struct qtrace_reader *rd, qtrace_chunk_fn fn,
                         void *arg, struct qtrace_err *err)
{
    struct qtrace_chunk_entry ce;
    size_t i;
    int ret;

    reader_ahead_drop(rd);
    qtrace_reader_rewind(rd);
    if (rd->etr) {
        return 0;
    }
    ret = reader_index_ready(rd, err);
    if (ret < 0) {
        return ret;
    }
    for (i = 0; i < rd->ix.n; i++) {
        const struct index_entry *e = &rd->ix.e[i];

        ce.chunk_seq = e->seq;
        ce.vcpu = e->vcpu;
        ce.stream = e->stream;
        ce.insns = e->insns;
        ce.events = e->mask;
        fn(arg, &ce);
    }
    return 0;
}

/* Whether the selection steps over the chunk of e. */
static bool entry_skipped(const struct qtrace_reader *rd,
                          const struct index_entry *e)
{
    if (rd->sel_one && e->vcpu != QTRACE_VCPU_NONE &&
        e->stream != rd->sel_stream) {
        return true;
    }
    return !index_mask_meets(e->mask, rd->need);
}

/*
 * A chunk stepped over: what can be checked without reading its payload
 * (docs/format.md, "When a chunk is valid", all but the checksum), so
 * that a cut, a splice or a chunk that would end the reading is met
 * where the full reading meets it.
 */
static bool header_passes(const struct qtrace_reader *rd, uint64_t *len)
{
    const uint8_t *p = rd->map + rd->off;
    uint16_t kind, flags;

    if (rd->size - rd->off < CHUNK_HDR_SIZE ||
        load32(p) != QTRACE_CHUNK_MAGIC) {
        return false;
    }
    kind = load16(p + 4);
    flags = load16(p + 6);
    *len = load32(p + 16);
    return *len <= QTRACE_CHUNK_MAX &&
           *len <= rd->size - rd->off - CHUNK_HDR_SIZE &&
           load64(p + 24) == rd->chunk_no &&
           kind != QTRACE_CHUNK_META && kind != QTRACE_CHUNK_END &&
           !(kind == QTRACE_CHUNK_DATA &&
             (flags & ~(QTRACE_CHUNK_ZSTD | QTRACE_CHUNK_PACKED_FLAGS)));
}

/*
 * Step over the chunks before target by their headers. False when one
 * does not pass: off is left on it, for enter_chunk to check in full and
 * report, as the full reading would.
 */
static bool step_to(struct qtrace_reader *rd, uint64_t target)
{
    uint64_t len;

    while (rd->off < target) {
        if (!header_passes(rd, &len)) {
            return false;
        }
        rd->off += CHUNK_HDR_SIZE + len;
        rd->chunk_no++;
    }
    return true;
}

/* An index whose entry is no chunk boundary: the reading stops there. */
static void index_mismatch(struct qtrace_reader *rd, uint64_t target)
{
    snprintf(rd->stop_msg, sizeof(rd->stop_msg), "chunk %" PRIu64
             " at offset 0x%" PRIx64 ": the INDEX chunk names offset 0x%"
             PRIx64 ", inside it", rd->chunk_no - 1, rd->off, target);
    rd->state = RD_FAILED;
    rd->stop_ret = -EBADMSG;
    reader_progress(rd, rd->size);
}

void reader_index_seek(struct qtrace_reader *rd)
{
    uint64_t target = rd->ix_stop_off;

    while (rd->sel_next < rd->ix.n &&
           entry_skipped(rd, &rd->ix.e[rd->sel_next])) {
        rd->sel_next++;
    }
    if (rd->sel_next < rd->ix.n) {
        target = rd->ix.e[rd->sel_next++].off;
    } else if (rd->sel_next++ > rd->ix.n) {
        return;     /* past the index: read on as usual */
    }
    /* Then on from the index's end: the INDEX chunk, or the rebuild's. */
    if (step_to(rd, target) && rd->off != target) {
        index_mismatch(rd, target);
    }
}

const struct index_entry *reader_index_entry(struct qtrace_reader *rd,
                                             uint64_t no)
{
    size_t lo = 0, hi = rd->ix.n;

    if (!rd->ix_ready) {
        return NULL;
    }
    if (rd->ix_cursor < rd->ix.n && rd->ix.e[rd->ix_cursor].seq == no) {
        return &rd->ix.e[rd->ix_cursor];
    }
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;

        if (rd->ix.e[mid].seq < no) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    if (lo < rd->ix.n && rd->ix.e[lo].seq == no) {
        rd->ix_cursor = lo + 1 < rd->ix.n ? lo + 1 : lo;
        return &rd->ix.e[lo];
    }
    return NULL;
}

uint64_t qtrace_reader_offset(const struct qtrace_reader *rd,
                              uint64_t *size)
{
    reader_ahead_pause(rd);
    *size = rd->size;
    /* An etrace file has no chunks to count by: 0 until it is read. */
    if (rd->state != RD_READING) {
        return rd->size;
    }
    return rd->etr ? 0 : rd->off;
}

int qtrace_reader_reopen(const struct qtrace_reader *rd,
                         struct qtrace_reader **out, struct qtrace_err *err)
{
    struct qtrace_reader *n;
    size_t i;
    int ret;

    ret = qtrace_reader_open(rd->path, &n, err);
    if (ret < 0) {
        return ret;
    }
    /* The same file still (its size at least): its index holds. */
    if (rd->ix_ready && !rd->etr && n->size == rd->size) {
        for (i = 0; i < rd->ix.n && ret == 0; i++) {
            ret = index_add(&n->ix, &rd->ix.e[i]);
        }
        if (ret < 0) {
            qtrace_err_set(err, "chunk index: %s", n->ix.why);
            qtrace_reader_close(n);
            return ret;
        }
        n->ix_tried = true;
        n->ix_ready = true;
        n->ix_from_file = rd->ix_from_file;
        n->ix_stop_off = rd->ix_stop_off;
        n->ix_stop_no = rd->ix_stop_no;
    }
    if (rd->clk.id && qtrace_reader_use_timeline(n, err) < 0) {
        qtrace_reader_close(n);
        return -ENODATA;
    }
    *out = n;
    return 0;
}
