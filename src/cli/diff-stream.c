/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * One stream against another (see diff-stream.h). Each side's reader
 * selects its stream and the events compared, so the other streams'
 * chunks are stepped over and blocks are expanded only when compared;
 * a record is decoded into a diff_item by its own trace's catalog, so
 * traces of two qtrace versions compare.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "diff-stream.h"
#include "qtrace/format.h"
#include "record-arg.h"
#include "syscall-args.h"

/* Flags an access is compared by; the others say what the record holds. */
#define MEM_KIND_FLAGS \
    (QTRACE_MEM_STORE | QTRACE_MEM_SIGNED | QTRACE_MEM_BIG_ENDIAN)

/* The event's id when it has every argument named; else 0. */
static uint16_t event_with(const struct qtrace_catalog *cat,
                           const char *name, int *const idx[],
                           const char *const args[], size_t n)
{
    const struct qtrace_event_desc *ev = qtrace_catalog_find(cat, name);
    size_t i;
    bool whole = ev != NULL;

    for (i = 0; i < n; i++) {
        *idx[i] = qtrace_event_arg(ev, args[i]);
        whole &= *idx[i] >= 0;
    }
    return whole ? ev->id : 0;
}

void diff_side_map(struct diff_side *s)
{
    const struct qtrace_catalog *cat = qtrace_reader_catalog(s->rd);
    const char *bits = qtrace_reader_meta(s->rd, "word_bits");
    int *tb[] = { &s->tb_pc };
    int *mem[] = { &s->mem_pc, &s->mem_vaddr, &s->mem_paddr, &s->mem_size,
                   &s->mem_flags };
    int *sys[] = { &s->sys_num, &s->sys_arg[0], &s->sys_arg[1],
                   &s->sys_arg[2], &s->sys_arg[3], &s->sys_arg[4],
                   &s->sys_arg[5] };
    int *ret[] = { &s->ret_num, &s->ret_val };
    static const char *const tb_args[] = { "pc" };
    static const char *const mem_args[] = { "pc", "vaddr", "paddr", "size",
                                            "flags" };
    static const char *const sys_args[] = { "num", "a1", "a2", "a3", "a4",
                                            "a5", "a6" };
    static const char *const ret_args[] = { "num", "ret" };

    s->id_tb = event_with(cat, "exec_tb", tb, tb_args, 1);
    s->id_mem = event_with(cat, "mem_access", mem, mem_args, 5);
    s->id_sys = event_with(cat, "syscall", sys, sys_args, 7);
    s->id_ret = event_with(cat, "syscall_ret", ret, ret_args, 2);
    s->sc = qtrace_syscall_table_find(qtrace_reader_meta(s->rd, "arch"));
    s->word_bits = bits && strcmp(bits, "32") == 0 ? 32 : 64;
}

unsigned int diff_side_kinds(const struct diff_side *s)
{
    return (s->id_tb ? DIFF_BLOCKS : 0) | (s->id_mem ? DIFF_MEM : 0) |
           (s->id_sys && s->id_ret ? DIFF_SYSCALLS : 0);
}

static void want_set(uint64_t *want, uint16_t id)
{
    if (id) {
        want[id / 64] |= 1ull << (id % 64);
    }
}

/*
 * Inline, not qtrace_record_u64(): a call per field was a quarter of a
 * diff's time.
 */
static inline uint64_t arg(const struct qtrace_record *rec, int i)
{
    return (uint64_t)record_arg_value(rec, (unsigned int)i);
}

/* rec as an item of s; false for a record of no compared kind. */
static bool decode(const struct diff_side *s, const struct qtrace_record *rec,
                   struct diff_item *it)
{
    uint16_t id = rec->ev->id;
    int i;

    it->time = rec->time;
    if (id == s->id_tb) {
        it->kind = DIFF_ITEM_BLOCK;
        it->pc = arg(rec, s->tb_pc);
    } else if (id == s->id_mem) {
        it->kind = DIFF_ITEM_MEM;
        it->pc = arg(rec, s->mem_pc);
        it->v[0] = arg(rec, s->mem_vaddr);
        it->v[1] = arg(rec, s->mem_paddr);
        it->v[2] = arg(rec, s->mem_size);
        it->v[3] = arg(rec, s->mem_flags);
    } else if (id == s->id_sys) {
        it->kind = DIFF_ITEM_SYSCALL;
        it->pc = 0;
        it->v[0] = arg(rec, s->sys_num);
        for (i = 0; i < 6; i++) {
            it->v[1 + i] = arg(rec, s->sys_arg[i]);
        }
    } else if (id == s->id_ret) {
        it->kind = DIFF_ITEM_SYSRET;
        it->pc = 0;
        it->v[0] = arg(rec, s->ret_num);
        it->v[1] = arg(rec, s->ret_val);
    } else {
        return false;
    }
    return true;
}

/*
 * The next item of s's selection: 1, 0 at the stream's end, -errno
 * when the trace stops early.
 */
static int next_item(struct diff_side *s, struct diff_item *it,
                     struct qtrace_err *err)
{
    struct qtrace_record rec;
    int ret;

    while ((ret = qtrace_reader_next(s->rd, &rec, err)) > 0) {
        if (rec.vcpu != QTRACE_VCPU_NONE && decode(s, &rec, it)) {
            return 1;
        }
    }
    if (ret < 0) {
        char msg[sizeof(err->msg)];

        snprintf(msg, sizeof(msg), "%s", err->msg);
        qtrace_err_set(err, "%s: %s", s->path, msg);
    }
    return ret;
}

/* Whether a system call's value is a process or thread id. */
static bool returns_id(const struct diff_side *s, uint64_t num)
{
    static const char *const calls[] = {
        "getpid", "getppid", "gettid", "set_tid_address", "clone",
        "clone3", "fork", "vfork", "getpgid", "getpgrp", "getsid",
        "setsid",
    };
    const char *name = qtrace_syscall_name(s->sc, (int64_t)num);
    size_t i;

    for (i = 0; name && i < sizeof(calls) / sizeof(calls[0]); i++) {
        if (strcmp(name, calls[i]) == 0) {
            return true;
        }
    }
    return false;
}

/* x in A and y in B: the same value, or a pair of ids seen before. */
static bool same_value(const struct diff_ids *ids, uint64_t x, uint64_t y)
{
    unsigned int i;

    if (x == y) {
        return true;
    }
    for (i = 0; i < ids->n; i++) {
        if (ids->a[i] == x && ids->b[i] == y) {
            return true;
        }
    }
    return false;
}

/* The values of an id call in A and B: remember them as one id. */
static void learn_id(struct diff_ids *ids, uint64_t x, uint64_t y)
{
    if ((int64_t)x > 0 && (int64_t)y > 0 && !same_value(ids, x, y) &&
        ids->n < DIFF_MAX_IDS) {
        ids->a[ids->n] = x;
        ids->b[ids->n] = y;
        ids->n++;
    }
}

static bool same_item(const struct diff_side *sa, struct diff_ids *ids,
                      const struct diff_item *x, const struct diff_item *y)
{
    unsigned int i, n;

    if (x->kind != y->kind || x->pc != y->pc) {
        return false;
    }
    switch (x->kind) {
    case DIFF_ITEM_BLOCK:
        return true;
    case DIFF_ITEM_MEM:
        if ((x->v[3] & QTRACE_MEM_HAS_PADDR) &&
            (y->v[3] & QTRACE_MEM_HAS_PADDR) && x->v[1] != y->v[1]) {
            return false;
        }
        return x->v[0] == y->v[0] && x->v[2] == y->v[2] &&
               (x->v[3] & MEM_KIND_FLAGS) == (y->v[3] & MEM_KIND_FLAGS);
    case DIFF_ITEM_SYSCALL:
        if (x->v[0] != y->v[0]) {
            return false;
        }
        /* The registers the call does not read hold leftovers. */
        n = syscall_args_count(qtrace_syscall_name(sa->sc, (int64_t)x->v[0]),
                               sa->word_bits);
        for (i = 1; i <= n; i++) {
            if (!same_value(ids, x->v[i], y->v[i])) {
                return false;
            }
        }
        return true;
    case DIFF_ITEM_SYSRET:
        if (x->v[0] != y->v[0]) {
            return false;
        }
        if (x->v[1] != y->v[1] && returns_id(sa, x->v[0])) {
            learn_id(ids, x->v[1], y->v[1]);
        }
        return same_value(ids, x->v[1], y->v[1]);
    }
    return false;
}

static void ring_push(struct diff_ring *r, const struct diff_item *it)
{
    if (r->cap == 0) {
        return;
    }
    r->items[(r->head + r->n) % r->cap] = *it;
    if (r->n < r->cap) {
        r->n++;
    } else {
        r->head = (r->head + 1) % r->cap;
    }
}

const struct diff_item *diff_ring_get(const struct diff_ring *r, size_t i)
{
    return &r->items[(r->head + i) % r->cap];
}

/* Select the compared events of stream in s. */
static int select_stream(struct diff_side *s, uint32_t stream,
                         unsigned int kinds, struct qtrace_err *err)
{
    uint64_t want[QTRACE_MAX_EVENTS / 64] = { 0 };
    int ret;

    if (kinds & DIFF_BLOCKS) {
        want_set(want, s->id_tb);
    }
    if (kinds & DIFF_MEM) {
        want_set(want, s->id_mem);
    }
    if (kinds & DIFF_SYSCALLS) {
        want_set(want, s->id_sys);
        want_set(want, s->id_ret);
    }
    ret = qtrace_reader_select_stream(s->rd, want, stream, err);
    if (ret < 0) {
        char msg[sizeof(err->msg)];

        snprintf(msg, sizeof(msg), "%s", err->msg);
        qtrace_err_set(err, "%s: %s", s->path, msg);
    }
    return ret;
}

int diff_stream_run(struct diff_side *a, uint32_t sa, struct diff_side *b,
                    uint32_t sb, unsigned int kinds, struct diff_ring *ctx,
                    struct diff_ids *ids, struct diff_result *res,
                    struct qtrace_err *err)
{
    struct diff_item x, y;
    int ra, rb;

    memset(res, 0, sizeof(*res));
    ctx->n = ctx->head = 0;
    if (select_stream(a, sa, kinds, err) < 0 ||
        select_stream(b, sb, kinds, err) < 0) {
        return -EIO;
    }
    for (;;) {
        ra = next_item(a, &x, err);
        if (ra < 0) {
            return ra;
        }
        rb = next_item(b, &y, err);
        if (rb < 0) {
            return rb;
        }
        if (ra == 0 || rb == 0 || !same_item(a, ids, &x, &y)) {
            break;
        }
        res->records++;
        res->blocks += x.kind == DIFF_ITEM_BLOCK;
        res->insns = x.time;
        ring_push(ctx, &x);
    }
    res->a_ended = ra == 0;
    res->b_ended = rb == 0;
    res->differ = !(res->a_ended && res->b_ended);
    res->a = x;
    res->b = y;
    /* Where they part, what came before is in common. */
    if (res->differ) {
        res->insns = ra ? x.time : y.time;
        if (ra && rb && y.time < x.time) {
            res->insns = y.time;
        }
    }
    return 0;
}
