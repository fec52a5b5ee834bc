/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The drcov writer (coverage.h), in the layout DynamoRIO's drcov writes
 * on Linux and that Lighthouse and lightkeeper read:
 *
 *   DRCOV VERSION: 2
 *   DRCOV FLAVOR: qtrace
 *   Module Table: version 4, count N
 *   Columns: id, containing_id, start, end, entry, offset, path
 *     0,   0, 0x0000000000400000, 0x0000000000401000, 0x...,
 *         0000000000001000, /path/prog        (one line in the file)
 *   ... one line per segment: a file's segments follow each other, lowest
 *   first, and carry the id of that first one as containing_id
 *   BB Table: M bbs
 *   M entries of 8 bytes, little-endian: uint32 start, uint16 size,
 *   uint16 id (struct bb_entry_t), or with text: the line
 *   "module id, start, size:" and M lines "module[  ID]: 0xSTART, SIZE"
 *
 * start is relative to the base of the block's file (its lowest segment)
 * and id is the segment's line: what DRCOV VERSION 2 means. The columns
 * are those of a Linux module table; Windows logs add checksum and
 * timestamp, which lightkeeper does not read with table version 4.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "coverage.h"

/* Segment lines of the modules before module m: its first line's id. */
static size_t first_id(const struct cov *c, const struct cov_module *mod)
{
    size_t i, id = 0;

    for (i = 0; &c->mods[i] != mod; i++) {
        id += c->mods[i].n_segs;
    }
    return id;
}

static void write_modules(const struct cov *c, FILE *out)
{
    size_t i, j, id = 0, n = 0;

    for (i = 0; i < c->n_mods; i++) {
        n += c->mods[i].n_segs;
    }
    fprintf(out, "DRCOV VERSION: 2\nDRCOV FLAVOR: qtrace\n"
            "Module Table: version 4, count %zu\n"
            "Columns: id, containing_id, start, end, entry, offset, path\n",
            n);
    for (i = 0; i < c->n_mods; i++) {
        const struct cov_module *mod = &c->mods[i];
        size_t first = id;

        for (j = 0; j < mod->n_segs; j++, id++) {
            fprintf(out, "%3zu, %3zu, 0x%016" PRIx64 ", 0x%016" PRIx64
                    ", 0x%016" PRIx64 ", %016" PRIx64 ", %s\n", id, first,
                    mod->segs[j].start, mod->segs[j].end, mod->entry,
                    mod->segs[j].offset, mod->path);
        }
    }
}

/* One block as drcov holds it; false when it cannot be. */
struct bb {
    uint32_t start;
    uint16_t size;
    uint16_t id;
};

static bool to_bb(const struct cov *c, const struct cov_block *b,
                  struct bb *bb)
{
    size_t seg, id;
    const struct cov_module *mod = cov_module_of(c, b->pc, &seg);
    uint64_t off;

    if (!mod || b->size > UINT16_MAX) {
        return false;
    }
    off = b->pc - mod->segs[0].start;
    id = first_id(c, mod) + seg;
    /* The entry's fields are 32 and 16 bits wide. */
    if (off > UINT32_MAX || id > UINT16_MAX) {
        return false;
    }
    *bb = (struct bb){ (uint32_t)off, (uint16_t)b->size, (uint16_t)id };
    return true;
}

static void put_le(uint8_t *p, uint64_t v, int n)
{
    int i;

    for (i = 0; i < n; i++) {
        p[i] = (uint8_t)(v >> (8 * i));
    }
}

int cov_write_drcov(const struct cov *c, FILE *out, bool text,
                    uint64_t *n_out, struct qtrace_err *err)
{
    struct bb *bbs = calloc(c->n_blocks ? c->n_blocks : 1, sizeof(*bbs));
    size_t i, n = 0;

    if (!bbs) {
        qtrace_err_set(err, "%s", strerror(ENOMEM));
        return -ENOMEM;
    }
    for (i = 0; i < c->n_blocks; i++) {
        n += to_bb(c, &c->blocks[i], &bbs[n]);
    }
    if (n_out) {
        *n_out = c->n_blocks - n;
    }
    write_modules(c, out);
    fprintf(out, "BB Table: %zu bbs\n", n);
    if (text) {
        fprintf(out, "module id, start, size:\n");
    }
    for (i = 0; i < n; i++) {
        uint8_t raw[8];

        if (text) {
            fprintf(out, "module[%3u]: 0x%08" PRIx32 ", %3u\n",
                    (unsigned)bbs[i].id, bbs[i].start,
                    (unsigned)bbs[i].size);
            continue;
        }
        put_le(raw, bbs[i].start, 4);
        put_le(raw + 4, bbs[i].size, 2);
        put_le(raw + 6, bbs[i].id, 2);
        fwrite(raw, 1, sizeof(raw), out);
    }
    free(bbs);
    return 0;
}
