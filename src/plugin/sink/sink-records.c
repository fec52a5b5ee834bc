/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The records of raw and packed chunks, for sinks (see sink-records.h). */
#include <errno.h>
#include <stdio.h>

#include "../../format/packed.h"
#include "sink-records.h"

int sink_records_init(struct sink_records *sr,
                      const struct qtrace_catalog *cat)
{
    return unpack_init(&sr->up, cat, NULL);
}

void sink_records_fini(struct sink_records *sr)
{
    unpack_fini(&sr->up);
}

/* A record of avail bytes at p is whole: its size fits and is sane. */
static const struct qtrace_rec *whole_record(const uint8_t *p, size_t avail)
{
    const struct qtrace_rec *r = (const struct qtrace_rec *)p;

    if (avail < sizeof(*r) || r->size < sizeof(*r) || r->size > avail ||
        r->size % QTRACE_REC_ALIGN) {
        return NULL;
    }
    return r;
}

static int each_raw(struct sink_records *sr, const struct chunk *c,
                    sink_record_fn fn, void *arg, char *why, size_t why_len)
{
    const uint8_t *p = c->data, *end = c->data + c->len;
    int ret;

    while (p < end) {
        const struct qtrace_rec *r = whole_record(p, (size_t)(end - p));

        if (!r) {
            snprintf(why, why_len, "bad record at byte %zu of a chunk",
                     (size_t)(p - c->data));
            return -EBADMSG;
        }
        if (r->id == sr->up.tb_trans_id &&
            unpack_note_tb(&sr->up, p, why, why_len) < 0) {
            return -EBADMSG;
        }
        ret = fn(arg, c, r);
        if (ret < 0) {
            return ret;
        }
        p += r->size;
    }
    return 0;
}

static int each_packed(struct sink_records *sr, const struct chunk *c,
                       sink_record_fn fn, void *arg, char *why,
                       size_t why_len)
{
    struct unpack_cursor uc = { .pos = c->data, .end = c->data + c->len,
                                .base = c->data };
    const struct qtrace_rec *r;
    int ret;

    if (unpack_begin(&sr->up, c->stream, c->flags, why, why_len) < 0) {
        return -ENOMEM;
    }
    while ((ret = unpack_next(&sr->up, &uc)) > 0) {
        r = whole_record(uc.rec, uc.avail);
        if (!r) {
            snprintf(why, why_len, "bad record at byte %zu of a chunk",
                     (size_t)(uc.rec - c->data));
            return -EBADMSG;
        }
        if (ret == 2) {
            uc.pos = uc.rec + r->size;  /* carried in the payload */
        }
        ret = fn(arg, c, r);
        if (ret < 0) {
            return ret;
        }
    }
    if (ret < 0) {
        snprintf(why, why_len, "%s", uc.why);
        return -EBADMSG;
    }
    return 0;
}

int sink_records_each(struct sink_records *sr, const struct chunk *c,
                      sink_record_fn fn, void *arg, char *why,
                      size_t why_len)
{
    if (c->flags & QTRACE_CHUNK_PACKED) {
        return each_packed(sr, c, fn, arg, why, why_len);
    }
    return each_raw(sr, c, fn, arg, why, why_len);
}
