/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The simpletrace reader: the file is read whole, then walked record by
 * record with every length checked before use. Runs on the CLI's thread.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "simple-format.h"
#include "simple-read.h"

#define ST_NAME_MAX 1024            /* longest event name taken */

struct st_map {
    uint64_t id;
    char *name;
};

struct st_reader {
    uint8_t *data;
    size_t size;
    size_t pos;
    uint64_t version;
    struct st_map *maps;
    size_t n_maps;
};

static uint64_t get_u64(const uint8_t *p)
{
    uint64_t v;

    memcpy(&v, p, sizeof(v));
    return v;
}

static uint32_t get_u32(const uint8_t *p)
{
    uint32_t v;

    memcpy(&v, p, sizeof(v));
    return v;
}

bool st_is_simpletrace(const void *head, size_t len)
{
    return len >= ST_HEADER_BYTES && get_u64(head) == ST_HEADER_ID &&
           get_u64((const uint8_t *)head + 8) == ST_MAGIC;
}

/*
 * Opened without blocking and only read when it is a regular file: a
 * FIFO or a device named on the command line must not hang the probe
 * (the reader that opens it next says what is wrong with it).
 */
bool st_file_is_simpletrace(const char *path)
{
    uint8_t head[ST_HEADER_BYTES];
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    struct stat st;
    ssize_t n = -1;

    if (fd < 0) {
        return false;
    }
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
        n = read(fd, head, sizeof(head));
    }
    close(fd);
    return n > 0 && st_is_simpletrace(head, (size_t)n);
}

static int read_all(const char *path, struct st_reader *rd,
                    struct qtrace_err *err)
{
    FILE *f = fopen(path, "rb");
    size_t cap = 0;
    size_t n;

    if (!f) {
        qtrace_err_set(err, "%s", strerror(errno));
        return -errno;
    }
    do {
        if (rd->size == cap) {
            uint8_t *nd = realloc(rd->data, cap ? cap * 2 : 65536);

            if (!nd) {
                fclose(f);
                qtrace_err_set(err, "%s", strerror(ENOMEM));
                return -ENOMEM;
            }
            rd->data = nd;
            cap = cap ? cap * 2 : 65536;
        }
        n = fread(rd->data + rd->size, 1, cap - rd->size, f);
        rd->size += n;
    } while (n > 0);
    if (ferror(f)) {
        fclose(f);
        qtrace_err_set(err, "%s", strerror(EIO));
        return -EIO;
    }
    fclose(f);
    return 0;
}

int st_reader_open(const char *path, struct st_reader **out,
                   struct qtrace_err *err)
{
    struct st_reader *rd = calloc(1, sizeof(*rd));
    int ret;

    *out = NULL;
    if (!rd) {
        qtrace_err_set(err, "%s", strerror(ENOMEM));
        return -ENOMEM;
    }
    ret = read_all(path, rd, err);
    if (ret == 0 && !st_is_simpletrace(rd->data, rd->size)) {
        qtrace_err_set(err, "not a simpletrace file");
        ret = -EBADMSG;
    }
    if (ret == 0) {
        rd->version = get_u64(rd->data + 16);
        if (rd->version != ST_VERSION) {
            qtrace_err_set(err, "simpletrace version %" PRIu64 ": only "
                           "version %d is read", rd->version, ST_VERSION);
            ret = -EBADMSG;
        }
    }
    if (ret < 0) {
        st_reader_close(rd);
        return ret;
    }
    rd->pos = ST_HEADER_BYTES;
    *out = rd;
    return 0;
}

uint64_t st_reader_version(const struct st_reader *rd)
{
    return rd->version;
}

static const char *map_name(const struct st_reader *rd, uint64_t id)
{
    size_t i;

    for (i = rd->n_maps; i > 0; i--) {
        if (rd->maps[i - 1].id == id) {
            return rd->maps[i - 1].name;
        }
    }
    return NULL;
}

/* A mapping record at rd->pos (past its type word). */
static int take_mapping(struct st_reader *rd, uint64_t at,
                        struct qtrace_err *err)
{
    struct st_map *nm;
    uint32_t len;

    if (rd->size - rd->pos < 12) {
        qtrace_err_set(err, "mapping record at offset 0x%" PRIx64
                       ": cut short", at);
        return -EBADMSG;
    }
    len = get_u32(rd->data + rd->pos + 8);
    if (len == 0 || len > ST_NAME_MAX || rd->size - rd->pos - 12 < len) {
        qtrace_err_set(err, "mapping record at offset 0x%" PRIx64
                       ": bad name length %" PRIu32, at, len);
        return -EBADMSG;
    }
    nm = realloc(rd->maps, (rd->n_maps + 1) * sizeof(*nm));
    if (!nm) {
        qtrace_err_set(err, "%s", strerror(ENOMEM));
        return -ENOMEM;
    }
    rd->maps = nm;
    nm[rd->n_maps].id = get_u64(rd->data + rd->pos);
    nm[rd->n_maps].name = strndup((const char *)rd->data + rd->pos + 12,
                                  len);
    if (!nm[rd->n_maps].name) {
        qtrace_err_set(err, "%s", strerror(ENOMEM));
        return -ENOMEM;
    }
    rd->n_maps++;
    rd->pos += 12 + len;
    return 0;
}

/* An event record at rd->pos (past its type word). */
static int take_event(struct st_reader *rd, uint64_t at,
                      struct st_event *ev, struct qtrace_err *err)
{
    const uint8_t *p = rd->data + rd->pos;
    uint32_t len;

    if (rd->size - rd->pos < ST_EVENT_HEAD_BYTES) {
        qtrace_err_set(err, "event record at offset 0x%" PRIx64
                       ": cut short", at);
        return -EBADMSG;
    }
    len = get_u32(p + 16);
    if (len < ST_EVENT_HEAD_BYTES || rd->size - rd->pos < len) {
        qtrace_err_set(err, "event record at offset 0x%" PRIx64
                       ": bad length %" PRIu32, at, len);
        return -EBADMSG;
    }
    memset(ev, 0, sizeof(*ev));
    ev->offset = at;
    ev->id = get_u64(p);
    ev->timestamp_ns = get_u64(p + 8);
    ev->pid = get_u32(p + 20);
    ev->args = p + ST_EVENT_HEAD_BYTES;
    ev->args_len = len - ST_EVENT_HEAD_BYTES;
    ev->is_dropped = ev->id == ST_DROPPED_ID;
    ev->name = ev->is_dropped ? "dropped" : map_name(rd, ev->id);
    if (!ev->name || (ev->is_dropped && ev->args_len != 8)) {
        qtrace_err_set(err, "event record at offset 0x%" PRIx64
                       ": %s", at, ev->name ? "dropped record without its "
                       "count" : "event id without a mapping record");
        return -EBADMSG;
    }
    rd->pos += len;
    return 1;
}

int st_reader_next(struct st_reader *rd, struct st_event *ev,
                   struct qtrace_err *err)
{
    while (rd->pos < rd->size) {
        uint64_t at = rd->pos;
        uint64_t type;
        int ret;

        if (rd->size - rd->pos < 8) {
            qtrace_err_set(err, "record at offset 0x%" PRIx64
                           ": cut short", at);
            return -EBADMSG;
        }
        type = get_u64(rd->data + rd->pos);
        rd->pos += 8;
        if (type == ST_TYPE_MAPPING) {
            ret = take_mapping(rd, at, err);
            if (ret < 0) {
                return ret;
            }
        } else if (type == ST_TYPE_EVENT) {
            return take_event(rd, at, ev, err);
        } else {
            qtrace_err_set(err, "record at offset 0x%" PRIx64
                           ": unknown type %" PRIu64, at, type);
            return -EBADMSG;
        }
    }
    return 0;
}

/* Append to buf at *len, never past size; false once it is full. */
static bool put(char *buf, size_t size, size_t *len, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static bool put(char *buf, size_t size, size_t *len, const char *fmt, ...)
{
    va_list ap;
    int n;

    if (*len >= size) {
        return false;
    }
    va_start(ap, fmt);
    n = vsnprintf(buf + *len, size - *len, fmt, ap);
    va_end(ap);
    *len += n > 0 ? (size_t)n : 0;
    return *len < size;
}

static void format_raw(const struct st_event *ev, char *buf, size_t size)
{
    size_t len = 0;
    size_t i;

    buf[0] = '\0';
    if (ev->args_len) {
        put(buf, size, &len, "args=");
    }
    for (i = 0; i < ev->args_len; i++) {
        put(buf, size, &len, "%02x", ev->args[i]);
    }
}

int st_format_args(const struct st_event *ev,
                   const struct qtrace_event_desc *desc, char *buf,
                   size_t size)
{
    size_t off = 0;
    size_t len = 0;
    unsigned int i;

    if (ev->is_dropped) {
        snprintf(buf, size, "num_events_dropped=0x%" PRIx64,
                 get_u64(ev->args));
        return 0;
    }
    if (!desc) {
        format_raw(ev, buf, size);
        return 0;
    }
    buf[0] = '\0';
    for (i = 0; i < desc->n_args; i++) {
        const struct qtrace_arg_desc *a = &desc->args[i];

        if (a->type == QTRACE_ARG_STR) {
            uint32_t n;

            if (ev->args_len - off < 4 ||
                ev->args_len - off - 4 < (n = get_u32(ev->args + off))) {
                return -EBADMSG;
            }
            put(buf, size, &len, "%s%s=%.*s", i ? " " : "", a->name,
                (int)n, (const char *)ev->args + off + 4);
            off += 4 + n;
        } else {
            if (ev->args_len - off < 8) {
                return -EBADMSG;
            }
            put(buf, size, &len, "%s%s=0x%" PRIx64, i ? " " : "", a->name,
                get_u64(ev->args + off));
            off += 8;
        }
    }
    return off == ev->args_len ? 0 : -EBADMSG;
}

void st_reader_close(struct st_reader *rd)
{
    size_t i;

    if (!rd) {
        return;
    }
    for (i = 0; i < rd->n_maps; i++) {
        free(rd->maps[i].name);
    }
    free(rd->maps);
    free(rd->data);
    free(rd);
}
