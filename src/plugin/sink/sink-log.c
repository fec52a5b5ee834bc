/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The execlog-style text sink: one line per executed instruction,
 * "CPU, 0xPC, 0xOPCODE, \"DISASSEMBLY\"", then ", load|store, 0xADDR" per
 * access (system mode: ", 0xPADDR, DEVICE"), the layout of QEMU's execlog
 * plugin. Formatting happens here, on the writer thread, from exec_insn
 * and mem_access records; the disassembly is QEMU's, kept by tbtab.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qtrace-events.h"
#include "sink.h"
#include "sink-records.h"
#include "../core/tbtab.h"

#define LINE_MAX_BYTES 2048
#define LOG_VCPUS 4096              /* vCPU indexes with their own line */

struct log_line {
    size_t len;
    char text[LINE_MAX_BYTES];
};

struct sink_log {
    struct sink base;
    FILE *f;
    bool own_file;                  /* not stderr */
    struct log_line *pending[LOG_VCPUS];   /* instruction awaiting accesses */
    struct sink_records recs;
};

static void line_append(struct log_line *l, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void line_append(struct log_line *l, const char *fmt, ...)
{
    va_list ap;
    int n;

    if (l->len >= sizeof(l->text) - 1) {
        return;
    }
    va_start(ap, fmt);
    n = vsnprintf(l->text + l->len, sizeof(l->text) - l->len, fmt, ap);
    va_end(ap);
    if (n > 0) {
        l->len += (size_t)n;
        if (l->len > sizeof(l->text) - 1) {
            l->len = sizeof(l->text) - 1;
        }
    }
}

static void flush_line(struct sink_log *lg, struct log_line *l)
{
    if (l && l->len) {
        fwrite(l->text, 1, l->len, lg->f);
        fputc('\n', lg->f);
        l->len = 0;
    }
}

static struct log_line *line_of(struct sink_log *lg, uint32_t vcpu)
{
    if (vcpu >= LOG_VCPUS) {
        return NULL;
    }
    if (!lg->pending[vcpu]) {
        lg->pending[vcpu] = calloc(1, sizeof(struct log_line));
    }
    return lg->pending[vcpu];
}

static void log_insn(struct sink_log *lg, uint32_t vcpu,
                     const struct qtrace_ev_exec_insn *r)
{
    struct log_line *l = line_of(lg, vcpu);
    const struct tb_info *tb = tbtab_get(r->tb);
    const struct insn_info *in;

    if (!l) {
        return;
    }
    flush_line(lg, l);
    if (!tb || r->idx >= tb->n_insns) {
        line_append(l, "%u, 0x%" PRIx64 ", 0x0, \"?\"", vcpu, r->pc);
        return;
    }
    in = &tb->insns[r->idx];
    line_append(l, "%u, 0x%" PRIx64 ", 0x%" PRIx32 ", \"%s\"", vcpu, in->pc,
                in->opcode, in->disas ? in->disas : "?");
}

static void log_mem(struct sink_log *lg, uint32_t vcpu,
                    const struct qtrace_ev_mem_access *r)
{
    struct log_line *l = line_of(lg, vcpu);

    if (!l || !l->len) {
        return;
    }
    line_append(l, ", %s", (r->flags & QTRACE_MEM_STORE) ? "store" : "load");
    if (r->flags & QTRACE_MEM_HAS_PADDR) {
        const char *dev = (const char *)r + QTRACE_EV_MEM_ACCESS_FIXED;

        /* QEMU names non-I/O memory "RAM"; only I/O names are stored. */
        if (r->device_len) {
            line_append(l, ", 0x%08" PRIx64 ", %.*s", r->paddr,
                        (int)r->device_len, dev);
        } else {
            line_append(l, ", 0x%08" PRIx64 ", RAM", r->paddr);
        }
    } else {
        line_append(l, ", 0x%08" PRIx64, r->vaddr);
    }
}

static int log_record(void *arg, const struct chunk *c,
                      const struct qtrace_rec *r)
{
    struct sink_log *lg = arg;

    switch (r->id) {
    case QTRACE_EV_EXEC_INSN:
        log_insn(lg, c->vcpu, (const struct qtrace_ev_exec_insn *)r);
        break;
    case QTRACE_EV_MEM_ACCESS:
        log_mem(lg, c->vcpu, (const struct qtrace_ev_mem_access *)r);
        break;
    case QTRACE_EV_VCPU_EXIT:
        if (c->vcpu < LOG_VCPUS) {
            flush_line(lg, lg->pending[c->vcpu]);
        }
        break;
    default:
        break;
    }
    return 0;
}

static int log_chunk(struct sink *s, const struct chunk *c)
{
    struct sink_log *lg = (struct sink_log *)s;
    char why[160];

    if (sink_records_each(&lg->recs, c, log_record, lg, why,
                          sizeof(why)) < 0) {
        sink_fail(s, why);
        return -EIO;
    }
    if (ferror(lg->f)) {
        sink_fail(s, strerror(errno ? errno : EIO));
        return -EIO;
    }
    return 0;
}

static int log_close(struct sink *s, const char *end)
{
    struct sink_log *lg = (struct sink_log *)s;
    size_t i;
    int ret = 0;

    (void)end;
    for (i = 0; i < LOG_VCPUS; i++) {
        flush_line(lg, lg->pending[i]);
    }
    if (fflush(lg->f) != 0 || ferror(lg->f)) {
        sink_fail(s, strerror(errno ? errno : EIO));
        ret = -EIO;
    }
    if (lg->own_file && fclose(lg->f) != 0 && ret == 0) {
        sink_fail(s, strerror(errno));
        ret = -EIO;
    }
    lg->f = NULL;
    return ret;
}

static void log_free(struct sink *s)
{
    struct sink_log *lg = (struct sink_log *)s;
    size_t i;

    for (i = 0; i < LOG_VCPUS; i++) {
        free(lg->pending[i]);
    }
    sink_records_fini(&lg->recs);
    free(s->target);
    free(lg);
}

static const struct sink_ops sink_log_ops = {
    .kind = "log",
    .chunk = log_chunk,
    .close = log_close,
    .free = log_free,
};

struct sink *sink_log_new(const char *path, const struct qtrace_catalog *cat,
                          struct qtrace_err *err)
{
    struct sink_log *lg = calloc(1, sizeof(*lg));

    if (!lg || sink_records_init(&lg->recs, cat) < 0) {
        qtrace_err_set(err, "%s: %s", path, strerror(ENOMEM));
        free(lg);
        return NULL;
    }
    if (strcmp(path, "stderr") == 0) {
        lg->f = stderr;
    } else {
        lg->f = fopen(path, "w");
        if (!lg->f) {
            qtrace_err_set(err, "%s: %s", path, strerror(errno));
            sink_records_fini(&lg->recs);
            free(lg);
            return NULL;
        }
        lg->own_file = true;
        setvbuf(lg->f, NULL, _IOFBF, 1 << 20);
    }
    lg->base.ops = &sink_log_ops;
    lg->base.target = strdup(path);
    return &lg->base;
}
