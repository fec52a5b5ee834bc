/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The uftrace sink (uftrace=DIR): func_entry and func_exit records become
 * uftrace records as chunks arrive, on the writer thread, through the
 * same directory writer as `qtrace convert --to uftrace`. image_map
 * records are kept; at close the guest's ELF files are read (libelf,
 * only then: never on a vCPU thread) to write the symbol and map files.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qtrace-events.h"
#include "qtrace/symbols.h"
#include "sink.h"
#include "sink-records.h"
#include "../../convert/uftrace-dir.h"

/* One image_map record, kept for the close. */
struct kept_map {
    uint64_t start, end, offset;
    char *path;
};

struct sink_uftrace {
    struct sink base;
    struct uftrace_dir *u;          /* NULL once closed or failed */
    sink_meta_fn meta;
    struct kept_map *maps;
    size_t n_maps, cap_maps;
    struct sink_records recs;
    const struct qtrace_catalog *cat;   /* the plugin's, with the
                                           libraries' events */
    struct qtrace_err err;          /* why uftrace_record failed */
};

static void keep_map(struct sink_uftrace *su,
                     const struct qtrace_ev_image_map *r)
{
    const char *path = (const char *)r + QTRACE_EV_IMAGE_MAP_FIXED;
    struct kept_map *m;

    if (r->hdr.size < QTRACE_EV_IMAGE_MAP_FIXED + r->path_len) {
        return;
    }
    if (su->n_maps == su->cap_maps) {
        size_t cap = su->cap_maps ? 2 * su->cap_maps : 16;
        void *grown = realloc(su->maps, cap * sizeof(*su->maps));

        if (!grown) {
            return;                 /* only names are lost */
        }
        su->maps = grown;
        su->cap_maps = cap;
    }
    m = &su->maps[su->n_maps];
    m->path = strndup(path, r->path_len);
    if (!m->path) {
        return;
    }
    m->start = r->start;
    m->end = r->end;
    m->offset = r->offset;
    su->n_maps++;
}

static int uftrace_record(struct sink_uftrace *su, const struct chunk *c,
                          const struct qtrace_rec *r, struct qtrace_err *err)
{
    switch (r->id) {
    case QTRACE_EV_FUNC_ENTRY: {
        const struct qtrace_ev_func_entry *e = (const void *)r;

        return uftrace_dir_entry(su->u, c->stream, r->time, e->pc, e->depth,
                                 err);
    }
    case QTRACE_EV_FUNC_EXIT: {
        const struct qtrace_ev_func_exit *e = (const void *)r;

        return uftrace_dir_exit(su->u, c->stream, r->time, e->pc, err);
    }
    case QTRACE_EV_IMAGE_MAP:
        keep_map(su, (const void *)r);
        return 0;
    default: {
        const struct qtrace_event_desc *ev = qtrace_catalog_get(su->cat,
                                                                r->id);

        /* A library's own event (LIB:EVENT): a uftrace user event. */
        if (ev && strchr(ev->name, ':')) {
            return uftrace_dir_event(su->u, c->stream, r->time, r->id,
                                     ev->name, err);
        }
        uftrace_dir_seen(su->u, c->stream, r->time);
        return 0;
    }
    }
}

static int uftrace_each(void *arg, const struct chunk *c,
                        const struct qtrace_rec *r)
{
    struct sink_uftrace *su = arg;

    /* The translation stream holds image_map records, but no task. */
    if (c->vcpu == QTRACE_VCPU_NONE && r->id != QTRACE_EV_IMAGE_MAP) {
        return 0;
    }
    return uftrace_record(su, c, r, &su->err);
}

static int uftrace_chunk(struct sink *s, const struct chunk *c)
{
    struct sink_uftrace *su = (struct sink_uftrace *)s;
    char why[160];
    int ret;

    if (!su->u) {
        return -EIO;
    }
    su->err.msg[0] = '\0';
    ret = sink_records_each(&su->recs, c, uftrace_each, su, why,
                            sizeof(why));
    if (ret < 0) {
        sink_fail(s, su->err.msg[0] ? su->err.msg : why);
        uftrace_dir_free(su->u);
        su->u = NULL;
        return -EIO;
    }
    return 0;
}

/* The value of "key=" in the META text, copied into buf ("" if none). */
static const char *meta_value(const char *meta, const char *key, char *buf,
                              size_t len)
{
    size_t klen = strlen(key);
    const char *p = meta;

    buf[0] = '\0';
    while (p && *p) {
        if (strncmp(p, key, klen) == 0 && p[klen] == '=') {
            size_t n = strcspn(p + klen + 1, "\n");

            snprintf(buf, len, "%.*s", (int)n, p + klen + 1);
            break;
        }
        p = strchr(p, '\n');
        p = p ? p + 1 : NULL;
    }
    return buf;
}

/* The guest's images: the image_map records, then the program itself. */
static struct qtrace_symbols *load_symbols(struct sink_uftrace *su,
                                           const char *binary,
                                           uint64_t start_code)
{
    struct qtrace_symbols *syms = qtrace_symbols_new();
    struct qtrace_err err;
    size_t i;

    if (!syms) {
        return NULL;
    }
    /* An unreadable file only costs its names: no message from QEMU. */
    for (i = 0; i < su->n_maps; i++) {
        qtrace_symbols_add_map(syms, su->maps[i].path, su->maps[i].start,
                               su->maps[i].end, su->maps[i].offset, &err);
    }
    if (binary[0]) {
        qtrace_symbols_add_program(syms, binary, start_code, &err);
    }
    return syms;
}

static int uftrace_close(struct sink *s, const char *end)
{
    struct sink_uftrace *su = (struct sink_uftrace *)s;
    const char *meta = su->meta();
    char binary[1024], code[32], bits[8], mode[16];
    struct uftrace_dir_meta um;
    struct qtrace_symbols *syms;
    struct qtrace_err err = { "" };
    int ret;

    (void)end;
    if (!su->u) {
        return -EIO;
    }
    meta_value(meta, "binary", binary, sizeof(binary));
    meta_value(meta, "start_code", code, sizeof(code));
    meta_value(meta, "word_bits", bits, sizeof(bits));
    meta_value(meta, "mode", mode, sizeof(mode));
    if (strcmp(mode, "system") == 0) {
        binary[0] = '\0';
    }
    syms = load_symbols(su, binary, strtoull(code, NULL, 0));
    um.exename = binary;
    um.cmdline = NULL;
    um.word_bits = (unsigned int)strtoul(bits, NULL, 10);
    ret = uftrace_dir_close(su->u, &um, syms, &err);
    su->u = NULL;
    qtrace_symbols_free(syms);
    if (ret < 0) {
        sink_fail(s, err.msg);
    }
    return ret;
}

static void uftrace_free(struct sink *s)
{
    struct sink_uftrace *su = (struct sink_uftrace *)s;
    size_t i;

    uftrace_dir_free(su->u);
    for (i = 0; i < su->n_maps; i++) {
        free(su->maps[i].path);
    }
    free(su->maps);
    sink_records_fini(&su->recs);
    free(s->target);
    free(su);
}

static const struct sink_ops sink_uftrace_ops = {
    .kind = "uftrace",
    .chunk = uftrace_chunk,
    .close = uftrace_close,
    .free = uftrace_free,
};

struct sink *sink_uftrace_new(const char *dir, sink_meta_fn meta,
                              const struct qtrace_catalog *cat,
                              struct qtrace_err *err)
{
    struct sink_uftrace *su = calloc(1, sizeof(*su));

    if (!su || sink_records_init(&su->recs, cat) < 0) {
        qtrace_err_set(err, "%s: %s", dir, strerror(ENOMEM));
        free(su);
        return NULL;
    }
    /* Created now so that a bad path fails the load, not the exit. */
    if (uftrace_dir_open(&su->u, dir, err) < 0) {
        sink_records_fini(&su->recs);
        free(su);
        return NULL;
    }
    su->meta = meta;
    su->cat = cat;
    su->base.ops = &sink_uftrace_ops;
    su->base.target = strdup(dir);
    return &su->base;
}
