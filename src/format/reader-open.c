/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The native trace reader, its opening half: maps the file, checks the
 * file header and the META chunk (or recognises an etrace file), and
 * answers what the META and END chunks say.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "catalog-check.h"
#include "le.h"
#include "etrace.h"
#include "reader-int.h"

/* ---- open and META ---- */

/*
 * The per-id table take_record uses: a few hundred bytes that stay in the
 * cache, instead of the catalog's large descriptions.
 */
static int index_events(struct qtrace_reader *rd)
{
    unsigned int id;
    unsigned int i;

    rd->info = calloc(rd->cat.n_events + 1, sizeof(*rd->info));
    if (!rd->info) {
        return -ENOMEM;
    }
    rd->streams_bound = UINT64_MAX;
    rd->info[0].fixed_size = UINT16_MAX;    /* id 0 is never valid */
    for (id = 1; id <= rd->cat.n_events; id++) {
        const struct qtrace_event_desc *ev = &rd->cat.events[id];
        struct ev_info *ei = &rd->info[id];

        ei->ev = ev;
        ei->fixed_size = ev->fixed_size;
        for (i = 0; i < ev->n_args; i++) {
            if (ev->args[i].type == QTRACE_ARG_STR ||
                ev->args[i].type == QTRACE_ARG_BYTES) {
                ei->len_off[ei->n_var++] = ev->args[i].offset;
            }
        }
    }
    return 0;
}

/*
 * Split the META payload into key=value lines and the catalog, and parse
 * both (docs/format.md, "META chunk").
 */
static int parse_meta(struct qtrace_reader *rd, const uint8_t *text,
                      uint32_t len, struct qtrace_err *err)
{
    const uint8_t *sep = NULL;  /* the empty line ending the keys */
    struct qtrace_err cerr;
    char why[256];
    char *catalog;
    uint32_t keys_len;
    int ret;

    if (memchr(text, '\0', len)) {
        qtrace_err_set(err, "META chunk: NUL byte in the text");
        return -EBADMSG;
    }
    if (len > 0 && text[0] == '\n') {
        sep = text;
    } else if (len > 0) {
        sep = memmem(text, len, "\n\n", 2);
        sep = sep ? sep + 1 : NULL;
    }
    if (!sep) {
        qtrace_err_set(err, "META chunk: no empty line before the catalog");
        return -EBADMSG;
    }
    keys_len = (uint32_t)(sep - text);
    ret = kv_parse(&rd->meta, text, keys_len, why, sizeof(why));
    if (ret < 0) {
        qtrace_err_set(err, "META chunk: %s", why);
        return ret;
    }
    catalog = strndup((const char *)sep + 1, len - keys_len - 1);
    if (!catalog) {
        qtrace_err_set(err, "%s", strerror(ENOMEM));
        return -ENOMEM;
    }
    ret = qtrace_catalog_parse(&rd->cat, catalog, &cerr);
    free(catalog);
    if (ret < 0) {
        qtrace_err_set(err, "META chunk: catalog %s", cerr.msg);
        return ret;
    }
    ret = catalog_check_reader_needs(&rd->cat, err);
    if (ret < 0) {
        return ret;
    }
    ret = index_events(rd);
    if (ret == 0) {
        ret = unpack_init(&rd->up, &rd->cat, &rd->budget);
    }
    if (ret < 0) {
        qtrace_err_set(err, "%s", strerror(-ret));
    }
    return ret;
}

/* The 16-byte file header (docs/format.md, "File header"). */
static int check_file_hdr(const struct qtrace_reader *rd, uint32_t *hdr_size,
                          struct qtrace_err *err)
{
    size_t magic_len = strlen(QTRACE_FILE_MAGIC);
    uint32_t version;

    if (rd->size == 0) {
        qtrace_err_set(err, "empty file");
        return -EINVAL;
    }
    if (memcmp(rd->map, QTRACE_FILE_MAGIC,
               rd->size < magic_len ? rd->size : magic_len) != 0) {
        qtrace_err_set(err, "not a qtrace trace (bad magic)");
        return -EINVAL;
    }
    if (rd->size < sizeof(struct qtrace_file_hdr)) {
        qtrace_err_set(err, "truncated file header");
        return -ENODATA;
    }
    version = load32(rd->map + 8);
    *hdr_size = load32(rd->map + 12);
    if (version != QTRACE_FORMAT_VERSION) {
        qtrace_err_set(err, "unsupported format version %" PRIu32, version);
        return -ENOTSUP;
    }
    if (*hdr_size < sizeof(struct qtrace_file_hdr)) {
        qtrace_err_set(err, "bad file header size %" PRIu32, *hdr_size);
        return -EINVAL;
    }
    if (*hdr_size > rd->size) {
        qtrace_err_set(err, "truncated file header");
        return -ENODATA;
    }
    return 0;
}

/*
 * META's keys followed by those of an INFO chunk (what the writer learnt
 * after it wrote META, docs/format.md "INFO chunk"), parsed as one list.
 */
static int merge_info(struct qtrace_reader *rd, const uint8_t *info,
                      uint32_t len, struct qtrace_err *err)
{
    char *text = NULL, why[128];
    size_t size = 0, i;
    FILE *f = open_memstream(&text, &size);
    int ret;

    if (!f) {
        qtrace_err_set(err, "%s", strerror(errno));
        return -errno;
    }
    for (i = 0; i < rd->meta.n; i++) {
        fprintf(f, "%s=%s\n", rd->meta.items[i].key,
                rd->meta.items[i].value);
    }
    fwrite(info, 1, len, f);
    if (fclose(f) != 0) {
        free(text);
        qtrace_err_set(err, "%s", strerror(ENOMEM));
        return -ENOMEM;
    }
    ret = kv_parse(&rd->meta, (const uint8_t *)text, size, why, sizeof(why));
    free(text);
    if (ret < 0) {
        qtrace_err_set(err, "INFO chunk: %s", why);
    }
    return ret;
}

/* An INFO chunk right after META completes its keys; else nothing. */
static int read_info(struct qtrace_reader *rd, struct qtrace_err *err)
{
    struct qtrace_chunk_hdr hdr;
    struct qtrace_err ignored;
    const uint8_t *payload;

    /* A bad chunk here is reported when the records are read. */
    if (rd->first_off >= rd->size ||
        reader_check_chunk(rd, rd->first_off, 1, &hdr, &payload,
                           &ignored) < 0 ||
        hdr.kind != QTRACE_CHUNK_INFO) {
        return 0;
    }
    return merge_info(rd, payload, hdr.len, err);
}

/* File header, then the META chunk that must follow it. */
static int read_head(struct qtrace_reader *rd, struct qtrace_err *err)
{
    struct qtrace_chunk_hdr hdr;
    struct end_bounds bounds;
    const uint8_t *payload;
    uint32_t hdr_size;
    int ret;

    ret = check_file_hdr(rd, &hdr_size, err);
    if (ret < 0) {
        return ret;
    }
    if (hdr_size == rd->size) {
        qtrace_err_set(err, "no META chunk (file ends after its header)");
        return -ENODATA;
    }
    ret = reader_check_chunk(rd, hdr_size, 0, &hdr, &payload, err);
    if (ret < 0) {
        return ret;
    }
    if (hdr.kind != QTRACE_CHUNK_META) {
        qtrace_err_set(err, "chunk 0 at offset 0x%" PRIx32 ": kind %u, "
                       "expected META (1)", hdr_size, hdr.kind);
        return -EBADMSG;
    }
    ret = parse_meta(rd, payload, hdr.len, err);
    if (ret < 0) {
        return ret;
    }
    rd->first_off = (uint64_t)hdr_size + CHUNK_HDR_SIZE + hdr.len;
    reader_tail_end_bounds(rd, &bounds);
    unpack_set_bounds(&rd->up, bounds.records, bounds.translations);
    rd->streams_bound = bounds.streams;
    ret = read_info(rd, err);
    if (ret < 0) {
        return ret;
    }
    qtrace_reader_rewind(rd);
    return 0;
}

/*
 * An etrace file, recognised by its first record: its META text (keys
 * and catalog) comes from the decoder, its records from etrace_dec_next.
 */
static int open_etrace(struct qtrace_reader *rd, struct qtrace_err *err)
{
    char *meta;
    int ret = etrace_dec_new(&rd->etr, rd->map, rd->size, &meta, err);

    if (ret < 0) {
        return ret;
    }
    ret = parse_meta(rd, (const uint8_t *)meta, (uint32_t)strlen(meta), err);
    free(meta);
    if (ret < 0) {
        return ret;
    }
    etrace_dec_set_catalog(rd->etr, &rd->cat);
    qtrace_reader_rewind(rd);
    return 0;
}

/*
 * Map path read-only; a regular file is required (mmap). O_NONBLOCK: a
 * FIFO without a writer is refused at once instead of waited for.
 */
static int map_file(struct qtrace_reader *rd, const char *path,
                    struct qtrace_err *err)
{
    struct stat st;
    void *map;
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    int ret = 0;

    if (fd < 0 || fstat(fd, &st) < 0) {
        ret = -errno;
        qtrace_err_set(err, "%s", strerror(-ret));
    } else if (!S_ISREG(st.st_mode)) {
        ret = S_ISDIR(st.st_mode) ? -EISDIR : -EINVAL;
        qtrace_err_set(err, "%s", S_ISDIR(st.st_mode) ?
                       strerror(EISDIR) : "not a regular file");
    } else if (st.st_size > 0) {
        map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (map == MAP_FAILED) {
            ret = -errno;
            qtrace_err_set(err, "%s", strerror(-ret));
        } else {
            rd->map = map;
            rd->size = (size_t)st.st_size;
            madvise(map, rd->size, MADV_SEQUENTIAL);
        }
    }
    if (fd >= 0) {
        close(fd);
    }
    return ret;
}

int qtrace_reader_open(const char *path, struct qtrace_reader **out,
                       struct qtrace_err *err)
{
    struct qtrace_reader *rd = calloc(1, sizeof(*rd));
    char why[256];
    int ret;

    *out = NULL;
    if (!rd) {
        qtrace_err_set(err, "%s", strerror(ENOMEM));
        return -ENOMEM;
    }
    rd->ix.budget = &rd->budget;
    rd->path = strdup(path);
    ret = budget_init(&rd->budget, why, sizeof(why));
    if (ret == 0 && !rd->path) {
        qtrace_err_set(err, "%s", strerror(ENOMEM));
        ret = -ENOMEM;
    }
    if (ret < 0) {
        qtrace_err_set(err, "%s", why);
    } else {
        ret = map_file(rd, path, err);
    }
    if (ret == 0 && etrace_is_etrace(rd->map, rd->size)) {
        ret = open_etrace(rd, err);
    } else if (ret == 0) {
        ret = read_head(rd, err);
    }
    if (ret < 0) {
        qtrace_reader_close(rd);
        return ret;
    }
    *out = rd;
    return 0;
}

void qtrace_reader_close(struct qtrace_reader *rd)
{
    if (!rd) {
        return;
    }
    reader_ahead_free(rd);
    if (rd->map) {
        munmap((void *)rd->map, rd->size);
    }
    etrace_dec_free(rd->etr);
    index_fini(&rd->ix);
    unpack_fini(&rd->up);
    zchunk_inflater_fini(&rd->zbuf);
    qtrace_catalog_fini(&rd->cat);
    free(rd->info);
    kv_fini(&rd->meta);
    kv_fini(&rd->end);
    free(rd->clk.st);
    free(rd->path);
    free(rd);
}

/* ---- header and END information ---- */

const char *qtrace_reader_meta(const struct qtrace_reader *rd,
                               const char *key)
{
    return kv_get(&rd->meta, key);
}

void qtrace_reader_meta_each(const struct qtrace_reader *rd,
                             void (*fn)(const char *key, const char *value,
                                        void *arg),
                             void *arg)
{
    size_t i;

    for (i = 0; i < rd->meta.n; i++) {
        fn(rd->meta.items[i].key, rd->meta.items[i].value, arg);
    }
}

const struct qtrace_catalog *
qtrace_reader_catalog(const struct qtrace_reader *rd)
{
    return &rd->cat;
}

const char *qtrace_reader_end(const struct qtrace_reader *rd,
                              const char *key)
{
    reader_ahead_pause(rd);
    return kv_get(&rd->end, key);
}

bool qtrace_reader_has_end(const struct qtrace_reader *rd)
{
    reader_ahead_pause(rd);
    return rd->has_end;
}

const char *qtrace_reader_stop_reason(const struct qtrace_reader *rd)
{
    reader_ahead_pause(rd);
    if (rd->has_end) {
        return NULL;
    }
    switch (rd->state) {
    case RD_FAILED:
        return rd->stop_msg;
    case RD_CLEAN_END:
        return "no END chunk (QEMU did not exit cleanly)";
    default:
        return "trace not read to its end";
    }
}
