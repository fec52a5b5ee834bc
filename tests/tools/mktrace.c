/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * mktrace: write a native trace from a text description, for tests that
 * need records no guest produces on demand (unbalanced calls, chosen
 * addresses, many streams). Usage: mktrace CATALOG OUT < DESCRIPTION.
 *
 *   meta KEY=VALUE                  a META line (in order)
 *   rec VCPU STREAM TIME EVENT [ARG=VALUE]...
 *                                   one record; arguments not given are 0
 *                                   (numbers in C syntax, strings as is)
 *
 * Records of consecutive rec lines with the same VCPU and STREAM share a
 * chunk. Blank lines and lines starting with '#' are ignored. Records
 * are laid out by the catalog parser's offsets (docs/format.md).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chunk.h"
#include "qtrace/catalog.h"
#include "qtrace/format.h"
#include "writer.h"

#define CHUNK_BYTES (1u << 20)

struct chunk_buf {
    uint8_t data[CHUNK_BYTES];
    uint32_t len;
    uint32_t vcpu, stream;
};

static char *read_all(FILE *f)
{
    size_t cap = 4096, len = 0, n;
    char *buf = malloc(cap);

    while (buf && (n = fread(buf + len, 1, cap - len - 1, f)) > 0) {
        len += n;
        if (len + 1 == cap) {
            char *grown = realloc(buf, cap * 2);

            if (!grown) {
                free(buf);
                return NULL;
            }
            buf = grown;
            cap *= 2;
        }
    }
    if (buf) {
        buf[len] = '\0';
    }
    return buf;
}

static void put_int(uint8_t *p, uint64_t v, unsigned int size)
{
    unsigned int i;

    for (i = 0; i < size; i++) {
        p[i] = (uint8_t)(v >> (8 * i));
    }
}

static const char *find_value(char **args, int n, const char *name)
{
    size_t len = strlen(name);
    int i;

    for (i = 0; i < n; i++) {
        if (strncmp(args[i], name, len) == 0 && args[i][len] == '=') {
            return args[i] + len + 1;
        }
    }
    return NULL;
}

/* Encode one record of ev into out; returns its size or 0. */
static uint32_t encode(const struct qtrace_event_desc *ev, uint64_t time,
                       char **args, int n, uint8_t *out)
{
    uint32_t var = 0, size, i;
    uint8_t *p;

    for (i = 0; i < ev->n_args; i++) {
        const char *v = find_value(args, n, ev->args[i].name);

        if (ev->args[i].type == QTRACE_ARG_STR ||
            ev->args[i].type == QTRACE_ARG_BYTES) {
            var += v ? (uint32_t)strlen(v) : 0;
        }
    }
    size = qtrace_rec_size(ev->fixed_size, var);
    memset(out, 0, size);
    put_int(out, ev->id, 2);
    put_int(out + 2, size, 2);
    put_int(out + 8, time, 8);
    p = out + ev->fixed_size;
    for (i = 0; i < ev->n_args; i++) {
        const struct qtrace_arg_desc *a = &ev->args[i];
        const char *v = find_value(args, n, a->name);

        if (a->type == QTRACE_ARG_STR || a->type == QTRACE_ARG_BYTES) {
            size_t len = v ? strlen(v) : 0;

            put_int(out + a->offset, len, 2);
            memcpy(p, v ? v : "", len);
            p += len;
        } else if (v) {
            put_int(out + a->offset, strtoull(v, NULL, 0), a->size);
        }
    }
    return size;
}

static int flush(struct qtrace_writer *w, struct chunk_buf *c)
{
    struct qtrace_err err;

    if (c->len && qtrace_writer_chunk(w, QTRACE_CHUNK_DATA, c->vcpu,
                                      c->stream, c->data, c->len,
                                      &err) < 0) {
        fprintf(stderr, "mktrace: %s\n", err.msg);
        return -1;
    }
    c->len = 0;
    return 0;
}

/* One "rec" line (after the word): returns 0 or -1. */
static int add_rec(struct qtrace_writer *w, const struct qtrace_catalog *cat,
                   struct chunk_buf *c, char *line, unsigned int lineno)
{
    char *tok[64];
    int n = 0;
    const struct qtrace_event_desc *ev;
    uint32_t vcpu, stream;

    for (char *t = strtok(line, " \t"); t && n < 64; t = strtok(NULL, " \t")) {
        tok[n++] = t;
    }
    if (n < 4 || !(ev = qtrace_catalog_find(cat, tok[3]))) {
        fprintf(stderr, "mktrace: line %u: bad rec line\n", lineno);
        return -1;
    }
    vcpu = strcmp(tok[0], "-") == 0 ? QTRACE_VCPU_NONE
                                    : (uint32_t)strtoul(tok[0], NULL, 0);
    stream = (uint32_t)strtoul(tok[1], NULL, 0);
    if (c->len && (c->vcpu != vcpu || c->stream != stream ||
                   c->len + QTRACE_REC_MAX > CHUNK_BYTES)) {
        if (flush(w, c) < 0) {
            return -1;
        }
    }
    c->vcpu = vcpu;
    c->stream = stream;
    c->len += encode(ev, strtoull(tok[2], NULL, 0), tok + 4, n - 4,
                     c->data + c->len);
    return 0;
}

static int write_records(struct qtrace_writer *w,
                         const struct qtrace_catalog *cat, char *desc)
{
    static struct chunk_buf c;
    unsigned int lineno = 0;
    char *save = NULL;

    for (char *l = strtok_r(desc, "\n", &save); l;
         l = strtok_r(NULL, "\n", &save)) {
        lineno++;
        if (strncmp(l, "rec ", 4) == 0 &&
            add_rec(w, cat, &c, l + 4, lineno) < 0) {
            return -1;
        }
    }
    return flush(w, &c);
}

int main(int argc, char **argv)
{
    struct qtrace_catalog cat;
    struct qtrace_writer *w;
    struct qtrace_err err;
    char meta[65536] = "";
    char *catalog, *desc, *copy;
    FILE *cf;

    if (argc != 3) {
        fprintf(stderr, "usage: mktrace CATALOG OUT < DESCRIPTION\n");
        return 2;
    }
    cf = fopen(argv[1], "r");
    catalog = cf ? read_all(cf) : NULL;
    desc = read_all(stdin);
    if (!catalog || !desc || qtrace_catalog_parse(&cat, catalog, &err) < 0) {
        fprintf(stderr, "mktrace: %s: cannot read the catalog\n", argv[1]);
        return 1;
    }
    copy = strdup(desc);
    for (char *l = strtok(copy, "\n"); l; l = strtok(NULL, "\n")) {
        if (strncmp(l, "meta ", 5) == 0 &&
            strlen(meta) + strlen(l) + 2 < sizeof(meta)) {
            strcat(meta, l + 5);
            strcat(meta, "\n");
        }
    }
    if (qtrace_writer_open(&w, argv[2], meta, catalog, &err) < 0) {
        fprintf(stderr, "mktrace: %s\n", err.msg);
        return 1;
    }
    if (write_records(w, &cat, desc) < 0 ||
        qtrace_writer_close(w, "exit=exit\n", &err) < 0) {
        return 1;
    }
    qtrace_catalog_fini(&cat);
    free(copy);
    free(desc);
    free(catalog);
    fclose(cf);
    return 0;
}
