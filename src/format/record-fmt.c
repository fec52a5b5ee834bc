/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Reading a record's arguments (qtrace_record_u64, _bytes...) and
 * formatting a record with its event's printf format (qtrace_record_fmt).
 * The format comes from the trace file, so it is interpreted here, one
 * conversion per argument, and never handed to printf whole: the declared
 * argument type decides how a value prints, whatever the length modifier.
 * Every access is bounded by the record's size.
 */
#include <endian.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "digits.h"
#include "le.h"
#include "qtrace/reader.h"
#include "record-arg.h"

/* ---- argument access (docs/format.md, "Layout rule") ---- */




uint64_t qtrace_record_u64(const struct qtrace_record *rec, unsigned int arg)
{
    return (uint64_t)record_arg_value(rec, arg);
}

int64_t qtrace_record_i64(const struct qtrace_record *rec, unsigned int arg)
{
    return record_arg_value(rec, arg);
}

const uint8_t *qtrace_record_bytes(const struct qtrace_record *rec,
                                   unsigned int arg, size_t *len)
{
    const struct qtrace_event_desc *ev = rec->ev;
    uint32_t start;
    uint32_t n;
    unsigned int i;

    *len = 0;
    if (!ev || arg >= ev->n_args || (ev->args[arg].type != QTRACE_ARG_STR &&
                                     ev->args[arg].type != QTRACE_ARG_BYTES)) {
        return NULL;
    }
    /* Variable parts follow the fixed part in declaration order. */
    start = ev->fixed_size;
    for (i = 0; i < arg; i++) {
        if (ev->args[i].type == QTRACE_ARG_STR ||
            ev->args[i].type == QTRACE_ARG_BYTES) {
            start += (uint32_t)record_arg_value(rec, i);
        }
    }
    n = (uint32_t)record_arg_value(rec, arg);
    if (start + n > rec->size) {
        return NULL;
    }
    *len = n;
    return rec->data + start;
}

int qtrace_record_arg_index(const struct qtrace_record *rec,
                            const char *name)
{
    unsigned int i;

    for (i = 0; rec->ev && i < rec->ev->n_args; i++) {
        if (strcmp(rec->ev->args[i].name, name) == 0) {
            return (int)i;
        }
    }
    return -1;
}

/* ---- formatting ---- */

/* Width and precision above this are cut: the format is untrusted input. */
#define FMT_MAX_WIDTH 1024

/* Output with snprintf semantics: pos counts what would have been written. */
struct out {
    char *buf;
    size_t len;                     /* bytes available, NUL included */
    size_t pos;                     /* bytes needed so far */
};

/* One parsed conversion: %[flags][width][.precision][length]conv. */
struct spec {
    char flags[8];                  /* NUL-terminated subset of "-+ #0'" */
    int width;                      /* -1: none */
    int prec;                       /* -1: none */
    char conv;
};

static void put(struct out *o, const char *s, size_t n)
{
    if (o->pos < o->len) {
        size_t room = o->len - o->pos;

        memcpy(o->buf + o->pos, s, n < room ? n : room);
    }
    o->pos += n;
}

static void put_pad(struct out *o, size_t n)
{
    static const char spaces[] = "                ";

    while (n > 0) {
        size_t k = n < sizeof(spaces) - 1 ? n : sizeof(spaces) - 1;

        put(o, spaces, k);
        n -= k;
    }
}

/*
 * Printable ASCII stays, the rest is escaped, so a string argument can
 * neither end the output line nor hide bytes. Returns the escaped form in
 * esc (up to 4 bytes) and its length.
 */
static size_t escape_byte(uint8_t c, char esc[5])
{
    static const char hex[] = "0123456789abcdef";

    switch (c) {
    case '\\':
        memcpy(esc, "\\\\", 3);
        return 2;
    case '\n':
        memcpy(esc, "\\n", 3);
        return 2;
    case '\t':
        memcpy(esc, "\\t", 3);
        return 2;
    case '\r':
        memcpy(esc, "\\r", 3);
        return 2;
    default:
        if (c >= 0x20 && c < 0x7f) {
            esc[0] = (char)c;
            esc[1] = '\0';
            return 1;
        }
        esc[0] = '\\';
        esc[1] = 'x';
        esc[2] = hex[c >> 4];
        esc[3] = hex[c & 15];
        esc[4] = '\0';
        return 4;
    }
}

/*
 * Emit n bytes as escaped text or (hex) as lower-case hex pairs, padded to
 * the spec's width; the precision limits the source bytes used.
 */
static void put_text(struct out *o, const struct spec *sp,
                     const uint8_t *p, size_t n, bool hex)
{
    static const char digits[] = "0123456789abcdef";
    bool left = strchr(sp->flags, '-') != NULL;
    size_t out_len = 0;
    char esc[5];
    size_t i;

    if (sp->prec >= 0 && (size_t)sp->prec < n) {
        n = (size_t)sp->prec;
    }
    for (i = 0; i < n; i++) {
        out_len += hex ? 2 : escape_byte(p[i], esc);
    }
    if (!left && sp->width > 0 && (size_t)sp->width > out_len) {
        put_pad(o, (size_t)sp->width - out_len);
    }
    for (i = 0; i < n; i++) {
        if (hex) {
            esc[0] = digits[p[i] >> 4];
            esc[1] = digits[p[i] & 15];
            put(o, esc, 2);
        } else {
            put(o, esc, escape_byte(p[i], esc));
        }
    }
    if (left && sp->width > 0 && (size_t)sp->width > out_len) {
        put_pad(o, (size_t)sp->width - out_len);
    }
}

static bool type_is_signed(enum qtrace_arg_type t)
{
    return t == QTRACE_ARG_I8 || t == QTRACE_ARG_I16 ||
           t == QTRACE_ARG_I32 || t == QTRACE_ARG_I64;
}

/* Build "%<flags><width>.<prec>ll<conv>" for snprintf. */
static void build_cformat(const struct spec *sp, char conv, char *f,
                          size_t len)
{
    char width[16] = "";
    char prec[16] = "";

    if (sp->width >= 0) {
        snprintf(width, sizeof(width), "%d", sp->width);
    }
    if (sp->prec >= 0) {
        snprintf(prec, sizeof(prec), ".%d", sp->prec);
    }
    snprintf(f, len, "%%%s%s%sll%c", sp->flags, width, prec, conv);
}

static void put_cformat(struct out *o, const char *f, uint64_t v, bool sgn)
{
    char *dst = o->pos < o->len ? o->buf + o->pos : NULL;
    size_t room = o->pos < o->len ? o->len - o->pos : 0;
    int n;

    /* f is built by build_cformat from checked pieces only. */
    if (sgn) {
        n = snprintf(dst, room, f, (long long)v);
    } else {
        n = snprintf(dst, room, f, (unsigned long long)v);
    }
    if (n > 0) {
        o->pos += (size_t)n;
    }
}

/*
 * v in lower-case hex (base 16) or decimal, with a '-' for a negative
 * signed value: what printf prints without flags, width or precision,
 * done without printf since dumps print hundreds of millions of them.
 */
static void put_plain_int(struct out *o, uint64_t v, unsigned int base,
                          bool sgn)
{
    bool neg = sgn && (int64_t)v < 0;
    uint64_t m = neg ? -v : v;
    size_t n = (base == 16 ? digits_hex_len(m) : digits_dec_len(m)) + neg;
    bool fits = o->pos + n <= o->len;
    char tmp[DIGITS_SIGNED_MAX];
    char *dst = fits ? o->buf + o->pos : tmp;   /* tmp: put() cuts it */
    char *p = digits_u64(dst + n, m, base);

    if (neg) {
        p[-1] = '-';
    }
    if (fits) {
        o->pos += n;
    } else {
        put(o, tmp, n);
    }
}

static bool spec_is_plain(const struct spec *sp)
{
    return sp->flags[0] == '\0' && sp->width < 0 && sp->prec < 0;
}

/*
 * An integer argument: d, i, u (and s) print in decimal, signed when the
 * declared type is; x, X and o print the bits of the declared width; c the
 * low byte as (escaped) text; p as 0x and hex.
 */
static void put_int(struct out *o, const struct spec *sp,
                    const struct qtrace_arg_desc *a, uint64_t v)
{
    unsigned int bits = a->size * 8u;
    struct spec text_sp;
    char f[48];
    char tmp[24];
    uint8_t c;

    switch (sp->conv) {
    case 'x':
    case 'X':
    case 'o':
        if (bits < 64) {
            v &= (1ull << bits) - 1;
        }
        if (sp->conv == 'x' && spec_is_plain(sp)) {
            put_plain_int(o, v, 16, false);
            return;
        }
        build_cformat(sp, sp->conv, f, sizeof(f));
        put_cformat(o, f, v, false);
        return;
    case 'c':
        c = (uint8_t)v;
        put_text(o, sp, &c, 1, false);
        return;
    case 'p':
        snprintf(tmp, sizeof(tmp), "0x%llx", (unsigned long long)v);
        text_sp = *sp;
        text_sp.prec = -1;
        put_text(o, &text_sp, (const uint8_t *)tmp, strlen(tmp), false);
        return;
    case 's':
        if (a->type == QTRACE_ARG_BOOL) {
            put_text(o, sp, (const uint8_t *)(v ? "true" : "false"),
                     v ? 4 : 5, false);
            return;
        }
        break;
    default:
        break;
    }
    if (spec_is_plain(sp)) {
        put_plain_int(o, v, 10, type_is_signed(a->type));
        return;
    }
    build_cformat(sp, type_is_signed(a->type) ? 'd' : 'u', f, sizeof(f));
    put_cformat(o, f, v, type_is_signed(a->type));
}

/* Print argument arg according to sp, or "?" when there is none. */
static void put_arg(struct out *o, const struct qtrace_record *rec,
                    unsigned int arg, const struct spec *sp)
{
    const struct qtrace_arg_desc *a;
    const uint8_t *p;
    size_t n;

    if (arg >= rec->ev->n_args) {
        put(o, "?", 1);
        return;
    }
    a = &rec->ev->args[arg];
    if (a->type == QTRACE_ARG_STR || a->type == QTRACE_ARG_BYTES) {
        p = qtrace_record_bytes(rec, arg, &n);
        if (!p) {
            put(o, "?", 1);
            return;
        }
        put_text(o, sp, p, n, a->type == QTRACE_ARG_BYTES);
        return;
    }
    put_int(o, sp, a, qtrace_record_u64(rec, arg));
}

/* A decimal number in a format, clamped to FMT_MAX_WIDTH. */
static int parse_num(const char **pp)
{
    const char *p = *pp;
    int v = 0;

    while (*p >= '0' && *p <= '9') {
        if (v < FMT_MAX_WIDTH) {
            v = v * 10 + (*p - '0');
        }
        p++;
    }
    *pp = p;
    return v < FMT_MAX_WIDTH ? v : FMT_MAX_WIDTH;
}

/* The argument a '*' width or precision takes, or STAR_NONE (none left). */
#define STAR_NONE (-1)

static int star_arg(const struct qtrace_event_desc *ev, unsigned int *arg)
{
    return *arg < ev->n_args ? (int)(*arg)++ : STAR_NONE;
}

/* The value of a '*': the argument's, clamped; -1 when there is none. */
static int star_value(const struct qtrace_record *rec, int arg)
{
    int64_t v;

    if (arg == STAR_NONE) {
        return -1;
    }
    v = qtrace_record_i64(rec, (unsigned int)arg);
    if (v < -FMT_MAX_WIDTH || v > FMT_MAX_WIDTH) {
        v = v < 0 ? -FMT_MAX_WIDTH : FMT_MAX_WIDTH;
    }
    return (int)v;
}

/* Character tests of the format's syntax, without strchr per byte. */
static bool is_flag(char c)
{
    return c == '-' || c == '+' || c == ' ' || c == '#' || c == '0' ||
           c == '\'';
}

static bool is_length(char c)
{
    return c == 'h' || c == 'l' || c == 'z' || c == 'j' || c == 't' ||
           c == 'L' || c == 'q';
}

static bool is_conversion(char c)
{
    switch (c) {
    case 'd': case 'i': case 'u': case 'x': case 'X': case 'o':
    case 'c': case 's': case 'p':
        return true;
    default:
        return false;
    }
}

/*
 * One piece of a format: text shown as it is (a literal, "%%", or a
 * conversion qtrace does not know), or a conversion of argument arg. A
 * '*' width or precision takes the next argument, as printf does: which
 * one is known from the format, its value only from a record.
 */
struct fmt_op {
    const char *text;               /* NULL: a conversion */
    size_t text_len;
    struct spec sp;
    bool width_star, prec_star;
    int width_arg, prec_arg;        /* argument of a '*', or STAR_NONE */
    unsigned int arg;
};

/*
 * Parse the conversion after a '%' at *pp into op; returns false when the
 * format ends first. *arg advances over '*' arguments.
 */
static bool parse_spec(const char **pp, struct fmt_op *op,
                       const struct qtrace_event_desc *ev, unsigned int *arg)
{
    struct spec *sp = &op->sp;
    const char *p = *pp;
    size_t nf = 0;

    memset(sp, 0, sizeof(*sp));
    sp->width = sp->prec = -1;
    for (; is_flag(*p); p++) {
        if (nf < sizeof(sp->flags) - 1 && !strchr(sp->flags, *p)) {
            sp->flags[nf++] = *p;
        }
    }
    if (*p == '*') {
        p++;
        op->width_star = true;
        op->width_arg = star_arg(ev, arg);
    } else if (*p >= '0' && *p <= '9') {
        sp->width = parse_num(&p);
    }
    if (*p == '.') {
        p++;
        if (*p == '*') {
            p++;
            op->prec_star = true;
            op->prec_arg = star_arg(ev, arg);
        } else {
            sp->prec = parse_num(&p);
        }
    }
    /* Length modifiers: the declared argument type decides instead. */
    while (is_length(*p)) {
        p++;
    }
    sp->conv = *p;
    *pp = *p ? p + 1 : p;
    return *p != '\0';
}

/* The piece of the format at f into op; returns where the next starts. */
static const char *next_op(const char *f, const struct qtrace_event_desc *ev,
                           unsigned int *arg, struct fmt_op *op)
{
    const char *start = f;

    memset(op, 0, sizeof(*op));
    op->text = start;
    if (*f != '%') {
        f = strchrnul(f, '%');
        op->text_len = (size_t)(f - start);
        return f;
    }
    if (f[1] == '%') {
        op->text_len = 1;
        return f + 2;
    }
    f++;
    if (!parse_spec(&f, op, ev, arg) || !is_conversion(op->sp.conv)) {
        /* Not a conversion qtrace knows: show it as written. */
        op->text_len = (size_t)(f - start);
        return f;
    }
    op->text = NULL;
    op->arg = (*arg)++;
    return f;
}

static void run_op(struct out *o, const struct fmt_op *op,
                   const struct qtrace_record *rec)
{
    struct spec sp;
    size_t nf;

    if (op->text) {
        put(o, op->text, op->text_len);
        return;
    }
    if (!op->width_star && !op->prec_star) {
        put_arg(o, rec, op->arg, &op->sp);
        return;
    }
    sp = op->sp;
    if (op->width_star) {
        sp.width = star_value(rec, op->width_arg);
        nf = strlen(sp.flags);
        if (sp.width < 0 && nf < sizeof(sp.flags) - 1) {
            sp.flags[nf] = '-';         /* printf: negative width */
            sp.width = -sp.width;
        }
    }
    if (op->prec_star) {
        sp.prec = star_value(rec, op->prec_arg);
    }
    put_arg(o, rec, op->arg, &sp);
}

/* The NUL and the return value of snprintf. */
static int finish(const struct out *o)
{
    if (o->len > 0) {
        o->buf[o->pos < o->len ? o->pos : o->len - 1] = '\0';
    }
    return o->pos > INT_MAX ? INT_MAX : (int)o->pos;
}

static const char *fmt_of(const struct qtrace_event_desc *ev)
{
    return ev && ev->fmt ? ev->fmt : "";
}

int qtrace_record_fmt(const struct qtrace_record *rec, char *buf,
                      size_t len)
{
    struct out o = { .buf = buf, .len = len, .pos = 0 };
    const char *f = fmt_of(rec->ev);
    unsigned int arg = 0;
    struct fmt_op op;

    while (*f) {
        f = next_op(f, rec->ev, &arg, &op);
        run_op(&o, &op, rec);
    }
    return finish(&o);
}

struct qtrace_fmt {
    size_t n_ops;
    struct fmt_op ops[];
};

struct qtrace_fmt *qtrace_fmt_new(const struct qtrace_event_desc *ev)
{
    const char *f = fmt_of(ev);
    struct qtrace_fmt *fmt;
    struct fmt_op op;
    unsigned int arg = 0;
    size_t n = 0;

    while (*f) {
        f = next_op(f, ev, &arg, &op);
        n++;
    }
    fmt = malloc(sizeof(*fmt) + n * sizeof(fmt->ops[0]));
    if (!fmt) {
        return NULL;
    }
    fmt->n_ops = n;
    arg = 0;
    for (f = fmt_of(ev), n = 0; *f; n++) {
        f = next_op(f, ev, &arg, &fmt->ops[n]);
    }
    return fmt;
}

int qtrace_fmt_record(const struct qtrace_fmt *fmt,
                      const struct qtrace_record *rec, char *buf, size_t len)
{
    struct out o = { .buf = buf, .len = len, .pos = 0 };
    size_t i;

    for (i = 0; i < fmt->n_ops; i++) {
        run_op(&o, &fmt->ops[i], rec);
    }
    return finish(&o);
}

void qtrace_fmt_free(struct qtrace_fmt *fmt)
{
    free(fmt);
}
