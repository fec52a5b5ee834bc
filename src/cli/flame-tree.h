/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The calling-context tree of a trace, for flame graphs: every distinct
 * call stack its func_entry and func_exit records make, each node
 * weighted by the guest instructions that ran with exactly that stack
 * (its self instructions). Built in one pass over the function records
 * (blocks are not expanded), one call stack per vCPU stream, with the
 * same rules as `report --functions`; written out by report-folded.c as
 * folded stacks and by flame-svg.c as an SVG. Main thread only.
 */
#ifndef QTRACE_CLI_FLAME_TREE_H
#define QTRACE_CLI_FLAME_TREE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "qtrace/err.h"
#include "qtrace/reader.h"

#define FLAME_NONE UINT32_MAX       /* no node */

/* What flame_tree_build returns when the trace has no function record. */
#define FLAME_EMPTY 1

struct flame_node {
    uint32_t parent;                /* FLAME_NONE for a root */
    uint32_t func;                  /* index in the tree's functions */
    uint32_t first_child;           /* children sorted by name, after */
    uint32_t next_sibling;          /* flame_tree_build; FLAME_NONE */
    uint32_t depth;                 /* 0 for a root */
    uint64_t self;                  /* instructions with this stack */
    uint64_t total;                 /* self and the children's totals */
};

struct flame_opts {
    bool keep_plt;                  /* a PLT stub "name@plt" as a frame of
                                       its own, not folded into "name" */
    bool per_stream;                /* one root frame per vCPU stream */
};

struct flame_tree {
    struct flame_node *nodes;       /* roots first come first */
    uint32_t n_nodes;
    uint32_t cap_nodes;
    uint32_t first_root;            /* roots chained by next_sibling */
    char **names;                   /* display name per function */
    uint32_t n_funcs;
    uint64_t total;                 /* instructions of every stream */
    uint64_t streams;               /* vCPU streams seen */
    void *priv;                     /* build state (flame-tree.c) */
};

/*
 * Build t from the trace rd (read from its start; the progress display,
 * if any, follows it). The root frame is the program's name (the base
 * name of the trace's `binary`), or with o->per_stream one root per
 * stream, "PROGRAM [stream S, vcpu V]"; the instructions a stream ran
 * outside every function frame are the root's own. Returns 0,
 * FLAME_EMPTY (no func_entry record: nothing is built), or -errno with
 * err set; a trace that stops early keeps what was read and returns the
 * reader's error. cmd names the command in symbol warnings.
 */
int flame_tree_build(struct flame_tree *t, struct qtrace_reader *rd,
                     const struct flame_opts *o, const char *cmd,
                     struct qtrace_err *err);

void flame_tree_fini(struct flame_tree *t);

/* The frame name of node i: no ';', no control character. */
static inline const char *flame_tree_name(const struct flame_tree *t,
                                          uint32_t i)
{
    return t->names[t->nodes[i].func];
}

/*
 * Print t as folded stacks on out: "ROOT;FRAME;...;FRAME COUNT", one
 * line per stack with self instructions, depth first, siblings by name.
 * Returns 0, or -EIO when out failed.
 */
int flame_tree_print_folded(const struct flame_tree *t, FILE *out);

/*
 * The same stacks in the same order, each handed to fn with its self
 * instructions; the walk stops at fn's first non-zero return, which it
 * returns.
 */
int flame_tree_walk_folded(const struct flame_tree *t,
                           int (*fn)(void *ctx, const char *stack,
                                     uint64_t self),
                           void *ctx);

#endif /* QTRACE_CLI_FLAME_TREE_H */
