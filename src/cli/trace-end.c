/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The end of a reading command on a trace that lacks its END chunk (QEMU
 * killed, a copy cut short): every command says so with one line that
 * tells how far the trace goes, and exits CLI_INCOMPLETE. The reach is
 * counted here with a reader of its own, so the line does not depend on
 * which events the command read. Main thread only.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "trace-end.h"

/* How far a trace without END goes: what a counting pass met. */
struct reach {
    uint64_t records;       /* records in the DATA chunks read */
    uint64_t last_seq;      /* number of the last DATA chunk read */
    uint64_t offset;        /* where the readable part ends, bytes */
    bool has_end;           /* the pass reached an END chunk after all */
};

/* Count path's chunks to their end; 0, or -errno with err set. */
static int count_reach(const char *path, struct reach *r,
                       struct qtrace_err *err)
{
    struct qtrace_chunk_count cc;
    struct qtrace_reader *rd;
    uint64_t *counts;   /* per event id, required by the counter */
    uint64_t size;
    int ret;

    memset(r, 0, sizeof(*r));
    ret = qtrace_reader_open(path, &rd, err);
    if (ret < 0) {
        return ret;
    }
    counts = calloc(QTRACE_MAX_EVENTS, sizeof(*counts));
    if (!counts) {
        qtrace_reader_close(rd);
        qtrace_err_set(err, "out of memory");
        return -1;
    }
    while ((ret = qtrace_reader_count_chunk(rd, counts, &cc, err)) > 0) {
        r->records += cc.records;
        r->last_seq = cc.chunk_seq;
    }
    r->offset = qtrace_reader_offset(rd, &size);
    r->has_end = qtrace_reader_has_end(rd);
    free(counts);
    qtrace_reader_close(rd);
    return ret;
}

int trace_end_check(const char *cmd, const char *path,
                    const struct qtrace_reader *rd)
{
    struct qtrace_err err = { "" };
    struct reach r;

    if (qtrace_reader_has_end(rd)) {
        return CLI_OK;
    }
    /* The warning must come after every result line, not inside them. */
    fflush(stdout);
    if (count_reach(path, &r, &err) < 0) {
        cli_error(cmd, "%s: %s", path, err.msg);
        return CLI_FAIL;
    }
    if (r.has_end) {
        /* rd stopped early on purpose (a selection, an empty section). */
        return CLI_OK;
    }
    cli_error(cmd, "%s: no END chunk, the trace is incomplete (the "
              "recording did not finish): %" PRIu64 " records up to chunk %"
              PRIu64 " ending at offset 0x%" PRIx64, path, r.records,
              r.last_seq, r.offset);
    return CLI_INCOMPLETE;
}
