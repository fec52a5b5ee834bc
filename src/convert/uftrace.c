/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * `qtrace convert --to uftrace TRACE DIR`: the func_entry and func_exit
 * records of every vCPU stream become a uftrace data directory (written
 * by uftrace-dir.c), with the guest's symbols from the ELF files the
 * trace names. Runs in the qtrace command; warnings go to stderr.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "convert.h"
#include "qtrace/callstack.h"
#include "qtrace/symbols.h"
#include "uftrace-dir.h"

struct conv_uftrace {
    struct uftrace_dir *u;
    struct qtrace_symbols *syms;
    struct qtrace_func_events fe;
    uint64_t n_func;                /* function records converted */
    uint64_t n_lib_events;          /* library events converted */
    bool lib[QTRACE_MAX_EVENTS];    /* by id: an instrumentation library's
                                       own event (LIB:EVENT) */
};

static void warn_symbols(void *arg, const char *msg)
{
    (void)arg;
    fprintf(stderr, "qtrace convert: %s (addresses shown in hex)\n", msg);
}

static int uftrace_begin(struct conv *cv, const char *out,
                         struct qtrace_err *err)
{
    struct conv_uftrace *c = cv->priv;
    const struct qtrace_catalog *cat = qtrace_reader_catalog(cv->rd);

    qtrace_func_events_find(&c->fe, cat);
    /* Found once: a name looked at per record cost a tenth of a run. */
    for (unsigned int id = 1; id <= cat->n_events; id++) {
        c->lib[id] = strchr(cat->events[id].name, ':') != NULL;
    }
    if (!c->fe.entry || !c->fe.exit) {
        qtrace_err_set(err, "%s: no func_entry and func_exit events in "
                       "its catalog (recorded by an older qtrace)",
                       cv->trace_path);
        return -EINVAL;
    }
    c->syms = qtrace_symbols_new();
    if (!c->syms ||
        qtrace_symbols_load_trace(c->syms, cv->rd, warn_symbols, NULL) < 0) {
        qtrace_err_set(err, "%s: %s", cv->trace_path, strerror(ENOMEM));
        return -ENOMEM;
    }
    if (uftrace_dir_open(&c->u, out, err) < 0) {
        qtrace_symbols_free(c->syms);
        c->syms = NULL;
        return -EIO;
    }
    return 0;
}

static int uftrace_record(struct conv *cv, const struct qtrace_record *rec,
                          struct qtrace_err *err)
{
    struct conv_uftrace *c = cv->priv;
    struct qtrace_func_rec fr;

    if (rec->vcpu == QTRACE_VCPU_NONE) {
        return 0;
    }
    if (rec->ev && c->lib[rec->ev->id]) {
        /* An instrumentation library's own event: a uftrace user event. */
        c->n_lib_events++;
        return uftrace_dir_event(c->u, rec->stream, rec->time, rec->ev->id,
                                 rec->ev->name, err);
    }
    if (!qtrace_func_events_decode(&c->fe, rec, &fr)) {
        uftrace_dir_seen(c->u, rec->stream, rec->time);
        return 0;
    }
    c->n_func++;
    if (fr.is_exit) {
        return uftrace_dir_exit(c->u, rec->stream, rec->time, fr.pc, err);
    }
    return uftrace_dir_entry(c->u, rec->stream, rec->time, fr.pc, fr.depth,
                             err);
}

static int uftrace_end(struct conv *cv, bool complete,
                       struct qtrace_err *err)
{
    struct conv_uftrace *c = cv->priv;
    const char *bits = qtrace_reader_meta(cv->rd, "word_bits");
    struct uftrace_dir_meta meta = {
        .exename = qtrace_reader_meta(cv->rd, "binary"),
        .cmdline = NULL,
        .word_bits = bits ? (unsigned int)strtoul(bits, NULL, 10) : 64,
    };
    int ret = 0;

    (void)complete;
    if (c->u) {
        ret = uftrace_dir_close(c->u, &meta, c->syms, err);
        c->u = NULL;
    }
    qtrace_symbols_free(c->syms);
    c->syms = NULL;
    if (ret == 0 && c->n_lib_events) {
        fprintf(stderr, "qtrace convert: %" PRIu64 " library events as "
                "uftrace events, by name only (uftrace shows no values of "
                "a user event; qtrace dump does)\n", c->n_lib_events);
    }
    if (ret == 0 && c->n_func == 0) {
        qtrace_err_set(err, "%s: none (no func_entry records; record them "
                       "with -e 'func_*')", cv->trace_path);
        ret = -ENODATA;
    }
    return ret;
}

const struct conv_ops conv_uftrace_ops = {
    .name = "uftrace",
    .summary = "uftrace data directory (uftrace replay/report/graph -d OUT)",
    .priv_size = sizeof(struct conv_uftrace),
    .out_is_dir = true,
    .out_kind = "a uftrace data directory",
    .is_own = uftrace_dir_is_reusable,
    .begin = uftrace_begin,
    .record = uftrace_record,
    .end = uftrace_end,
};
