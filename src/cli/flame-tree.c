/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The calling-context tree (see flame-tree.h). Each vCPU stream keeps
 * its call stack (qtrace_callstack) and beside it the tree node of each
 * open frame; a frame that closes adds its self instructions (its time
 * less its callees') to its node. A PLT stub that forwards by a tail
 * call is folded as `report --functions` folds it: its instructions go
 * to the frame that replaces it, so that a call through the PLT and a
 * direct call make one stack. The instructions a stream ran outside
 * every frame (before its first call, between outermost calls, after
 * the last) are its root's own, so the tree's total is the trace's
 * instructions.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "flame-tree.h"
#include "guest-syms.h"
#include "report.h"
#include "qtrace/callstack.h"

/* A PLT stub frame just closed, waiting for the frame that replaces it. */
struct stub_carry {
    uint32_t node;                  /* the stub's node, FLAME_NONE: none */
    uint64_t dur;                   /* its instructions */
    uint32_t depth;
};

struct fl_stream {
    uint32_t id, vcpu;
    uint64_t end_insns;             /* from the index; 0 when unknown */
    uint64_t last_time;             /* latest record read */
    uint64_t in_frames;             /* instructions of closed outermost
                                       frames */
    struct qtrace_callstack cs;
    uint32_t *path;                 /* node per depth, path[0] the root */
    uint32_t cap_path;
    uint64_t *carried;              /* per depth: a stub's instructions */
    struct stub_carry pending;
};

struct fl_build {
    const struct qtrace_symbols *syms;
    bool keep_plt;
    bool per_stream;
    const char *program;            /* the root's name */
    GHashTable *funcs;              /* "NAME\x1fMODULE" -> id + 1 */
    GPtrArray *keys;                /* id -> that key (owned by funcs) */
    GHashTable *pcs;                /* pc -> id + 1, | STUB_BIT: a stub */
    GHashTable *children;           /* parent << 32 | func -> node + 1 */
    GHashTable *streams;            /* stream id -> struct fl_stream */
    uint32_t program_root;          /* without per_stream */
    struct fl_stream *cur;
    bool oom;
};

#define STUB_BIT (1ull << 40)

static guint hash_u64(gconstpointer p)
{
    uint64_t k = GPOINTER_TO_SIZE(p) * 0x9e3779b97f4a7c15ull;

    return (guint)(k >> 32);
}

static void free_stream(void *p)
{
    struct fl_stream *st = p;

    qtrace_callstack_fini(&st->cs);
    free(st->path);
    free(st->carried);
    free(st);
}

/* The function id of key ("NAME\x1fMODULE"), added when new. */
static uint32_t func_id(struct fl_build *b, const char *key)
{
    gpointer v = g_hash_table_lookup(b->funcs, key);
    char *copy;

    if (v) {
        return (uint32_t)(GPOINTER_TO_SIZE(v) - 1);
    }
    copy = g_strdup(key);
    g_ptr_array_add(b->keys, copy);
    g_hash_table_insert(b->funcs, copy, GSIZE_TO_POINTER(b->keys->len));
    return b->keys->len - 1;
}

/* The function entered at pc, and whether pc is a PLT stub to fold. */
static uint32_t func_of_pc(struct fl_build *b, uint64_t pc, bool *stub)
{
    gpointer v = g_hash_table_lookup(b->pcs, GSIZE_TO_POINTER(pc));
    const char *module;
    char buf[640];
    uint64_t id;
    size_t len;
    bool is_stub = false;

    if (v) {
        *stub = (GPOINTER_TO_SIZE(v) & STUB_BIT) != 0;
        return (uint32_t)((GPOINTER_TO_SIZE(v) & ~STUB_BIT) - 1);
    }
    if (!b->keep_plt) {
        len = strlen(guest_syms_fmt(b->syms, pc, false, buf, sizeof(buf)));
        is_stub = len > 4 && strcmp(buf + len - 4, "@plt") == 0;
    }
    guest_syms_fn_name(b->syms, pc, b->keep_plt, buf, sizeof(buf));
    len = strlen(buf);
    module = qtrace_symbols_module(b->syms, pc, NULL);
    snprintf(buf + len, sizeof(buf) - len, "\x1f%s", module ? module : "");
    id = func_id(b, buf);
    g_hash_table_insert(b->pcs, GSIZE_TO_POINTER(pc),
                        GSIZE_TO_POINTER((id + 1) | (is_stub ? STUB_BIT
                                                             : 0)));
    *stub = is_stub;
    return (uint32_t)id;
}

static uint32_t new_node(struct flame_tree *t, uint32_t parent, uint32_t func)
{
    struct flame_node *n;

    if (t->n_nodes == t->cap_nodes) {
        uint32_t cap = t->cap_nodes ? 2 * t->cap_nodes : 1024;
        void *grown;

        if (cap <= t->cap_nodes || cap == FLAME_NONE) {
            return FLAME_NONE;
        }
        grown = realloc(t->nodes, (size_t)cap * sizeof(*t->nodes));
        if (!grown) {
            return FLAME_NONE;
        }
        t->nodes = grown;
        t->cap_nodes = cap;
    }
    n = &t->nodes[t->n_nodes];
    memset(n, 0, sizeof(*n));
    n->parent = parent;
    n->func = func;
    n->first_child = n->next_sibling = FLAME_NONE;
    n->depth = parent == FLAME_NONE ? 0 : t->nodes[parent].depth + 1;
    return t->n_nodes++;
}

/* The child of parent for func, made when new; FLAME_NONE: no memory. */
static uint32_t child_of(struct flame_tree *t, uint32_t parent, uint32_t func)
{
    struct fl_build *b = t->priv;
    gpointer key = GSIZE_TO_POINTER((uint64_t)parent << 32 | func);
    gpointer v = g_hash_table_lookup(b->children, key);
    uint32_t n;

    if (v) {
        return (uint32_t)(GPOINTER_TO_SIZE(v) - 1);
    }
    n = new_node(t, parent, func);
    if (n != FLAME_NONE) {
        g_hash_table_insert(b->children, key, GSIZE_TO_POINTER(n + 1ull));
    }
    return n;
}

/* Room for depth + 1 entries of st's path and carried arrays. */
static bool stream_reserve(struct fl_stream *st, uint32_t depth)
{
    uint32_t cap = st->cap_path ? st->cap_path : 64;
    uint32_t *path;
    uint64_t *carried;

    if (depth < st->cap_path) {
        return true;
    }
    while (cap <= depth) {
        cap *= 2;
    }
    path = realloc(st->path, cap * sizeof(*path));
    if (!path) {
        return false;
    }
    st->path = path;
    carried = realloc(st->carried, cap * sizeof(*carried));
    if (!carried) {
        return false;
    }
    memset(carried + st->cap_path, 0,
           (cap - st->cap_path) * sizeof(*carried));
    st->carried = carried;
    st->cap_path = cap;
    return true;
}

static struct fl_stream *stream_of(struct flame_tree *t, uint32_t id,
                                   uint32_t vcpu)
{
    struct fl_build *b = t->priv;
    struct fl_stream *st = g_hash_table_lookup(b->streams,
                                               GUINT_TO_POINTER(id));
    char name[300];

    if (st) {
        return st;
    }
    st = calloc(1, sizeof(*st));
    if (!st || !stream_reserve(st, 0)) {
        free(st);
        return NULL;
    }
    st->id = id;
    st->vcpu = vcpu;
    st->pending.node = FLAME_NONE;
    qtrace_callstack_init(&st->cs);
    if (b->per_stream) {
        snprintf(name, sizeof(name), "%s [stream %u, vcpu %u]", b->program,
                 id, vcpu);
        st->path[0] = new_node(t, FLAME_NONE, func_id(b, name));
    } else {
        st->path[0] = b->program_root;
    }
    if (st->path[0] == FLAME_NONE) {
        free_stream(st);
        return NULL;
    }
    g_hash_table_insert(b->streams, GUINT_TO_POINTER(id), st);
    t->streams++;
    return st;
}

/* A stub that nothing replaced keeps its instructions as its own. */
static void settle_pending(struct flame_tree *t, struct fl_stream *st)
{
    if (st->pending.node != FLAME_NONE) {
        t->nodes[st->pending.node].self += st->pending.dur;
        st->pending.node = FLAME_NONE;
    }
}

static void on_enter(void *arg, const struct qtrace_frame *f, uint32_t depth)
{
    struct flame_tree *t = arg;
    struct fl_build *b = t->priv;
    struct fl_stream *st = b->cur;
    bool stub;
    uint32_t func = func_of_pc(b, f->pc, &stub);

    if (!stream_reserve(st, depth)) {
        b->oom = true;
        return;
    }
    if (st->pending.node != FLAME_NONE && st->pending.depth == depth) {
        /* The stub's successor: its call goes on in this frame. */
        st->carried[depth] = st->pending.dur;
        st->pending.node = FLAME_NONE;
    }
    settle_pending(t, st);
    st->path[depth] = child_of(t, st->path[depth - 1], func);
    if (st->path[depth] == FLAME_NONE) {
        b->oom = true;
    }
}

static void on_leave(void *arg, const struct qtrace_frame *f, uint32_t depth,
                     uint64_t time, bool forced)
{
    struct flame_tree *t = arg;
    struct fl_build *b = t->priv;
    struct fl_stream *st = b->cur;
    uint64_t dur = time - f->start;
    uint32_t node;
    bool stub;

    (void)forced;
    if (b->oom) {
        return;
    }
    node = st->path[depth];
    func_of_pc(b, f->pc, &stub);
    settle_pending(t, st);
    if (depth == 1) {
        st->in_frames += dur;
    }
    dur += st->carried[depth];
    st->carried[depth] = 0;
    if (stub && f->child_time == 0) {
        st->pending = (struct stub_carry){ node, dur, depth };
        return;
    }
    t->nodes[node].self += dur > f->child_time ? dur - f->child_time : 0;
}

static const struct qtrace_callstack_ops tree_ops = { on_enter, on_leave };

/* Every stream of the index, with the instructions it reached. */
static void note_chunk(void *arg, const struct qtrace_chunk_entry *e)
{
    struct flame_tree *t = arg;
    struct fl_stream *st;

    if (e->vcpu == QTRACE_VCPU_NONE) {
        return;
    }
    st = stream_of(t, e->stream, e->vcpu);
    if (!st) {
        ((struct fl_build *)t->priv)->oom = true;
        return;
    }
    if (e->insns > st->end_insns) {
        st->end_insns = e->insns;
    }
}

static int oom(struct qtrace_err *err)
{
    qtrace_err_set(err, "%s", strerror(ENOMEM));
    return -ENOMEM;
}

/* Read the function records into the tree; *n_func: how many. */
static int collect(struct flame_tree *t, struct qtrace_reader *rd,
                   uint64_t *n_func, struct qtrace_err *err)
{
    struct fl_build *b = t->priv;
    struct qtrace_func_events fe;
    struct qtrace_record rec;
    int ret;

    qtrace_func_events_find(&fe, qtrace_reader_catalog(rd));
    ret = qtrace_reader_chunks(rd, note_chunk, t, err);
    if (ret == 0 && b->oom) {
        return oom(err);
    }
    ret = ret < 0 ? ret : report_select_calls(rd, err);
    while (ret >= 0 && (ret = qtrace_reader_next(rd, &rec, err)) > 0) {
        if (rec.vcpu == QTRACE_VCPU_NONE) {
            continue;
        }
        if (!b->cur || b->cur->id != rec.stream) {
            b->cur = stream_of(t, rec.stream, rec.vcpu);
            if (!b->cur) {
                return oom(err);
            }
        }
        ret = qtrace_callstack_feed(&b->cur->cs, &fe, &rec, &tree_ops, t);
        if (ret < 0 || b->oom) {
            return oom(err);
        }
        *n_func += (uint64_t)ret;
        b->cur->last_time = rec.time;
    }
    qtrace_reader_select(rd, NULL, NULL);
    return ret;
}

/*
 * Close what is still open at each stream's last record (as report
 * --functions does) and give the root what ran outside every frame.
 */
static void close_streams(struct flame_tree *t)
{
    struct fl_build *b = t->priv;
    GHashTableIter it;
    gpointer key, value;

    g_hash_table_iter_init(&it, b->streams);
    while (g_hash_table_iter_next(&it, &key, &value)) {
        struct fl_stream *st = value;
        uint64_t end = st->end_insns > st->last_time ? st->end_insns
                                                     : st->last_time;

        b->cur = st;
        qtrace_callstack_close(&st->cs, st->last_time, &tree_ops, t);
        settle_pending(t, st);
        t->nodes[st->path[0]].self += end > st->in_frames
                                      ? end - st->in_frames : 0;
        t->total += end;
    }
}

/* The base name of the trace's program, the root frame. */
static char *program_name(struct qtrace_reader *rd)
{
    const char *bin = qtrace_reader_meta(rd, "binary");
    const char *slash = bin ? strrchr(bin, '/') : NULL;

    if (!bin || !*bin) {
        return g_strdup("all");
    }
    return g_strdup(slash && slash[1] ? slash + 1 : bin);
}

/* No ';' (the folded separator) and no control character in a name. */
static void clean_name(char *s)
{
    for (; *s; s++) {
        if (*s == ';') {
            *s = ':';
        } else if ((unsigned char)*s < 0x20 || *s == 0x7f) {
            *s = '?';
        }
    }
}

/*
 * Display names: "NAME", or "NAME (MODULE)" when two images have a
 * function of that name (ld.so's private copies of libc functions), as
 * report --functions prints them.
 */
static int make_names(struct flame_tree *t)
{
    struct fl_build *b = t->priv;
    GHashTable *count = g_hash_table_new_full(g_str_hash, g_str_equal,
                                              g_free, NULL);
    bool *shown = calloc(b->keys->len + 1, sizeof(*shown));
    uint32_t i;

    t->n_funcs = b->keys->len;
    t->names = calloc(t->n_funcs + 1, sizeof(*t->names));
    if (!shown || !t->names) {
        free(shown);
        g_hash_table_destroy(count);
        return -ENOMEM;
    }
    for (i = 0; i < t->n_nodes; i++) {
        shown[t->nodes[i].func] |= t->nodes[i].total > 0;
    }
    for (i = 0; i < t->n_funcs; i++) {
        const char *key = g_ptr_array_index(b->keys, i);
        char *name = g_strndup(key, strcspn(key, "\x1f"));

        if (shown[i]) {
            g_hash_table_insert(count, name, GSIZE_TO_POINTER(
                GPOINTER_TO_SIZE(g_hash_table_lookup(count, name)) + 1));
        } else {
            g_free(name);
        }
    }
    for (i = 0; i < t->n_funcs; i++) {
        const char *key = g_ptr_array_index(b->keys, i);
        size_t n = strcspn(key, "\x1f");
        char *name = g_strndup(key, n);
        const char *module = key[n] ? key + n + 1 : "";

        if (*module &&
            GPOINTER_TO_SIZE(g_hash_table_lookup(count, name)) > 1) {
            t->names[i] = g_strdup_printf("%s (%s)", name, module);
            g_free(name);
        } else {
            t->names[i] = name;
        }
        clean_name(t->names[i]);
    }
    free(shown);
    g_hash_table_destroy(count);
    return 0;
}

/* Totals bottom up: children always come after their parent. */
static void sum_totals(struct flame_tree *t)
{
    uint32_t i;

    for (i = 0; i < t->n_nodes; i++) {
        t->nodes[i].total = t->nodes[i].self;
    }
    for (i = t->n_nodes; i-- > 0;) {
        if (t->nodes[i].parent != FLAME_NONE) {
            t->nodes[t->nodes[i].parent].total += t->nodes[i].total;
        }
    }
}

static const struct flame_tree *sort_tree;

static int cmp_by_name(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    int c = strcmp(flame_tree_name(sort_tree, x),
                   flame_tree_name(sort_tree, y));

    return c ? c : (x > y) - (x < y);
}

/* Chain each node's children (and the roots) sorted by name. */
static int link_children(struct flame_tree *t)
{
    uint32_t *order = malloc((size_t)(t->n_nodes + 1) * sizeof(*order));
    uint32_t i;

    if (!order) {
        return -ENOMEM;
    }
    for (i = 0; i < t->n_nodes; i++) {
        order[i] = i;
    }
    sort_tree = t;
    qsort(order, t->n_nodes, sizeof(*order), cmp_by_name);
    /* Pushed in reverse, each list ends up in name order. */
    t->first_root = FLAME_NONE;
    for (i = t->n_nodes; i-- > 0;) {
        struct flame_node *n = &t->nodes[order[i]];
        uint32_t *head = n->parent == FLAME_NONE
                         ? &t->first_root
                         : &t->nodes[n->parent].first_child;

        n->next_sibling = *head;
        *head = order[i];
    }
    free(order);
    return 0;
}

static void fini_build(struct fl_build *b)
{
    if (b->streams) {
        g_hash_table_destroy(b->streams);
    }
    if (b->children) {
        g_hash_table_destroy(b->children);
    }
    if (b->pcs) {
        g_hash_table_destroy(b->pcs);
    }
    if (b->funcs) {
        g_hash_table_destroy(b->funcs);
    }
    if (b->keys) {
        g_ptr_array_free(b->keys, TRUE);
    }
    g_free((char *)b->program);
}

int flame_tree_build(struct flame_tree *t, struct qtrace_reader *rd,
                     const struct flame_opts *o, const char *cmd,
                     struct qtrace_err *err)
{
    struct fl_build b = { .keep_plt = o->keep_plt,
                          .per_stream = o->per_stream };
    struct qtrace_symbols *syms;
    uint64_t n_func = 0;
    int ret;

    memset(t, 0, sizeof(*t));
    syms = guest_syms_load(rd, cmd);
    if (!syms) {
        return oom(err);
    }
    b.syms = syms;
    b.program = program_name(rd);
    b.funcs = g_hash_table_new(g_str_hash, g_str_equal);
    b.keys = g_ptr_array_new_with_free_func(g_free);
    b.pcs = g_hash_table_new(hash_u64, NULL);
    b.children = g_hash_table_new(hash_u64, NULL);
    b.streams = g_hash_table_new_full(NULL, NULL, NULL, free_stream);
    t->priv = &b;
    b.program_root = o->per_stream
                     ? FLAME_NONE
                     : new_node(t, FLAME_NONE, func_id(&b, b.program));
    ret = (!o->per_stream && b.program_root == FLAME_NONE)
          ? oom(err) : collect(t, rd, &n_func, err);
    if (ret != -ENOMEM && n_func == 0 && ret >= 0) {
        ret = FLAME_EMPTY;
    } else if (ret != -ENOMEM) {
        close_streams(t);
        sum_totals(t);
        if (make_names(t) < 0 || link_children(t) < 0) {
            ret = oom(err);
        }
    }
    t->priv = NULL;
    fini_build(&b);
    qtrace_symbols_free(syms);
    if (ret == FLAME_EMPTY || ret == -ENOMEM) {
        flame_tree_fini(t);
    }
    return ret;
}

void flame_tree_fini(struct flame_tree *t)
{
    uint32_t i;

    for (i = 0; t->names && i < t->n_funcs; i++) {
        g_free(t->names[i]);
    }
    free(t->names);
    free(t->nodes);
    memset(t, 0, sizeof(*t));
}

/*
 * Depth first without recursion (a guest may recurse a million frames
 * deep): path holds the frames down to the current node, lens the
 * length of path before each depth's frame.
 */
int flame_tree_walk_folded(const struct flame_tree *t,
                           int (*fn)(void *ctx, const char *stack,
                                     uint64_t self),
                           void *ctx)
{
    GString *path = g_string_new(NULL);
    GArray *lens = g_array_new(FALSE, FALSE, sizeof(gsize));
    uint32_t n = t->first_root;
    int ret = 0;

    while (n != FLAME_NONE && ret == 0) {
        const struct flame_node *node = &t->nodes[n];

        g_array_set_size(lens, node->depth + 1);
        g_array_index(lens, gsize, node->depth) = path->len;
        if (node->depth > 0) {
            g_string_append_c(path, ';');
        }
        g_string_append(path, flame_tree_name(t, n));
        if (node->self) {
            ret = fn(ctx, path->str, node->self);
        }
        if (node->first_child != FLAME_NONE) {
            n = node->first_child;
            continue;
        }
        /* Up to the first ancestor with a next sibling. */
        while (n != FLAME_NONE && t->nodes[n].next_sibling == FLAME_NONE) {
            n = t->nodes[n].parent;
        }
        if (n != FLAME_NONE) {
            g_string_truncate(path, g_array_index(lens, gsize,
                                                  t->nodes[n].depth));
            n = t->nodes[n].next_sibling;
        }
    }
    g_array_free(lens, TRUE);
    g_string_free(path, TRUE);
    return ret;
}

static int print_line(void *ctx, const char *stack, uint64_t self)
{
    return fprintf(ctx, "%s %" G_GUINT64_FORMAT "\n", stack,
                   (guint64)self) < 0 ? -EIO : 0;
}

int flame_tree_print_folded(const struct flame_tree *t, FILE *out)
{
    return flame_tree_walk_folded(t, print_line, out);
}
