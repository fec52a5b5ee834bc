/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * CTF 1.8 metadata and packets (layout in ctf-enc.h). Written by hand:
 * Debian has no library that writes CTF (babeltrace2's writer sink
 * takes its messages, not records of a foreign catalog).
 */
#include <endian.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "ctf-enc.h"
#include "hex-args.h"

/* Where the packet context starts, after the header. */
#define CTX_AT CTF_HEADER_BYTES

static bool room(struct ctf_packet *p, size_t n)
{
    size_t cap = p->cap ? p->cap : 4096;
    uint8_t *bigger;

    if (p->oom) {
        return false;
    }
    if (p->len + n <= p->cap) {
        return true;
    }
    while (cap < p->len + n) {
        cap *= 2;
    }
    bigger = realloc(p->data, cap);
    if (!bigger) {
        p->oom = true;
        return false;
    }
    p->data = bigger;
    p->cap = cap;
    return true;
}

static void st_le(uint8_t *d, uint64_t v, unsigned int n)
{
    unsigned int i;

    for (i = 0; i < n; i++) {
        d[i] = (uint8_t)(v >> (8 * i));
    }
}

void ctf_packet_start(struct ctf_packet *p)
{
    p->len = 0;
    p->n_events = 0;
    p->ts_begin = 0;
    p->ts_end = 0;
    p->oom = false;
    if (room(p, CTF_PREFIX_BYTES)) {
        memset(p->data, 0, CTF_PREFIX_BYTES);
        p->len = CTF_PREFIX_BYTES;
    }
}

/* Bytes of an integer argument as the metadata declares it. */
static unsigned int int_size(enum qtrace_arg_type t)
{
    switch (t) {
    case QTRACE_ARG_U8:
    case QTRACE_ARG_I8:
    case QTRACE_ARG_BOOL:
        return 1;
    case QTRACE_ARG_U16:
    case QTRACE_ARG_I16:
        return 2;
    case QTRACE_ARG_U32:
    case QTRACE_ARG_I32:
        return 4;
    default:
        return 8;
    }
}

/* n bytes of an integer from at to dst, each size a copy of its own. */
static inline uint8_t *st_int(uint8_t *dst, const uint8_t *at,
                              unsigned int n)
{
    switch (n) {
    case 1:
        dst[0] = at[0];
        return dst + 1;
    case 2:
        memcpy(dst, at, 2);
        return dst + 2;
    case 4:
        memcpy(dst, at, 4);
        return dst + 4;
    default:
        memcpy(dst, at, 8);
        return dst + 8;
    }
}

/*
 * A STR or BYTES argument of rec at dst, its bytes at b (len of them,
 * none when the record lacks them); returns the byte after it.
 */
static uint8_t *st_var(uint8_t *dst, enum qtrace_arg_type t,
                       const uint8_t *b, size_t len)
{
    if (t == QTRACE_ARG_STR) {
        /* A CTF string ends at its first NUL. */
        const uint8_t *nul = len ? memchr(b, 0, len) : NULL;

        len = nul ? (size_t)(nul - b) : len;
        memcpy(dst, b, len);
        dst[len] = 0;
        return dst + len + 1;
    }
    len = len > UINT16_MAX ? UINT16_MAX : len;
    st_le(dst, len, 2);
    memcpy(dst + 2, b, len);
    return dst + 2 + len;
}

/*
 * The fields are copied from the record as they are: an integer
 * argument is stored little-endian at its offset with the size the
 * metadata declares (int_size: the catalog gives each type its size,
 * catalog-check.c keeps the argument inside the fixed part),
 * the variable parts follow the fixed part in the arguments' order.
 * The event takes at most 10 bytes more than the record's own: the
 * record header (16 bytes) is not copied, a STR's u16 length becomes
 * its NUL.
 */
bool ctf_packet_add(struct ctf_packet *p, const struct qtrace_record *rec,
                    uint64_t time)
{
    const struct qtrace_event_desc *ev = rec->ev;
    uint32_t var_at = ev->fixed_size;
    uint64_t time_le;
    uint16_t id;
    unsigned int i;
    uint8_t *d;

    if (!room(p, 10 + (size_t)rec->size)) {
        return false;
    }
    d = p->data + p->len;
    id = htole16(ev->id);
    time_le = htole64(time);
    memcpy(d, &id, 2);
    memcpy(d + 2, &time_le, 8);
    d += 10;
    for (i = 0; i < ev->n_args; i++) {
        const struct qtrace_arg_desc *a = &ev->args[i];
        bool inside = (uint32_t)a->offset + a->size <= rec->size;
        const uint8_t *at = rec->data + a->offset;

        if (a->type == QTRACE_ARG_STR || a->type == QTRACE_ARG_BYTES) {
            uint32_t len = inside ? (uint32_t)at[0] | (uint32_t)at[1] << 8
                                  : 0;
            bool whole = var_at + len <= rec->size;

            d = st_var(d, a->type, rec->data + var_at, whole ? len : 0);
            var_at += len;
        } else if (!inside) {
            memset(d, 0, a->size);
            d += a->size;
        } else if (a->type == QTRACE_ARG_BOOL) {
            *d++ = at[0] != 0;
        } else {
            d = st_int(d, at, a->size);
        }
    }
    p->len = (size_t)(d - p->data);
    if (p->n_events++ == 0) {
        p->ts_begin = time;
    }
    p->ts_end = time;
    return true;
}

void ctf_packet_finish(struct ctf_packet *p,
                       const struct ctf_packet_info *info)
{
    uint8_t *d = p->data;

    if (!d || p->len < CTF_PREFIX_BYTES) {
        return;
    }
    st_le(d, CTF_MAGIC, 4);
    memcpy(d + 4, info->uuid, 16);
    st_le(d + 20, 0, 4);
    st_le(d + 24, info->stream_instance, 8);
    st_le(d + CTX_AT, p->ts_begin, 8);
    st_le(d + CTX_AT + 8, p->ts_end, 8);
    st_le(d + CTX_AT + 16, (uint64_t)p->len * 8, 8);
    st_le(d + CTX_AT + 24, (uint64_t)p->len * 8, 8);
    st_le(d + CTX_AT + 32, info->seq_num, 8);
    st_le(d + CTX_AT + 40, info->discarded, 8);
    st_le(d + CTX_AT + 48, info->cpu_id, 4);
    st_le(d + CTX_AT + 52, info->qtrace_stream, 4);
}

void ctf_packet_free(struct ctf_packet *p)
{
    free(p->data);
    memset(p, 0, sizeof(*p));
}

/* ---- metadata ---- */

static const char *const tsdl_keywords[] = {
    "align", "callsite", "const", "char", "clock", "double", "enum", "env",
    "event", "floating_point", "float", "integer", "int", "long", "short",
    "signed", "stream", "string", "struct", "trace", "typealias",
    "typedef", "unsigned", "variant", "void", "_Bool", "_Complex",
    "_Imaginary", NULL,
};

const char *ctf_field_name(const char *name, char *buf, size_t len)
{
    size_t i;

    for (i = 0; tsdl_keywords[i]; i++) {
        if (strcmp(name, tsdl_keywords[i]) == 0) {
            snprintf(buf, len, "_%s", name);
            return buf;
        }
    }
    snprintf(buf, len, "%s", name);
    return buf;
}

/* s as a TSDL string literal: quotes, backslashes, no control bytes. */
static void put_tsdl_str(FILE *f, const char *s)
{
    putc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;

        if (c == '"' || c == '\\') {
            putc('\\', f);
            putc(c, f);
        } else if (c < 0x20 || c == 0x7f) {
            putc('?', f);
        } else {
            putc(c, f);
        }
    }
    putc('"', f);
}

static bool is_signed(enum qtrace_arg_type t)
{
    return t == QTRACE_ARG_I8 || t == QTRACE_ARG_I16 ||
           t == QTRACE_ARG_I32 || t == QTRACE_ARG_I64;
}

/* Whether name is an argument of ev (for the length fields' names). */
static bool has_arg(const struct qtrace_event_desc *ev, const char *name)
{
    unsigned int i;

    for (i = 0; i < ev->n_args; i++) {
        if (strcmp(ev->args[i].name, name) == 0) {
            return true;
        }
    }
    return false;
}

static void put_fields(FILE *f, const struct qtrace_event_desc *ev)
{
    uint32_t hex = hex_args_find(ev);
    char name[64], len_name[80];
    unsigned int i;

    for (i = 0; i < ev->n_args; i++) {
        const struct qtrace_arg_desc *d = &ev->args[i];

        ctf_field_name(d->name, name, sizeof(name));
        if (d->type == QTRACE_ARG_STR) {
            fprintf(f, "\t\tstring %s;\n", name);
        } else if (d->type == QTRACE_ARG_BYTES) {
            snprintf(len_name, sizeof(len_name), "%s_len", d->name);
            while (has_arg(ev, len_name) &&
                   strlen(len_name) + 2 < sizeof(len_name)) {
                strcat(len_name, "_");
            }
            fprintf(f, "\t\tuint16_t %s;\n", len_name);
            fprintf(f, "\t\tinteger { size = 8; align = 8; signed = false; "
                    "base = 16; } %s[%s];\n", name, len_name);
        } else {
            fprintf(f, "\t\tinteger { size = %u; align = 8; signed = %s; "
                    "base = %d; } %s;\n", 8 * int_size(d->type),
                    is_signed(d->type) ? "true" : "false",
                    i < 32 && (hex >> i & 1) ? 16 : 10, name);
        }
    }
}

/* One META key as an env entry; keys become identifiers. */
static void put_env(const char *key, const char *value, void *arg)
{
    FILE *f = arg;
    char id[64], kw[72];
    size_t i;

    snprintf(id, sizeof(id), "%s", key);
    for (i = 0; id[i]; i++) {
        char c = id[i];

        if (!(c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
              (i > 0 && c >= '0' && c <= '9'))) {
            id[i] = '_';
        }
    }
    if (!id[0]) {
        return;
    }
    fprintf(f, "\tqtrace_%s = ", ctf_field_name(id, kw, sizeof(kw)));
    put_tsdl_str(f, value);
    fputs(";\n", f);
}

static void put_uuid(FILE *f, const uint8_t u[16])
{
    unsigned int i;

    for (i = 0; i < 16; i++) {
        fprintf(f, "%s%02x", i == 4 || i == 6 || i == 8 || i == 10 ? "-" : "",
                u[i]);
    }
}

static const char tsdl_head[] =
    CTF_TSDL_HEAD
    "\n"
    "typealias integer { size = 8; align = 8; signed = false; } := uint8_t;\n"
    "typealias integer { size = 16; align = 8; signed = false; } := "
    "uint16_t;\n"
    "typealias integer { size = 32; align = 8; signed = false; } := "
    "uint32_t;\n"
    "typealias integer { size = 64; align = 8; signed = false; } := "
    "uint64_t;\n"
    "\n";

/*
 * The clock the timestamps count in, and the stream class built on it:
 * the first %s is the clock's name, then its description; the type of
 * the timestamps is NAME_t.
 */
static const char tsdl_clock[] =
    "clock {\n"
    "\tname = \"%s\";\n"
    "\tdescription = \"%s\";\n"
    "\tfreq = 1000000000;\n"
    "\tprecision = 0;\n"
    "\toffset_s = 0;\n"
    "\toffset = 0;\n"
    "\tabsolute = false;\n"
    "};\n"
    "\n"
    "typealias integer { size = 64; align = 8; signed = false; "
    "map = clock.%s.value; } := %s_t;\n"
    "\n"
    "stream {\n"
    "\tid = 0;\n"
    "\tpacket.context := struct {\n"
    "\t\t%s_t timestamp_begin;\n"
    "\t\t%s_t timestamp_end;\n"
    "\t\tuint64_t content_size;\n"
    "\t\tuint64_t packet_size;\n"
    "\t\tuint64_t packet_seq_num;\n"
    "\t\tuint64_t events_discarded;\n"
    "\t\tuint32_t cpu_id;\n"
    "\t\tuint32_t qtrace_stream;\n"
    "\t};\n"
    "\tevent.header := struct {\n"
    "\t\tuint16_t id;\n"
    "\t\t%s_t timestamp;\n"
    "\t};\n"
    "};\n";

static void put_clock(FILE *f, enum ctf_clock clock)
{
    const char *name = clock == CTF_CLOCK_HOST ? "host" : "insns";
    const char *what = clock == CTF_CLOCK_HOST ?
        "the recording host's CLOCK_MONOTONIC, nanoseconds since the trace "
        "began, one clock for every vCPU (each record placed between its "
        "vCPU's clock stamps by its instruction count)" :
        "guest instructions the vCPU had started; each vCPU counts its own "
        "from 0; one instruction shown as 1 ns";

    fprintf(f, tsdl_clock, name, what, name, name, name, name, name);
}

int ctf_metadata_write(FILE *f, const struct qtrace_catalog *cat,
                       const bool *want, const uint8_t uuid[16],
                       const struct qtrace_reader *env, enum ctf_clock clock)
{
    unsigned int id;

    fputs(tsdl_head, f);
    fputs("trace {\n\tmajor = 1;\n\tminor = 8;\n\tuuid = \"", f);
    put_uuid(f, uuid);
    fputs("\";\n\tbyte_order = le;\n"
          "\tpacket.header := struct {\n"
          "\t\tuint32_t magic;\n"
          "\t\tuint8_t uuid[16];\n"
          "\t\tuint32_t stream_id;\n"
          "\t\tuint64_t stream_instance_id;\n"
          "\t};\n};\n\n"
          "env {\n\tdomain = \"qtrace\";\n\ttracer_name = \"qtrace\";\n", f);
    if (env) {
        qtrace_reader_meta_each(env, put_env, f);
    }
    fputs("};\n\n", f);
    put_clock(f, clock);
    for (id = 1; id <= cat->n_events; id++) {
        const struct qtrace_event_desc *ev = &cat->events[id];

        if (want && (id >= QTRACE_MAX_EVENTS || !want[id])) {
            continue;
        }
        fputs("\nevent {\n\tname = ", f);
        put_tsdl_str(f, ev->name);
        fprintf(f, ";\n\tid = %u;\n\tstream_id = 0;\n", ev->id);
        if (ev->n_args) {
            fputs("\tfields := struct {\n", f);
            put_fields(f, ev);
            fputs("\t};\n", f);
        }
        fputs("};\n", f);
    }
    if (ferror(f)) {
        return -(errno ? errno : EIO);
    }
    return 0;
}
