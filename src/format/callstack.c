/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Rebuilding a stream's call stack from function records (see
 * include/qtrace/callstack.h for the rules).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "qtrace/callstack.h"
#include "record-arg.h"

void qtrace_callstack_init(struct qtrace_callstack *cs)
{
    memset(cs, 0, sizeof(*cs));
}

void qtrace_callstack_fini(struct qtrace_callstack *cs)
{
    uint32_t i;

    for (i = 0; i < cs->n_saved; i++) {
        free(cs->saved[i].frames);
    }
    free(cs->saved);
    free(cs->frames);
    memset(cs, 0, sizeof(*cs));
}

/* Close the top frame at time and charge its time to its parent. */
static void pop(struct qtrace_callstack *cs, uint64_t time, bool forced,
                const struct qtrace_callstack_ops *ops, void *arg)
{
    struct qtrace_frame *f = &cs->frames[cs->depth - 1];
    /* Times of one stream only grow; a bad record must not wrap. */
    uint64_t end = time > f->start ? time : f->start;

    if (cs->depth > 1) {
        cs->frames[cs->depth - 2].child_time += end - f->start;
    }
    if (forced) {
        cs->forced++;
    }
    if (ops && ops->leave) {
        ops->leave(arg, f, cs->depth, end, forced);
    }
    cs->depth--;
}

int qtrace_callstack_enter(struct qtrace_callstack *cs, uint64_t pc,
                           uint64_t from, uint32_t depth, uint64_t time,
                           const struct qtrace_callstack_ops *ops,
                           void *arg)
{
    struct qtrace_frame *f;

    if (cs->depth == cs->cap) {
        uint32_t cap = cs->cap ? 2 * cs->cap : 64;
        void *grown = realloc(cs->frames, cap * sizeof(*cs->frames));

        if (!grown) {
            return -ENOMEM;
        }
        cs->frames = grown;
        cs->cap = cap;
    }
    /* The recorder says this frame is at depth: deeper ones were lost. */
    while (depth > 0 && cs->depth >= depth) {
        pop(cs, time, true, ops, arg);
    }
    f = &cs->frames[cs->depth++];
    f->pc = pc;
    f->from = from;
    f->start = time;
    f->child_time = 0;
    if (ops && ops->enter) {
        ops->enter(arg, f, cs->depth);
    }
    return 0;
}

bool qtrace_callstack_leave(struct qtrace_callstack *cs, uint64_t pc,
                            uint64_t time,
                            const struct qtrace_callstack_ops *ops,
                            void *arg)
{
    uint32_t i = cs->depth;

    while (i > 0 && cs->frames[i - 1].pc != pc) {
        i--;
    }
    if (i == 0) {
        cs->unmatched++;
        return false;
    }
    while (cs->depth > i) {
        pop(cs, time, true, ops, arg);
    }
    pop(cs, time, false, ops, arg);
    return true;
}

void qtrace_callstack_close(struct qtrace_callstack *cs, uint64_t time,
                            const struct qtrace_callstack_ops *ops,
                            void *arg)
{
    uint32_t i;

    while (cs->depth > 0) {
        pop(cs, time, true, ops, arg);
    }
    for (i = 0; i < cs->n_saved; i++) {
        struct qtrace_callstack_saved *sv = &cs->saved[i];

        if (sv->depth == 0) {
            continue;
        }
        /* Swap it in, close it, swap the empty current stack back. */
        qtrace_callstack_switch(cs, sv->key >> 1, sv->key & 1);
        while (cs->depth > 0) {
            pop(cs, time, true, ops, arg);
        }
    }
}

int qtrace_callstack_switch(struct qtrace_callstack *cs, uint64_t task,
                            bool user)
{
    uint64_t key = task << 1 | (user ? 1 : 0);
    struct qtrace_callstack_saved *sv = NULL, tmp;
    uint32_t i;

    if (key == cs->key) {
        return 0;
    }
    for (i = 0; i < cs->n_saved; i++) {
        if (cs->saved[i].key == key) {
            sv = &cs->saved[i];
            break;
        }
    }
    if (!sv) {
        /* A stack seen first: an empty slot takes the current one. */
        if (cs->n_saved == cs->cap_saved) {
            uint32_t cap = cs->cap_saved ? 2 * cs->cap_saved : 16;
            void *grown = realloc(cs->saved, cap * sizeof(*cs->saved));

            if (!grown) {
                return -ENOMEM;
            }
            cs->saved = grown;
            cs->cap_saved = cap;
        }
        sv = &cs->saved[cs->n_saved++];
        memset(sv, 0, sizeof(*sv));
        sv->key = key;
    }
    /* The slot of the new stack now keeps the current one. */
    tmp = *sv;
    sv->key = cs->key;
    sv->frames = cs->frames;
    sv->depth = cs->depth;
    sv->cap = cs->cap;
    cs->key = tmp.key;
    cs->frames = tmp.frames;
    cs->depth = tmp.depth;
    cs->cap = tmp.cap;
    return 0;
}

/* ---- func_entry / func_exit records ---- */

static int arg_index(const struct qtrace_event_desc *ev, const char *name)
{
    unsigned int i;

    for (i = 0; ev && i < ev->n_args; i++) {
        if (strcmp(ev->args[i].name, name) == 0) {
            return (int)i;
        }
    }
    return -1;
}

void qtrace_func_events_find(struct qtrace_func_events *fe,
                             const struct qtrace_catalog *cat)
{
    fe->entry = qtrace_catalog_find(cat, "func_entry");
    fe->entry_pc = arg_index(fe->entry, "pc");
    fe->entry_from = arg_index(fe->entry, "from");
    fe->entry_depth = arg_index(fe->entry, "depth");
    fe->entry_kind = arg_index(fe->entry, "kind");
    if (fe->entry_pc < 0) {
        fe->entry = NULL;
    }
    fe->exit = qtrace_catalog_find(cat, "func_exit");
    fe->exit_pc = arg_index(fe->exit, "pc");
    fe->exit_to = arg_index(fe->exit, "to");
    fe->exit_depth = arg_index(fe->exit, "depth");
    fe->exit_kind = arg_index(fe->exit, "kind");
    if (fe->exit_pc < 0) {
        fe->exit = NULL;
    }
    fe->stack = qtrace_catalog_find(cat, "func_stack");
    fe->stack_task = arg_index(fe->stack, "task");
    fe->stack_user = arg_index(fe->stack, "user");
    if (fe->stack_task < 0) {
        fe->stack = NULL;
    }
}

static uint64_t opt_arg(const struct qtrace_record *rec, int idx)
{
    return idx >= 0 ? (uint64_t)record_arg_value(rec, (unsigned int)idx)
                    : 0;
}

bool qtrace_func_events_decode(const struct qtrace_func_events *fe,
                               const struct qtrace_record *rec,
                               struct qtrace_func_rec *out)
{
    if (fe->entry && rec->ev == fe->entry) {
        out->is_exit = false;
        out->pc = opt_arg(rec, fe->entry_pc);
        out->other = opt_arg(rec, fe->entry_from);
        out->depth = (uint32_t)opt_arg(rec, fe->entry_depth);
        out->kind = (uint8_t)opt_arg(rec, fe->entry_kind);
        return true;
    }
    if (fe->exit && rec->ev == fe->exit) {
        out->is_exit = true;
        out->pc = opt_arg(rec, fe->exit_pc);
        out->other = opt_arg(rec, fe->exit_to);
        out->depth = (uint32_t)opt_arg(rec, fe->exit_depth);
        out->kind = (uint8_t)opt_arg(rec, fe->exit_kind);
        return true;
    }
    return false;
}

int qtrace_callstack_feed(struct qtrace_callstack *cs,
                          const struct qtrace_func_events *fe,
                          const struct qtrace_record *rec,
                          const struct qtrace_callstack_ops *ops, void *arg)
{
    struct qtrace_func_rec fr;

    if (fe->stack && rec->ev == fe->stack) {
        return qtrace_callstack_switch(cs, opt_arg(rec, fe->stack_task),
                                       opt_arg(rec, fe->stack_user) != 0)
               < 0 ? -ENOMEM : 0;
    }
    if (!qtrace_func_events_decode(fe, rec, &fr)) {
        return 0;
    }
    if (fr.is_exit) {
        qtrace_callstack_leave(cs, fr.pc, rec->time, ops, arg);
        return 1;
    }
    return qtrace_callstack_enter(cs, fr.pc, fr.other, fr.depth, rec->time,
                                  ops, arg) < 0 ? -ENOMEM : 1;
}
