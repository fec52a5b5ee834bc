/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Host clock stamps (see stamp.h): one clock record, raw or staged.
 * Runs on whichever thread vbuf.c calls it from; writes only at `at`.
 */
#include <stdint.h>
#include <string.h>

#include "qtrace-events.h"
#include "pack.h"
#include "stamp.h"

_Static_assert(STAGED_WORD + 8 + sizeof(struct qtrace_ev_clock) <=
               VBUF_STAMP_MAX, "a staged clock record fits its room");

uint32_t stamp_put(struct vbuf *vb, uint8_t *at, uint64_t ns,
                   uint64_t resume_ns)
{
    struct qtrace_ev_clock r;
    uint32_t escape = STAGED_ESCAPE;
    uint8_t *rec = at;

    if (vb->pack) {
        /*
         * The staged form of a record packet (pack.h, pack_record): the
         * escape word, the tag, zeros up to the next multiple of 8 (the
         * chunk's data is 8-aligned, so the record is too), the record.
         */
        memcpy(at, &escape, STAGED_WORD);
        rec = (uint8_t *)(((uintptr_t)at + STAGED_WORD + 8) &
                          ~(uintptr_t)7);
        at[STAGED_WORD] = PK_RECORD;
        memset(at + STAGED_WORD + 1, 0, (size_t)(rec - at) - STAGED_WORD - 1);
    }
    r.hdr.id = QTRACE_EV_CLOCK;
    r.hdr.size = (uint16_t)sizeof(r);
    r.hdr.reserved = 0;
    r.hdr.time = vb->icount ? *vb->icount : 0;
    r.ns = ns;
    r.resume_ns = resume_ns;
    memcpy(rec, &r, sizeof(r));
    return (uint32_t)(rec + sizeof(r) - at);
}
