/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * `qtrace convert --to etrace`: a native trace as a Xilinx etrace file,
 * through the encoder the plugin's etrace sink uses (etrace-enc.c), with
 * every etrace flag on: what the trace holds is what the file gets. Block
 * ends and sizes come from the tb_trans records, which precede their
 * blocks' executions in the file; records of different vCPUs are put in
 * the run's order by the trace's order records, where it has them.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "convert.h"
#include "etrace-enc.h"
#include "../format/etrace.h"
#include "../format/record-arg.h"
#include "qtrace/format.h"

/* Arguments of one event the conversion reads, by index. */
struct ev_args {
    const struct qtrace_event_desc *ev;     /* NULL: absent or unusable */
    int a[7];
};

struct block {
    uint64_t pc;
    uint32_t size;
    uint32_t n_insns;
};

struct conv_etrace {
    FILE *f;
    const char *out;
    struct etrace_enc *enc;
    GHashTable *blocks;             /* tb id -> struct block */
    struct ev_args tb_trans, exec_tb, mem, vcpu_init, vcpu_exit, sys, ret,
                   order;
    int mem_value;                  /* mem_access's value, or -1: traces
                                       from before it convert with 0 */
    int write_errno;
};

static int write_file(void *ctx, const void *buf, size_t len)
{
    struct conv_etrace *ce = ctx;

    if (fwrite(buf, 1, len, ce->f) != len) {
        ce->write_errno = errno ? errno : EIO;
        return -ce->write_errno;
    }
    return 0;
}

/*
 * Find event and its arguments called names (NULL-terminated); an event
 * that lacks one is left out of the conversion.
 */
static void map_event(struct ev_args *m, const struct qtrace_catalog *cat,
                      const char *event, const char *const *names)
{
    unsigned int i, j;

    m->ev = qtrace_catalog_find(cat, event);
    for (j = 0; names[j]; j++) {
        m->a[j] = -1;
        for (i = 0; m->ev && i < m->ev->n_args; i++) {
            if (strcmp(m->ev->args[i].name, names[j]) == 0) {
                m->a[j] = (int)i;
            }
        }
        if (m->a[j] < 0) {
            m->ev = NULL;
        }
    }
}

static void map_events(struct conv_etrace *ce,
                       const struct qtrace_catalog *cat)
{
    static const char *const tt[] = { "pc", "tb", "size", "n_insns", "code",
                                      NULL };
    static const char *const xt[] = { "pc", "tb", NULL };
    static const char *const ma[] = { "vaddr", "paddr", "size", "flags",
                                      "device", NULL };
    static const char *const none[] = { NULL };
    static const char *const sc[] = { "num", "a1", "a2", "a3", "a4", "a5",
                                      "a6", NULL };
    static const char *const sr[] = { "num", "ret", NULL };
    static const char *const od[] = { "seq", NULL };

    map_event(&ce->tb_trans, cat, "tb_trans", tt);
    map_event(&ce->exec_tb, cat, "exec_tb", xt);
    map_event(&ce->mem, cat, "mem_access", ma);
    map_event(&ce->vcpu_init, cat, "vcpu_init", none);
    map_event(&ce->vcpu_exit, cat, "vcpu_exit", none);
    map_event(&ce->sys, cat, "syscall", sc);
    map_event(&ce->ret, cat, "syscall_ret", sr);
    map_event(&ce->order, cat, "order", od);
    ce->mem_value = -1;
    for (unsigned int i = 0; ce->mem.ev && i < ce->mem.ev->n_args; i++) {
        if (strcmp(ce->mem.ev->args[i].name, "value") == 0) {
            ce->mem_value = (int)i;
        }
    }
}

static int etrace_begin(struct conv *cv, const char *out,
                        struct qtrace_err *err)
{
    struct conv_etrace *ce = cv->priv;
    const char *arch = qtrace_reader_meta(cv->rd, "arch");
    struct etrace_enc_cfg cfg = {
        .arch = arch ? arch : "unknown", .flags = ETRACE_F_ALL,
        .write = write_file, .ctx = ce,
    };
    struct qtrace_err why;
    int ret = etrace_enc_new(&ce->enc, &cfg, &why);

    if (ret < 0) {
        qtrace_err_set(err, "%s: %s", cv->trace_path, why.msg);
        return ret;
    }
    ce->out = out;
    ce->f = fopen(out, "wb");
    if (!ce->f) {
        ret = -errno;
        qtrace_err_set(err, "%s: %s", out, strerror(errno));
        etrace_enc_free(ce->enc);
        ce->enc = NULL;
        return ret;
    }
    ce->blocks = g_hash_table_new_full(NULL, NULL, NULL, g_free);
    map_events(ce, qtrace_reader_catalog(cv->rd));
    etrace_enc_begin(ce->enc);
    return 0;
}

static inline uint64_t arg(const struct qtrace_record *rec,
                           const struct ev_args *m, int i)
{
    return (uint64_t)record_arg_value(rec, (unsigned int)m->a[i]);
}

static void put_tb_trans(struct conv_etrace *ce,
                         const struct qtrace_record *rec)
{
    struct block *b = g_new(struct block, 1);
    const uint8_t *code;
    size_t len;

    b->pc = arg(rec, &ce->tb_trans, 0);
    b->size = (uint32_t)arg(rec, &ce->tb_trans, 2);
    b->n_insns = (uint32_t)arg(rec, &ce->tb_trans, 3);
    g_hash_table_replace(ce->blocks,
                         GUINT_TO_POINTER(arg(rec, &ce->tb_trans, 1)), b);
    code = qtrace_record_bytes(rec, (unsigned int)ce->tb_trans.a[4], &len);
    etrace_enc_tb(ce->enc, b->pc, code, code ? len : 0);
}

static void put_exec_tb(struct conv_etrace *ce, uint16_t unit,
                        const struct qtrace_record *rec)
{
    const struct block *b = g_hash_table_lookup(ce->blocks,
        GUINT_TO_POINTER(arg(rec, &ce->exec_tb, 1)));

    /* Without its tb_trans a block's extent is unknown: left out. */
    if (b) {
        etrace_enc_block(ce->enc, unit, rec->time, b->pc, b->pc + b->size,
                         b->n_insns);
    }
}

static void put_mem(struct conv_etrace *ce, uint16_t unit,
                    const struct qtrace_record *rec)
{
    uint8_t flags = (uint8_t)arg(rec, &ce->mem, 3);
    const uint8_t *dev = NULL;
    size_t dev_len = 0;

    /* Only a device access has a name to give (etrace_enc_access). */
    if (flags & QTRACE_MEM_IO) {
        dev = qtrace_record_bytes(rec, (unsigned int)ce->mem.a[4],
                                  &dev_len);
    }
    etrace_enc_access(ce->enc, unit, rec->time, arg(rec, &ce->mem, 0),
                      arg(rec, &ce->mem, 1),
                      ce->mem_value >= 0 ?
                          (uint64_t)record_arg_value(rec,
                                                     (unsigned)ce->mem_value)
                          : 0,
                      (uint8_t)arg(rec, &ce->mem, 2), flags,
                      (const char *)dev, dev ? dev_len : 0);
}

static void put_syscall(struct conv_etrace *ce, uint16_t unit,
                        const struct qtrace_record *rec)
{
    uint64_t args[6];
    int i;

    for (i = 0; i < 6; i++) {
        args[i] = arg(rec, &ce->sys, i + 1);
    }
    etrace_enc_syscall(ce->enc, unit, rec->time,
                       (int64_t)arg(rec, &ce->sys, 0), args);
}

/*
 * An instrumentation library's own event (LIB:EVENT): etrace has no
 * record for it, so it goes as a NOTE, "LIB:EVENT " and its fields as
 * its catalog format prints them (what `qtrace dump` shows).
 */
static void put_lib_event(struct conv_etrace *ce, uint16_t unit,
                          const struct qtrace_record *rec)
{
    char text[480];
    size_t n = (size_t)snprintf(text, sizeof(text), "%s ", rec->ev->name);

    if (n < sizeof(text)) {
        qtrace_record_fmt(rec, text + n, sizeof(text) - n);
    }
    etrace_enc_note(ce->enc, unit, rec->time, text);
}

static int etrace_record(struct conv *cv, const struct qtrace_record *rec,
                         struct qtrace_err *err)
{
    struct conv_etrace *ce = cv->priv;
    uint16_t unit = rec->vcpu == QTRACE_VCPU_NONE ? 0 : (uint16_t)rec->vcpu;
    const struct qtrace_event_desc *ev = rec->ev;

    if (ev == ce->tb_trans.ev) {
        put_tb_trans(ce, rec);
    } else if (ev == ce->exec_tb.ev) {
        put_exec_tb(ce, unit, rec);
    } else if (ev == ce->mem.ev) {
        put_mem(ce, unit, rec);
    } else if (ev == ce->vcpu_init.ev || ev == ce->vcpu_exit.ev) {
        etrace_enc_vcpu(ce->enc, unit, rec->time, ev == ce->vcpu_init.ev);
    } else if (ev == ce->order.ev) {
        etrace_enc_order(ce->enc, unit, arg(rec, &ce->order, 0));
    } else if (ev == ce->sys.ev) {
        put_syscall(ce, unit, rec);
    } else if (ev == ce->ret.ev) {
        etrace_enc_syscall_ret(ce->enc, unit, rec->time,
                               (int64_t)arg(rec, &ce->ret, 0),
                               (int64_t)arg(rec, &ce->ret, 1));
    } else if (ev && strchr(ev->name, ':')) {
        put_lib_event(ce, unit, rec);
    }
    if (ce->write_errno) {
        qtrace_err_set(err, "%s: %s", ce->out, strerror(ce->write_errno));
        return -ce->write_errno;
    }
    return 0;
}

static int etrace_end(struct conv *cv, bool complete, struct qtrace_err *err)
{
    struct conv_etrace *ce = cv->priv;

    /* A trace that stops early is converted up to where it stops. */
    (void)complete;
    etrace_enc_end(ce->enc);
    etrace_enc_free(ce->enc);
    g_hash_table_destroy(ce->blocks);
    errno = 0;
    if (fclose(ce->f) != 0 && ce->write_errno == 0) {
        ce->write_errno = errno ? errno : EIO;
    }
    if (ce->write_errno) {
        qtrace_err_set(err, "%s: %s", ce->out, strerror(ce->write_errno));
        return -ce->write_errno;
    }
    return 0;
}

/* An existing OUT starts with an etrace INFO or ARCH record. */
static bool etrace_is_own(const char *out)
{
    uint8_t head[ETRACE_HDR_SIZE + 8];
    FILE *f = fopen(out, "rb");
    size_t n;

    if (!f) {
        return false;
    }
    n = fread(head, 1, sizeof(head), f);
    fclose(f);
    return etrace_is_etrace(head, n);
}

const struct conv_ops conv_etrace_ops = {
    .name = "etrace",
    .summary = "Xilinx etrace, as the plugin's etrace=FILE writes it",
    .priv_size = sizeof(struct conv_etrace),
    .out_kind = "an etrace file",
    .is_own = etrace_is_own,
    .begin = etrace_begin,
    .record = etrace_record,
    .end = etrace_end,
};
