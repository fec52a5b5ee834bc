/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Rebuilding a stream's call stack from function records (see
 * include/qtrace/callstack.h for the rules).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "qtrace/callstack.h"

void qtrace_callstack_init(struct qtrace_callstack *cs)
{
    memset(cs, 0, sizeof(*cs));
}

void qtrace_callstack_fini(struct qtrace_callstack *cs)
{
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
    while (cs->depth > 0) {
        pop(cs, time, true, ops, arg);
    }
}
