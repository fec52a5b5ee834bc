/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Call stack of one vCPU stream rebuilt from func_entry and func_exit
 * records, for the reading commands and the uftrace writers. The stack
 * keeps itself balanced whatever the records say: an exit of an outer
 * frame closes the inner ones first, an entry at a depth already in use
 * closes the frames from that depth down, an exit of no open frame is
 * counted and ignored, and the end of the stream closes what is left.
 * Single-threaded; one stack per stream.
 */
#ifndef QTRACE_CALLSTACK_H
#define QTRACE_CALLSTACK_H

#include <stdbool.h>
#include <stdint.h>

#include "qtrace/catalog.h"
#include "qtrace/reader.h"

struct qtrace_frame {
    uint64_t pc;                    /* entry address of the function */
    uint64_t from;                  /* call site, 0 if unknown */
    uint64_t start;                 /* time of the entry */
    uint64_t child_time;            /* time spent in closed callees */
};

/* A stack put aside while another is current (func_stack). */
struct qtrace_callstack_saved {
    uint64_t key;                   /* task << 1 | user */
    struct qtrace_frame *frames;
    uint32_t depth, cap;
};

struct qtrace_callstack {
    struct qtrace_frame *frames;    /* frames[0] is the outermost */
    uint32_t depth;                 /* open frames */
    uint32_t cap;
    uint64_t unmatched;             /* exits of no open frame, ignored */
    uint64_t forced;                /* frames closed without their exit */
    /*
     * System mode: a stream holds one stack per guest task and level,
     * the current one in the fields above, the others here (a
     * func_stack record switches them: qtrace_callstack_feed).
     */
    uint64_t key;                   /* the current stack's */
    struct qtrace_callstack_saved *saved;
    uint32_t n_saved, cap_saved;
};

/* What a stack reports as it changes; arg is the caller's. */
struct qtrace_callstack_ops {
    /* f was opened at depth (1 = outermost); f->start is its time. */
    void (*enter)(void *arg, const struct qtrace_frame *f, uint32_t depth);
    /*
     * f, at depth, closed at time. forced: no exit record of f closed it
     * (an outer frame's exit, a resynchronisation, the stream's end).
     * Its time has been added to its parent's child_time already.
     */
    void (*leave)(void *arg, const struct qtrace_frame *f, uint32_t depth,
                  uint64_t time, bool forced);
};

void qtrace_callstack_init(struct qtrace_callstack *cs);
void qtrace_callstack_fini(struct qtrace_callstack *cs);

/*
 * A func_entry record: pc entered from from at time, the record saying
 * depth (1 = outermost; 0 = unknown, no resynchronisation). Returns 0,
 * or -ENOMEM (the stack is unchanged).
 */
int qtrace_callstack_enter(struct qtrace_callstack *cs, uint64_t pc,
                           uint64_t from, uint32_t depth, uint64_t time,
                           const struct qtrace_callstack_ops *ops,
                           void *arg);

/*
 * A func_exit record of the function entered at pc: closes the innermost
 * open frame of pc and every frame above it. Returns false (and counts
 * it) when no open frame is pc's.
 */
bool qtrace_callstack_leave(struct qtrace_callstack *cs, uint64_t pc,
                            uint64_t time,
                            const struct qtrace_callstack_ops *ops,
                            void *arg);

/*
 * Close every open frame at time, innermost first (forced), those of
 * the stacks put aside too (each after the current one's).
 */
void qtrace_callstack_close(struct qtrace_callstack *cs, uint64_t time,
                            const struct qtrace_callstack_ops *ops,
                            void *arg);

/*
 * A func_stack record: the records that follow belong to the stack of
 * guest task `task` at level `user`; the current stack is put aside
 * with its open frames. Returns 0 or -ENOMEM (nothing changed).
 */
int qtrace_callstack_switch(struct qtrace_callstack *cs, uint64_t task,
                            bool user);

/*
 * Where func_entry and func_exit keep their arguments in a trace's own
 * catalog, found by name (pc, from, depth, kind; pc, to, depth, kind).
 * An event that lacks pc is taken as absent.
 */
struct qtrace_func_events {
    const struct qtrace_event_desc *entry;  /* func_entry, or NULL */
    const struct qtrace_event_desc *exit;   /* func_exit, or NULL */
    int entry_pc, entry_from, entry_depth, entry_kind;  /* -1: absent */
    int exit_pc, exit_to, exit_depth, exit_kind;
    const struct qtrace_event_desc *stack; /* func_stack, or NULL */
    int stack_task, stack_user;
};

/* One function record, decoded. */
struct qtrace_func_rec {
    bool is_exit;
    uint64_t pc;                    /* the function's entry address */
    uint64_t other;                 /* entry: call site; exit: return to */
    uint32_t depth;                 /* 0 if the catalog has none */
    uint8_t kind;                   /* see trace-events */
};

void qtrace_func_events_find(struct qtrace_func_events *fe,
                             const struct qtrace_catalog *cat);

/* Decode rec if it is a func_entry or func_exit record. */
bool qtrace_func_events_decode(const struct qtrace_func_events *fe,
                               const struct qtrace_record *rec,
                               struct qtrace_func_rec *out);

/*
 * Feed one record to cs: func records update it (func_stack switches
 * its stack), others are ignored.
 * Returns 1 for a func_entry or func_exit record, 0 for another,
 * -ENOMEM.
 */
int qtrace_callstack_feed(struct qtrace_callstack *cs,
                          const struct qtrace_func_events *fe,
                          const struct qtrace_record *rec,
                          const struct qtrace_callstack_ops *ops, void *arg);

#endif /* QTRACE_CALLSTACK_H */
