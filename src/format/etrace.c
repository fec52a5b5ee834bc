/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Reading Xilinx etrace streams (layout: etrace.h, docs/etrace.md): each
 * etrace record becomes one or more records of a small catalog of its own
 * (an EXEC record one per entry), laid out like native records so that the
 * reader hands them out through its usual API. Runs on the caller's
 * thread; also parses the etrace-flags lists of the plugin.
 */
#include <endian.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "le.h"
#include "etrace.h"
#include "qtrace/arch.h"
#include "qtrace/format.h"

/*
 * What etrace records become. Argument order follows the format strings
 * (a format consumes arguments in declaration order).
 */
static const char etrace_catalog[] =
    "# etrace records as qtrace reads them (docs/etrace.md)\n"
    "info(uint64_t attr, uint16_t major, uint16_t minor) "
    "\"attr 0x%\" PRIx64 \" version %u.%u\"\n"
    "arch(uint32_t guest, uint8_t guest_bits, uint8_t guest_big_endian, "
    "uint32_t host, uint8_t host_bits, uint8_t host_big_endian) "
    "\"guest %u bits %u big_endian %u host %u bits %u big_endian %u\"\n"
    "exec(uint64_t start, uint64_t end, uint32_t duration) "
    "\"start 0x%\" PRIx64 \" end 0x%\" PRIx64 \" duration %u\"\n"
    "barrier(void) \"\"\n"
    "tb(uint64_t vaddr, uint64_t paddr, uint64_t host_addr, "
    "uint32_t guest_len, uint32_t host_len, const uint8_t *code, "
    "const uint8_t *host_code) "
    "\"vaddr 0x%\" PRIx64 \" paddr 0x%\" PRIx64 \" host_addr 0x%\" PRIx64 "
    "\" guest_len %u host_len %u\"\n"
    "note(const char *text) \"%s\"\n"
    "mem(uint64_t vaddr, uint64_t paddr, uint64_t value, uint32_t attr, "
    "uint8_t size) "
    "\"vaddr 0x%\" PRIx64 \" paddr 0x%\" PRIx64 \" value 0x%\" PRIx64 "
    "\" attr 0x%x size %u\"\n"
    "event_u64(const char *dev, const char *event, uint64_t val, "
    "uint64_t prev_val, uint32_t flags) "
    "\"dev %s event %s val 0x%\" PRIx64 \" prev_val 0x%\" PRIx64 "
    "\" flags 0x%x\"\n"
    "unknown(uint16_t type, const uint8_t *payload) \"type 0x%x\"\n";

enum kind {
    K_INFO, K_ARCH, K_EXEC, K_BARRIER, K_TB, K_NOTE, K_MEM, K_EVENT,
    K_UNKNOWN, K_COUNT
};

static const char *const kind_names[K_COUNT] = {
    "info", "arch", "exec", "barrier", "tb", "note", "mem", "event_u64",
    "unknown",
};

#define REC_BUF_SIZE QTRACE_REC_MAX

struct etrace_dec {
    const uint8_t *data;            /* the whole stream */
    size_t len;
    uint64_t off;                   /* next etrace record */
    uint64_t index;                 /* its number, from 0 */
    unsigned int word_bits;         /* from ARCH; 0 before it */
    /* An EXEC record handed out one entry at a time. */
    const uint8_t *exec_p;          /* next entry */
    uint32_t exec_left;             /* entries left */
    uint64_t exec_time;             /* start time of the next entry */
    uint16_t exec_unit;
    uint64_t exec_index;
    const struct qtrace_event_desc *ev[K_COUNT];
    uint8_t buf[REC_BUF_SIZE];      /* the record being handed out */
};




/* ---- flags and detection ---- */

static const struct {
    const char *name;
    uint32_t bits;
} flag_names[] = {
    { "none", 0 },
    { "exec", ETRACE_F_EXEC },
    { "disas", ETRACE_F_DISAS },
    { "mem", ETRACE_F_MEM },
    { "cpu", ETRACE_F_CPU },
    { "gpio", ETRACE_F_GPIO },
    { "all", ETRACE_F_ALL },
};

int etrace_flags_parse(const char *list, uint32_t *flags,
                       struct qtrace_err *err)
{
    const char *p = list;
    uint32_t bits = 0;
    size_t i, n;

    if (!*p) {
        qtrace_err_set(err, "empty list (known: none, exec, disas, mem, "
                       "cpu, gpio, all)");
        return -EINVAL;
    }
    while (*p) {
        n = strcspn(p, ",;");
        for (i = 0; i < sizeof(flag_names) / sizeof(flag_names[0]); i++) {
            if (strlen(flag_names[i].name) == n &&
                strncmp(flag_names[i].name, p, n) == 0) {
                break;
            }
        }
        if (i == sizeof(flag_names) / sizeof(flag_names[0])) {
            qtrace_err_set(err, "unknown flag '%.*s' (known: none, exec, "
                           "disas, mem, cpu, gpio, all)", (int)n, p);
            return -EINVAL;
        }
        bits |= flag_names[i].bits;
        p += n;
        p += *p != '\0';
    }
    *flags = bits;
    return 0;
}

bool etrace_is_etrace(const uint8_t *data, size_t len)
{
    uint16_t type;
    uint32_t plen;

    if (len < ETRACE_HDR_SIZE) {
        return false;
    }
    type = load16(data);
    plen = load32(data + 4);
    return (type == ETRACE_INFO && plen == ETRACE_INFO_SIZE) ||
           (type == ETRACE_ARCH && plen == ETRACE_ARCH_SIZE);
}

/* ---- opening: META text from the INFO and ARCH records ---- */

static const char *arch_name(uint32_t machine, unsigned int bits,
                             bool big_endian, char *buf, size_t len)
{
    const struct qtrace_arch *a = qtrace_arch_by_elf((uint16_t)machine,
                                                     bits, big_endian);

    if (a && machine <= UINT16_MAX) {
        return a->name;
    }
    snprintf(buf, len, "elf-machine-%" PRIu32, machine);
    return buf;
}

/*
 * Build "key=value" lines from the INFO and ARCH records among the first
 * two, then the empty line and the catalog.
 */
static char *build_meta(const uint8_t *data, size_t len)
{
    char info[64] = "";
    char arch[256] = "";
    char gbuf[32], hbuf[32];
    size_t off = 0;
    int i;
    char *meta;

    for (i = 0; i < 2 && off + ETRACE_HDR_SIZE <= len; i++) {
        uint16_t type = load16(data + off);
        uint32_t plen = load32(data + off + 4);
        const uint8_t *p = data + off + ETRACE_HDR_SIZE;

        if (plen > len - off - ETRACE_HDR_SIZE) {
            break;
        }
        if (type == ETRACE_INFO && plen >= ETRACE_INFO_SIZE) {
            snprintf(info, sizeof(info), "etrace_version=%u.%u\n"
                     "etrace_attr=0x%" PRIx64 "\n", load16(p + 8),
                     load16(p + 10), load64(p));
        } else if (type == ETRACE_ARCH && plen >= ETRACE_ARCH_SIZE) {
            snprintf(arch, sizeof(arch), "arch=%s\nword_bits=%u\n"
                     "endian=%s\nhost_arch=%s\n",
                     arch_name(load32(p), p[4], p[5], gbuf, sizeof(gbuf)),
                     p[4], p[5] ? "big" : "little",
                     arch_name(load32(p + 8), p[12], p[13], hbuf,
                               sizeof(hbuf)));
        }
        off += ETRACE_HDR_SIZE + plen;
    }
    if (asprintf(&meta, "format=etrace\n%s%s\n%s", info, arch,
                 etrace_catalog) < 0) {
        return NULL;
    }
    return meta;
}

int etrace_dec_new(struct etrace_dec **out, const uint8_t *data, size_t len,
                   char **meta_text, struct qtrace_err *err)
{
    struct etrace_dec *dec = calloc(1, sizeof(*dec));

    *out = NULL;
    *meta_text = dec ? build_meta(data, len) : NULL;
    if (!*meta_text) {
        free(dec);
        qtrace_err_set(err, "%s", strerror(ENOMEM));
        return -ENOMEM;
    }
    dec->data = data;
    dec->len = len;
    *out = dec;
    return 0;
}

void etrace_dec_free(struct etrace_dec *dec)
{
    free(dec);
}

void etrace_dec_set_catalog(struct etrace_dec *dec,
                            const struct qtrace_catalog *cat)
{
    int k;

    for (k = 0; k < K_COUNT; k++) {
        dec->ev[k] = qtrace_catalog_find(cat, kind_names[k]);
    }
}

void etrace_dec_rewind(struct etrace_dec *dec)
{
    dec->off = 0;
    dec->index = 0;
    dec->word_bits = 0;
    dec->exec_left = 0;
}

/* ---- building records in the native layout ---- */

/* Start a record of kind k in dec->buf; the fixed part is zeroed. */
static const struct qtrace_event_desc *rec_start(struct etrace_dec *dec,
                                                 enum kind k)
{
    const struct qtrace_event_desc *ev = dec->ev[k];

    memset(dec->buf, 0, ev->fixed_size);
    return ev;
}

static void put_int(struct etrace_dec *dec,
                    const struct qtrace_event_desc *ev, unsigned int arg,
                    uint64_t v)
{
    const struct qtrace_arg_desc *a = &ev->args[arg];
    uint8_t *p = dec->buf + a->offset;
    unsigned int i;

    for (i = 0; i < a->size; i++) {
        p[i] = (uint8_t)(v >> (8 * i));
    }
}

/*
 * The variable arguments, in order, after the fixed part; each is cut to
 * what still fits in a record (65528 bytes). Returns the record size.
 */
static uint32_t put_vars(struct etrace_dec *dec,
                         const struct qtrace_event_desc *ev,
                         const uint8_t *const *bytes, const size_t *lens)
{
    uint32_t pos = ev->fixed_size;
    unsigned int i, v = 0;

    for (i = 0; i < ev->n_args; i++) {
        const struct qtrace_arg_desc *a = &ev->args[i];
        size_t n;

        if (a->type != QTRACE_ARG_STR && a->type != QTRACE_ARG_BYTES) {
            continue;
        }
        n = lens[v];
        if (n > REC_BUF_SIZE - pos) {
            n = REC_BUF_SIZE - pos;
        }
        put_int(dec, ev, i, n);
        memcpy(dec->buf + pos, bytes[v], n);
        pos += (uint32_t)n;
        v++;
    }
    while (pos % QTRACE_REC_ALIGN) {
        dec->buf[pos++] = 0;
    }
    return pos;
}

static void rec_finish(struct etrace_dec *dec,
                       const struct qtrace_event_desc *ev, uint32_t size,
                       uint16_t unit, uint64_t time, uint64_t index,
                       struct etrace_rec *rec)
{
    struct qtrace_rec hdr = {
        .id = htole16(ev->id),
        .size = htole16((uint16_t)size),
        .reserved = 0,
        .time = htole64(time),
    };

    memcpy(dec->buf, &hdr, sizeof(hdr));
    rec->data = dec->buf;
    rec->size = size;
    rec->id = ev->id;
    rec->unit = unit;
    rec->time = time;
    rec->index = index;
}

static uint32_t fixed_only(const struct qtrace_event_desc *ev)
{
    return (ev->fixed_size + QTRACE_REC_ALIGN - 1) &
           ~(uint32_t)(QTRACE_REC_ALIGN - 1);
}

/* ---- decoding one etrace record ---- */

/* Hand out the next entry of the current EXEC record. */
static void next_exec_entry(struct etrace_dec *dec, struct etrace_rec *rec)
{
    const struct qtrace_event_desc *ev = rec_start(dec, K_EXEC);
    const uint8_t *p = dec->exec_p;
    uint32_t duration = load32(p);
    uint64_t start, end;

    if (dec->word_bits == 32) {
        start = load32(p + 4);
        end = load32(p + 8);
        dec->exec_p += ETRACE_EXEC32_ENTRY;
    } else {
        start = load64(p + 4);
        end = load64(p + 12);
        dec->exec_p += ETRACE_EXEC64_ENTRY;
    }
    put_int(dec, ev, 0, start);
    put_int(dec, ev, 1, end);
    put_int(dec, ev, 2, duration);
    rec_finish(dec, ev, fixed_only(ev), dec->exec_unit, dec->exec_time,
               dec->exec_index, rec);
    /* Entries follow each other in time: the next starts after this. */
    dec->exec_time += duration;
    dec->exec_left--;
}

static int decode_exec(struct etrace_dec *dec, const uint8_t *p,
                       uint32_t len, uint16_t unit, char *why, size_t wlen)
{
    uint32_t entry;

    if (dec->word_bits != 32 && dec->word_bits != 64) {
        snprintf(why, wlen, "EXEC before any ARCH record (entry size "
                 "unknown)");
        return -EBADMSG;
    }
    if (len < ETRACE_EXEC_HEAD) {
        snprintf(why, wlen, "EXEC payload of %" PRIu32 " bytes, below "
                 "its 8-byte start time", len);
        return -EBADMSG;
    }
    entry = dec->word_bits == 32 ? ETRACE_EXEC32_ENTRY : ETRACE_EXEC64_ENTRY;
    dec->exec_time = load64(p);
    dec->exec_p = p + ETRACE_EXEC_HEAD;
    /* As the reference decoder: entries = floor(bytes / entry size). */
    dec->exec_left = (len - ETRACE_EXEC_HEAD) / entry;
    dec->exec_unit = unit;
    dec->exec_index = dec->index;
    return 0;
}

static void decode_tb(struct etrace_dec *dec, const uint8_t *p,
                      uint32_t len, struct etrace_rec *rec, uint16_t unit)
{
    const struct qtrace_event_desc *ev = rec_start(dec, K_TB);
    uint32_t glen = load32(p + 24);
    uint32_t hlen = load32(p + 28);
    uint32_t body = len - ETRACE_TB_HEAD;
    const uint8_t *bytes[2] = { p + ETRACE_TB_HEAD, NULL };
    size_t lens[2];

    /* Lengths that overrun the payload are cut to what is there. */
    lens[0] = glen < body ? glen : body;
    bytes[1] = bytes[0] + lens[0];
    lens[1] = hlen < body - lens[0] ? hlen : body - lens[0];
    put_int(dec, ev, 0, load64(p));
    put_int(dec, ev, 1, load64(p + 8));
    put_int(dec, ev, 2, load64(p + 16));
    put_int(dec, ev, 3, glen);
    put_int(dec, ev, 4, hlen);
    rec_finish(dec, ev, put_vars(dec, ev, bytes, lens), unit, 0, dec->index,
               rec);
}

static void decode_note(struct etrace_dec *dec, const uint8_t *p,
                        uint32_t len, struct etrace_rec *rec, uint16_t unit)
{
    const struct qtrace_event_desc *ev = rec_start(dec, K_NOTE);
    const uint8_t *bytes[1] = { p + ETRACE_NOTE_HEAD };
    size_t lens[1] = { len - ETRACE_NOTE_HEAD };

    /* Writers differ on a final NUL; the text is what comes before. */
    while (lens[0] > 0 && bytes[0][lens[0] - 1] == '\0') {
        lens[0]--;
    }
    rec_finish(dec, ev, put_vars(dec, ev, bytes, lens), unit, load64(p),
               dec->index, rec);
}

static void decode_mem(struct etrace_dec *dec, const uint8_t *p,
                       struct etrace_rec *rec, uint16_t unit)
{
    const struct qtrace_event_desc *ev = rec_start(dec, K_MEM);

    put_int(dec, ev, 0, load64(p + 8));
    put_int(dec, ev, 1, load64(p + 16));
    put_int(dec, ev, 2, load64(p + 24));
    put_int(dec, ev, 3, load32(p + 32));
    put_int(dec, ev, 4, p[36]);
    rec_finish(dec, ev, fixed_only(ev), unit, load64(p), dec->index, rec);
}

static int decode_event(struct etrace_dec *dec, const uint8_t *p,
                        uint32_t len, struct etrace_rec *rec, uint16_t unit,
                        char *why, size_t wlen)
{
    const struct qtrace_event_desc *ev = rec_start(dec, K_EVENT);
    uint16_t dlen = load16(p + 32);
    uint16_t nlen = load16(p + 34);
    const uint8_t *bytes[2] = { p + ETRACE_EVENT_HEAD,
                                p + ETRACE_EVENT_HEAD + dlen };
    size_t lens[2] = { dlen, nlen };

    if ((uint64_t)ETRACE_EVENT_HEAD + dlen + nlen > len) {
        snprintf(why, wlen, "EVENT_U64 names of %u and %u bytes overrun "
                 "its %" PRIu32 "-byte payload", dlen, nlen, len);
        return -EBADMSG;
    }
    /* The lengths count each name's NUL. */
    lens[0] -= lens[0] > 0 && bytes[0][lens[0] - 1] == '\0';
    lens[1] -= lens[1] > 0 && bytes[1][lens[1] - 1] == '\0';
    put_int(dec, ev, 2, load64(p + 16));
    put_int(dec, ev, 3, load64(p + 24));
    put_int(dec, ev, 4, load32(p));
    rec_finish(dec, ev, put_vars(dec, ev, bytes, lens), unit, load64(p + 8),
               dec->index, rec);
    return 0;
}

static void decode_fixed(struct etrace_dec *dec, enum kind k,
                         const uint8_t *p, struct etrace_rec *rec,
                         uint16_t unit)
{
    const struct qtrace_event_desc *ev = rec_start(dec, k);

    if (k == K_INFO) {
        put_int(dec, ev, 0, load64(p));
        put_int(dec, ev, 1, load16(p + 8));
        put_int(dec, ev, 2, load16(p + 10));
    } else if (k == K_ARCH) {
        dec->word_bits = p[4];
        put_int(dec, ev, 0, load32(p));
        put_int(dec, ev, 1, p[4]);
        put_int(dec, ev, 2, p[5]);
        put_int(dec, ev, 3, load32(p + 8));
        put_int(dec, ev, 4, p[12]);
        put_int(dec, ev, 5, p[13]);
    }
    rec_finish(dec, ev, fixed_only(ev), unit, 0, dec->index, rec);
}

static void decode_unknown(struct etrace_dec *dec, uint16_t type,
                           const uint8_t *p, uint32_t len,
                           struct etrace_rec *rec, uint16_t unit)
{
    const struct qtrace_event_desc *ev = rec_start(dec, K_UNKNOWN);
    const uint8_t *bytes[1] = { p };
    size_t lens[1] = { len };

    put_int(dec, ev, 0, type);
    rec_finish(dec, ev, put_vars(dec, ev, bytes, lens), unit, 0, dec->index,
               rec);
}

/* The payload size a type needs at least; 0 for any. */
static uint32_t min_payload(uint16_t type)
{
    switch (type) {
    case ETRACE_INFO: return ETRACE_INFO_SIZE;
    case ETRACE_ARCH: return ETRACE_ARCH_SIZE;
    case ETRACE_TB: return ETRACE_TB_HEAD;
    case ETRACE_NOTE: return ETRACE_NOTE_HEAD;
    case ETRACE_MEM: return ETRACE_MEM_SIZE;
    case ETRACE_EVENT_U64:
    case ETRACE_OLD_EVENT_U64: return ETRACE_EVENT_HEAD;
    default: return 0;
    }
}

/*
 * Decode the etrace record at p (header checked). Returns 1 with *rec, 0
 * for an EXEC record whose entries come next (or an empty one), -errno
 * with why.
 */
static int decode_record(struct etrace_dec *dec, uint16_t type,
                         uint16_t unit, const uint8_t *p, uint32_t len,
                         struct etrace_rec *rec, char *why, size_t wlen)
{
    if (len < min_payload(type)) {
        snprintf(why, wlen, "type %u payload of %" PRIu32 " bytes, below "
                 "its %" PRIu32, type, len, min_payload(type));
        return -EBADMSG;
    }
    switch (type) {
    case ETRACE_INFO:
        decode_fixed(dec, K_INFO, p, rec, unit);
        return 1;
    case ETRACE_ARCH:
        decode_fixed(dec, K_ARCH, p, rec, unit);
        return 1;
    case ETRACE_EXEC:
        return decode_exec(dec, p, len, unit, why, wlen);
    case ETRACE_BARRIER:
        decode_fixed(dec, K_BARRIER, p, rec, unit);
        return 1;
    case ETRACE_TB:
        decode_tb(dec, p, len, rec, unit);
        return 1;
    case ETRACE_NOTE:
        decode_note(dec, p, len, rec, unit);
        return 1;
    case ETRACE_MEM:
        decode_mem(dec, p, rec, unit);
        return 1;
    case ETRACE_EVENT_U64:
    case ETRACE_OLD_EVENT_U64: {
        int ret = decode_event(dec, p, len, rec, unit, why, wlen);

        return ret < 0 ? ret : 1;
    }
    default:
        decode_unknown(dec, type, p, len, rec, unit);
        return 1;
    }
}

int etrace_dec_next(struct etrace_dec *dec, struct etrace_rec *rec,
                    struct qtrace_err *err)
{
    char why[160];

    for (;;) {
        uint64_t off = dec->off;
        uint64_t left = dec->len - off;
        uint16_t type;
        uint32_t len;
        int ret;

        if (dec->exec_left > 0) {
            next_exec_entry(dec, rec);
            return 1;
        }
        if (left == 0) {
            return 0;
        }
        if (left < ETRACE_HDR_SIZE) {
            snprintf(why, sizeof(why), "truncated (header needs 8 bytes, "
                     "%" PRIu64 " left)", left);
            goto bad;
        }
        type = load16(dec->data + off);
        len = load32(dec->data + off + 4);
        if (len > ETRACE_PAYLOAD_MAX) {
            snprintf(why, sizeof(why), "payload length %" PRIu32 " over "
                     "the limit (%u)", len, ETRACE_PAYLOAD_MAX);
            goto bad;
        }
        if (len > left - ETRACE_HDR_SIZE) {
            snprintf(why, sizeof(why), "truncated payload (need %" PRIu32
                     " bytes, %" PRIu64 " left)", len,
                     left - ETRACE_HDR_SIZE);
            goto bad;
        }
        ret = decode_record(dec, type, load16(dec->data + off + 2),
                            dec->data + off + ETRACE_HDR_SIZE, len, rec, why,
                            sizeof(why));
        if (ret < 0) {
            goto bad;
        }
        dec->off = off + ETRACE_HDR_SIZE + len;
        dec->index++;
        if (ret > 0) {
            return 1;
        }
        continue;
bad:
        qtrace_err_set(err, "etrace record %" PRIu64 " at offset 0x%" PRIx64
                       ": %s", dec->index, off, why);
        return -EBADMSG;
    }
}
