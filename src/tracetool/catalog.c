/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Event catalog parser: trace-events text (QEMU's syntax) to event
 * descriptions with their record layout. Runs in the tracetool, in the
 * plugin at load time and in the reader on catalogs taken from trace files,
 * so every input is treated as untrusted: nothing is copied without a bound.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "qtrace/catalog.h"
#include "qtrace/format.h"

#define REC_HDR_SIZE 16             /* sizeof(struct qtrace_rec) */
#define ARG_MAX_TOKENS 8            /* "const unsigned char *x" is 5 */
#define VCPU_ARG "__cpu"            /* the vcpu property's implicit argument */
#define VCPU_FMT "cpu=%p "          /* and what it prints before the format */

/* A type trace-events may use, and what it becomes in a record. */
struct type_info {
    const char *ctype;              /* canonical spelling, tokens joined */
    enum qtrace_arg_type type;
    uint16_t size;                  /* bytes in the fixed part = alignment */
};

static const struct type_info type_table[] = {
    { "uint8_t", QTRACE_ARG_U8, 1 },
    { "uint16_t", QTRACE_ARG_U16, 2 },
    { "uint32_t", QTRACE_ARG_U32, 4 },
    { "uint64_t", QTRACE_ARG_U64, 8 },
    { "int8_t", QTRACE_ARG_I8, 1 },
    { "int16_t", QTRACE_ARG_I16, 2 },
    { "int32_t", QTRACE_ARG_I32, 4 },
    { "int64_t", QTRACE_ARG_I64, 8 },
    { "int", QTRACE_ARG_I32, 4 },
    { "signed", QTRACE_ARG_I32, 4 },
    { "signed int", QTRACE_ARG_I32, 4 },
    { "unsigned", QTRACE_ARG_U32, 4 },
    { "unsigned int", QTRACE_ARG_U32, 4 },
    { "char", QTRACE_ARG_I8, 1 },
    { "signed char", QTRACE_ARG_I8, 1 },
    { "unsigned char", QTRACE_ARG_U8, 1 },
    { "short", QTRACE_ARG_I16, 2 },
    { "short int", QTRACE_ARG_I16, 2 },
    { "unsigned short", QTRACE_ARG_U16, 2 },
    { "unsigned short int", QTRACE_ARG_U16, 2 },
    /*
     * Host-sized types (long, size_t, pointers) are always 8 bytes in a
     * record, so a trace reads the same whatever host wrote it.
     */
    { "long", QTRACE_ARG_I64, 8 },
    { "long int", QTRACE_ARG_I64, 8 },
    { "unsigned long", QTRACE_ARG_U64, 8 },
    { "unsigned long int", QTRACE_ARG_U64, 8 },
    { "long long", QTRACE_ARG_I64, 8 },
    { "unsigned long long", QTRACE_ARG_U64, 8 },
    { "size_t", QTRACE_ARG_U64, 8 },
    { "ssize_t", QTRACE_ARG_I64, 8 },
    { "uintptr_t", QTRACE_ARG_U64, 8 },
    { "ptrdiff_t", QTRACE_ARG_I64, 8 },
    { "bool", QTRACE_ARG_BOOL, 1 },
    /* Variable-length arguments: a u16 length in the fixed part. */
    { "const char *", QTRACE_ARG_STR, 2 },
    { "char *", QTRACE_ARG_STR, 2 },
    { "const uint8_t *", QTRACE_ARG_BYTES, 2 },
    { "const void *", QTRACE_ARG_BYTES, 2 },
};

/*
 * Names an argument may not take: the generated struct's own member and
 * C keywords, which would make the generated header fail to compile.
 */
static const char *const reserved_names[] = {
    "hdr", "auto", "bool", "break", "case", "char", "const", "continue",
    "default", "do", "double", "else", "enum", "extern", "float", "for",
    "goto", "if", "inline", "int", "long", "register", "restrict", "return",
    "short", "signed", "sizeof", "static", "struct", "switch", "typedef",
    "union", "unsigned", "void", "volatile", "while",
};

/*
 * The words a pointer's base type may be made of: QEMU's list of standard
 * C and fixed-size types ("struct Foo *" must be written "void *").
 */
static const char *const pointer_words[] = {
    "const", "void", "int", "long", "short", "char", "bool", "unsigned",
    "signed", "int8_t", "uint8_t", "int16_t", "uint16_t", "int32_t",
    "uint32_t", "int64_t", "uint64_t", "size_t", "ssize_t", "uintptr_t",
    "ptrdiff_t",
};

/* Where the parser is: one line of the text, [p, end). */
struct cursor {
    const char *p;
    const char *end;                /* end of the line (its '\n' or NUL) */
    const char *start;              /* first character of the line */
    const char *mark;               /* the event name, for later errors */
    unsigned int line;              /* 1-based line number */
};

/*
 * Fill err with "LINE:COLUMN: message", the column (1-based) being where
 * at points in the current line, so an editor can jump to the mistake.
 */
static void cat_fail(struct qtrace_err *err, const struct cursor *c,
                     const char *at, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void cat_fail(struct qtrace_err *err, const struct cursor *c,
                     const char *at, const char *fmt, ...)
{
    char msg[sizeof(err->msg)];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    qtrace_err_set(err, "%u:%u: %s", c->line,
                   (unsigned int)(at - c->start) + 1, msg);
}

/* One token of an argument declaration: an identifier or '*'. */
struct token {
    const char *s;
    size_t len;
};

static bool is_ident_start(char c)
{
    return isalpha((unsigned char)c) || c == '_';
}

static bool is_ident_char(char c)
{
    return isalnum((unsigned char)c) || c == '_';
}

static void skip_space(struct cursor *c)
{
    while (c->p < c->end && isspace((unsigned char)*c->p)) {
        c->p++;
    }
}

/* Length of the identifier at c->p (0 if none); does not move c. */
static size_t ident_len(const struct cursor *c)
{
    size_t n = 0;

    if (c->p >= c->end || !is_ident_start(*c->p)) {
        return 0;
    }
    while (c->p + n < c->end && is_ident_char(c->p[n])) {
        n++;
    }
    return n;
}

static bool tok_is(const struct token *t, const char *s)
{
    return t->len == strlen(s) && memcmp(t->s, s, t->len) == 0;
}

/* Print one character for an error message, safe for any byte. */
static const char *show_char(char ch, char buf[8])
{
    if (isprint((unsigned char)ch)) {
        snprintf(buf, 8, "'%c'", ch);
    } else {
        snprintf(buf, 8, "0x%02x", (unsigned char)ch);
    }
    return buf;
}

/*
 * Join the type tokens with single spaces into buf ("const char *").
 * Returns false if it does not fit (then buf holds a truncated prefix).
 */
static bool join_type(const struct token *tok, unsigned int n, char *buf,
                      size_t size)
{
    size_t used = 0;
    unsigned int i;

    buf[0] = '\0';
    for (i = 0; i < n; i++) {
        size_t need = tok[i].len + (i > 0 ? 1 : 0);

        if (used + need >= size) {
            return false;
        }
        if (i > 0) {
            buf[used++] = ' ';
        }
        memcpy(buf + used, tok[i].s, tok[i].len);
        used += tok[i].len;
        buf[used] = '\0';
    }
    return true;
}

static const struct type_info *find_type(const char *ctype)
{
    size_t i;

    for (i = 0; i < sizeof(type_table) / sizeof(type_table[0]); i++) {
        if (strcmp(type_table[i].ctype, ctype) == 0) {
            return &type_table[i];
        }
    }
    return NULL;
}

static bool is_reserved(const char *name)
{
    size_t i;

    for (i = 0; i < sizeof(reserved_names) / sizeof(reserved_names[0]);
         i++) {
        if (strcmp(reserved_names[i], name) == 0) {
            return true;
        }
    }
    return false;
}

/*
 * Two arguments clash when the generated struct would get two members of
 * the same name: equal names, or "s" (STR/BYTES, member "s_len") next to
 * an argument called "s_len".
 */
static bool args_clash(const struct qtrace_arg_desc *a,
                       const struct qtrace_arg_desc *b)
{
    char ma[40];
    char mb[40];
    bool va = a->type == QTRACE_ARG_STR || a->type == QTRACE_ARG_BYTES;
    bool vb = b->type == QTRACE_ARG_STR || b->type == QTRACE_ARG_BYTES;

    if (strcmp(a->name, b->name) == 0) {
        return true;
    }
    snprintf(ma, sizeof(ma), "%s%s", a->name, va ? "_len" : "");
    snprintf(mb, sizeof(mb), "%s%s", b->name, vb ? "_len" : "");
    return strcmp(ma, mb) == 0;
}

/* Tokenize one argument declaration, up to ',' or ')'. */
static int read_arg_tokens(struct cursor *c, struct token *tok,
                           unsigned int *n_tok, struct qtrace_err *err)
{
    char cb[8];

    *n_tok = 0;
    for (;;) {
        size_t n;

        skip_space(c);
        if (c->p >= c->end) {
            cat_fail(err, c, c->p, "unterminated argument list");
            return -EINVAL;
        }
        if (*c->p == ',' || *c->p == ')') {
            return 0;
        }
        if (*n_tok == ARG_MAX_TOKENS) {
            cat_fail(err, c, c->p, "argument declaration too long");
            return -EINVAL;
        }
        if (*c->p == '*') {
            tok[*n_tok].s = c->p;
            tok[*n_tok].len = 1;
            c->p++;
        } else if ((n = ident_len(c)) > 0) {
            tok[*n_tok].s = c->p;
            tok[*n_tok].len = n;
            c->p += n;
        } else {
            cat_fail(err, c, c->p, "unexpected %s in argument list",
                           show_char(*c->p, cb));
            return -EINVAL;
        }
        (*n_tok)++;
    }
}

/*
 * A pointer QEMU accepts: base words from its list, then '*'. Its value
 * (not what it points to) is traced, as 8 bytes.
 */
static bool is_plain_pointer(const struct token *tok, unsigned int n)
{
    unsigned int i;
    size_t w;

    if (n < 2 || !tok_is(&tok[n - 1], "*")) {
        return false;
    }
    for (i = 0; i + 1 < n; i++) {
        bool known = tok_is(&tok[i], "*");

        for (w = 0; !known && w < sizeof(pointer_words) /
                                   sizeof(pointer_words[0]); w++) {
            known = tok_is(&tok[i], pointer_words[w]);
        }
        if (!known) {
            return false;
        }
    }
    return true;
}

/* Fill arg from its tokens: the last one is the name, the rest the type. */
static int make_arg(const struct cursor *c, const struct token *tok,
                    unsigned int n_tok, unsigned int index,
                    struct qtrace_arg_desc *arg, struct qtrace_err *err)
{
    static const struct type_info pointer = { "", QTRACE_ARG_U64, 8 };
    const struct token *name = &tok[n_tok - 1];
    const struct type_info *ti;
    char ctype[64];
    bool fits;

    if (n_tok < 2 || tok_is(name, "*")) {
        cat_fail(err, c, tok[0].s, "argument %u needs a type and a name",
                 index + 1);
        return -EINVAL;
    }
    if (name->len >= sizeof(arg->name)) {
        cat_fail(err, c, name->s, "argument name '%.*s...' too long "
                 "(max %zu characters)", 16, name->s,
                 sizeof(arg->name) - 1);
        return -EINVAL;
    }
    memcpy(arg->name, name->s, name->len);
    arg->name[name->len] = '\0';
    fits = join_type(tok, n_tok - 1, ctype, sizeof(ctype)) &&
           strlen(ctype) < sizeof(arg->ctype);
    ti = fits ? find_type(ctype) : NULL;
    if (!ti && fits && is_plain_pointer(tok, n_tok - 1)) {
        ti = &pointer;
    }
    if (!ti) {
        cat_fail(err, c, tok[0].s, "unknown type '%s' for argument '%s' "
                 "(standard C and fixed-size integer types only; other "
                 "pointers are 'void *')", ctype, arg->name);
        return -EINVAL;
    }
    if (is_reserved(arg->name)) {
        cat_fail(err, c, name->s, "argument name '%s' is reserved",
                 arg->name);
        return -EINVAL;
    }
    snprintf(arg->ctype, sizeof(arg->ctype), "%s", ti == &pointer ? ctype
             : ti->ctype);
    arg->type = ti->type;
    arg->size = ti->size;
    return 0;
}

/* The vcpu property's implicit first argument, a pointer like QEMU's. */
static void add_vcpu_arg(struct qtrace_event_desc *ev)
{
    struct qtrace_arg_desc *a = &ev->args[ev->n_args++];

    snprintf(a->name, sizeof(a->name), "%s", VCPU_ARG);
    snprintf(a->ctype, sizeof(a->ctype), "void *");
    a->type = QTRACE_ARG_U64;
    a->size = 8;
}

/* Parse "(void)" or "(type name, ...)" into ev->args; c is at '('. */
static int parse_args(struct cursor *c, struct qtrace_event_desc *ev,
                      struct qtrace_err *err)
{
    struct token tok[ARG_MAX_TOKENS];
    unsigned int implicit = ev->vcpu ? 1 : 0;
    unsigned int n_tok;
    unsigned int i;
    int ret;

    if (ev->vcpu) {
        add_vcpu_arg(ev);
    }
    c->p++;
    for (;;) {
        ret = read_arg_tokens(c, tok, &n_tok, err);
        if (ret < 0) {
            return ret;
        }
        if (n_tok == 1 && tok_is(&tok[0], "void") &&
            ev->n_args == implicit && *c->p == ')') {
            break;
        }
        if (n_tok == 0) {
            cat_fail(err, c, c->p, "missing argument %u (write "
                     "'void' for none)", ev->n_args - implicit + 1);
            return -EINVAL;
        }
        if (ev->n_args == QTRACE_MAX_ARGS) {
            cat_fail(err, c, tok[0].s, "too many arguments (max %d)",
                     QTRACE_MAX_ARGS - (int)implicit);
            return -EINVAL;
        }
        ret = make_arg(c, tok, n_tok, ev->n_args - implicit,
                       &ev->args[ev->n_args], err);
        if (ret < 0) {
            return ret;
        }
        for (i = 0; i < ev->n_args; i++) {
            if (args_clash(&ev->args[i], &ev->args[ev->n_args])) {
                cat_fail(err, c, tok[n_tok - 1].s,
                         "duplicate argument '%s'",
                         ev->args[ev->n_args].name);
                return -EINVAL;
            }
        }
        ev->n_args++;
        if (*c->p == ')') {
            break;
        }
        c->p++;                     /* the ',' */
    }
    c->p++;                         /* the ')' */
    return 0;
}

/*
 * Expand a PRI macro ("PRIx64") into its printf length and conversion
 * ("llx"). Returns false if name is not one of them.
 */
static bool expand_pri(const char *name, size_t len, char out[4])
{
    const char *bits;

    if (len < 5 || memcmp(name, "PRI", 3) != 0 ||
        !strchr("diouxX", name[3])) {
        return false;
    }
    bits = name + 4;
    len -= 4;
    if (len == 2 && memcmp(bits, "64", 2) == 0) {
        /* qtrace prints every 64-bit value as (unsigned) long long. */
        out[0] = 'l';
        out[1] = 'l';
        out[2] = name[3];
        out[3] = '\0';
        return true;
    }
    if ((len == 1 && bits[0] == '8') ||
        (len == 2 && (memcmp(bits, "16", 2) == 0 ||
                      memcmp(bits, "32", 2) == 0))) {
        out[0] = name[3];
        out[1] = '\0';
        return true;
    }
    return false;
}

/* Decode one string literal at c->p (a '"') onto out[*len]. */
static int read_literal(struct cursor *c, char *out, size_t *len,
                        struct qtrace_err *err)
{
    static const char escapes[] = "n\nt\tr\r\\\\\"\"''a\af\fv\v";
    const char *open = c->p;
    const char *e;

    c->p++;
    while (c->p < c->end && *c->p != '"') {
        if (*c->p != '\\') {
            out[(*len)++] = *c->p++;
            continue;
        }
        c->p++;
        e = NULL;
        if (c->p < c->end) {
            for (e = escapes; *e && *e != *c->p; e += 2) {
            }
        }
        if (!e || !*e) {
            cat_fail(err, c, c->p - 1, "unsupported escape in format "
                           "string");
            return -EINVAL;
        }
        out[(*len)++] = e[1];
        c->p++;
    }
    if (c->p >= c->end) {
        cat_fail(err, c, open, "unterminated format string");
        return -EINVAL;
    }
    c->p++;
    return 0;
}

/*
 * Keep the format as written (literals and PRI macros), for generated C
 * that hands it to printf-like backends; vcpu events print their CPU first.
 */
static int keep_fmt_src(struct qtrace_event_desc *ev, const char *src,
                        size_t len)
{
    static const char prefix[] = "\"" VCPU_FMT "\" ";
    size_t plen = ev->vcpu ? strlen(prefix) : 0;
    char *fmt;

    ev->fmt_src = malloc(plen + len + 1);
    if (!ev->fmt_src) {
        return -ENOMEM;
    }
    memcpy(ev->fmt_src, prefix, plen);
    memcpy(ev->fmt_src + plen, src, len);
    ev->fmt_src[plen + len] = '\0';
    if (ev->vcpu) {
        fmt = malloc(strlen(VCPU_FMT) + strlen(ev->fmt) + 1);
        if (!fmt) {
            return -ENOMEM;
        }
        strcpy(fmt, VCPU_FMT);
        strcat(fmt, ev->fmt);
        free(ev->fmt);
        ev->fmt = fmt;
    }
    return 0;
}

/*
 * Parse the format: string literals and PRI macros, concatenated. The
 * result is never longer than the source text, which bounds out.
 */
static int parse_fmt(struct cursor *c, struct qtrace_event_desc *ev,
                     struct qtrace_err *err)
{
    size_t cap = (size_t)(c->end - c->p) + 1;
    const char *first = NULL;       /* the format's first '"' */
    const char *last = NULL;        /* just after its last token */
    size_t len = 0;
    char *out;
    char pri[4];
    char cb[8];
    int ret;

    out = malloc(cap);
    if (!out) {
        cat_fail(err, c, c->p, "out of memory");
        return -ENOMEM;
    }
    for (;;) {
        size_t n;

        skip_space(c);
        if (c->p >= c->end) {
            break;
        }
        if (*c->p == '"') {
            first = first ? first : c->p;
            ret = read_literal(c, out, &len, err);
            if (ret < 0) {
                free(out);
                return ret;
            }
        } else if ((n = ident_len(c)) > 0 && first) {
            if (!expand_pri(c->p, n, pri)) {
                cat_fail(err, c, c->p, "unknown macro '%.*s' in "
                         "format string", (int)(n > 32 ? 32 : n), c->p);
                free(out);
                return -EINVAL;
            }
            memcpy(out + len, pri, strlen(pri));
            len += strlen(pri);
            c->p += n;
        } else if (!first) {
            break;
        } else {
            cat_fail(err, c, c->p, "unexpected %s after format "
                     "string", show_char(*c->p, cb));
            free(out);
            return -EINVAL;
        }
        last = c->p;
    }
    if (!first) {
        cat_fail(err, c, c->p, "missing format string");
        free(out);
        return -EINVAL;
    }
    out[len] = '\0';
    ev->fmt = out;
    ev->fmt_col = (unsigned int)(first - c->start) + 1;
    if (keep_fmt_src(ev, first, (size_t)(last - first)) < 0) {
        cat_fail(err, c, first, "out of memory");
        return -ENOMEM;
    }
    return 0;
}

/* Offsets by the rule of docs/format.md: natural alignment, unpadded. */
static int compute_layout(const struct cursor *c,
                          struct qtrace_event_desc *ev,
                          struct qtrace_err *err)
{
    unsigned long off = REC_HDR_SIZE;
    unsigned int i;

    ev->has_var = false;
    for (i = 0; i < ev->n_args; i++) {
        struct qtrace_arg_desc *a = &ev->args[i];

        /* Every size is a power of two and is its own alignment. */
        off = (off + a->size - 1) & ~(unsigned long)(a->size - 1);
        a->offset = (uint16_t)off;
        off += a->size;
        if (a->type == QTRACE_ARG_STR || a->type == QTRACE_ARG_BYTES) {
            ev->has_var = true;
        }
    }
    if (off > QTRACE_REC_MAX) {
        cat_fail(err, c, c->mark, "record fixed part is %lu bytes "
                       "(max %u)", off, QTRACE_REC_MAX);
        return -EINVAL;
    }
    ev->fixed_size = (uint16_t)off;
    return 0;
}

/*
 * Apply one property word (QEMU's "disable" and "vcpu"). "tcg" asks QEMU
 * to generate guest code, which only QEMU's own tracetool can do.
 */
static int apply_property(const struct cursor *c, const char *word,
                          size_t n, struct qtrace_event_desc *ev,
                          struct qtrace_err *err)
{
    if (n == 7 && memcmp(word, "disable", 7) == 0) {
        ev->disabled = true;
    } else if (n == 4 && memcmp(word, "vcpu", 4) == 0) {
        ev->vcpu = true;
    } else if (n == 3 && memcmp(word, "tcg", 3) == 0) {
        cat_fail(err, c, word, "property 'tcg' needs QEMU's code "
                 "generator: outside QEMU, trace at run time with a plain "
                 "event");
        return -EINVAL;
    } else {
        cat_fail(err, c, word, "unknown property '%.*s' (known: disable, "
                 "vcpu)", (int)(n > 32 ? 32 : n), word);
        return -EINVAL;
    }
    return 0;
}

/*
 * Length of an event name at c->p: an identifier, or LIB:EVENT, two
 * identifiers joined by one ':' (an instrumentation library's event in a
 * trace's catalog, docs/format.md), so that two libraries may each have
 * an event of the same name.
 */
static size_t event_name_len(const struct cursor *c)
{
    size_t n = ident_len(c);
    struct cursor after = *c;
    size_t m;

    if (n == 0 || c->p + n >= c->end || c->p[n] != ':') {
        return n;
    }
    after.p += n + 1;
    m = ident_len(&after);
    return m > 0 && isalpha((unsigned char)*after.p) ? n + 1 + m : n;
}

/* Read the properties and the event name, up to its '('. */
static int parse_name(struct cursor *c, struct qtrace_event_desc *ev,
                      struct qtrace_err *err)
{
    size_t n = ident_len(c);
    char cb[8];

    /* A word followed by blanks and another word is a property. */
    while (n > 0 && c->p + n < c->end && isspace((unsigned char)c->p[n])) {
        const char *word = c->p;
        struct cursor after = *c;

        after.p += n;
        skip_space(&after);
        if (after.p >= after.end || !is_ident_start(*after.p)) {
            break;
        }
        if (apply_property(c, word, n, ev, err) < 0) {
            return -EINVAL;
        }
        *c = after;
        n = ident_len(c);
    }
    n = event_name_len(c);
    if (n == 0 || !isalpha((unsigned char)*c->p)) {
        cat_fail(err, c, c->p, "expected an event name, found %s",
                 c->p < c->end ? show_char(*c->p, cb) : "end of line");
        return -EINVAL;
    }
    if (n >= sizeof(ev->name)) {
        cat_fail(err, c, c->p, "event name '%.*s...' too long "
                 "(max %zu characters)", 16, c->p, sizeof(ev->name) - 1);
        return -EINVAL;
    }
    memcpy(ev->name, c->p, n);
    ev->name[n] = '\0';
    c->mark = c->p;
    c->p += n;
    skip_space(c);
    if (c->p >= c->end || *c->p != '(') {
        cat_fail(err, c, c->p, "expected '(' after '%s'", ev->name);
        return -EINVAL;
    }
    return 0;
}

/*
 * Event names become upper-case enum constants, so two names that differ
 * only in case would give the same QTRACE_EV_<NAME>.
 */
static int check_unique(const struct cursor *c,
                        const struct qtrace_catalog *cat,
                        const struct qtrace_event_desc *ev,
                        struct qtrace_err *err)
{
    unsigned int i;

    for (i = 1; i <= cat->n_events; i++) {
        if (strcasecmp(cat->events[i].name, ev->name) == 0) {
            cat_fail(err, c, c->mark, "duplicate event '%s'", ev->name);
            return -EINVAL;
        }
    }
    return 0;
}

/* Parse one event line into ev (zeroed by the caller). */
static int parse_event(struct cursor *c, const struct qtrace_catalog *cat,
                       struct qtrace_event_desc *ev, struct qtrace_err *err)
{
    int ret;

    ev->line = c->line;
    ret = parse_name(c, ev, err);
    if (ret == 0) {
        ret = check_unique(c, cat, ev, err);
    }
    if (ret == 0) {
        ret = parse_args(c, ev, err);
    }
    if (ret == 0) {
        ret = compute_layout(c, ev, err);
    }
    if (ret == 0) {
        ret = parse_fmt(c, ev, err);
    }
    return ret;
}

/* Make room for one more event (events[0] stays unused). */
static int grow_events(struct qtrace_catalog *cat, unsigned int *cap)
{
    struct qtrace_event_desc *ev;
    unsigned int ncap;

    if (cat->n_events + 2 <= *cap) {
        return 0;
    }
    ncap = *cap ? *cap * 2 : 16;
    ev = realloc(cat->events, ncap * sizeof(*ev));
    if (!ev) {
        return -ENOMEM;
    }
    cat->events = ev;
    *cap = ncap;
    return 0;
}

static int parse_lines(struct qtrace_catalog *cat, const char *text,
                       struct qtrace_err *err)
{
    struct cursor c = { .p = text, .line = 0 };
    unsigned int cap = 0;
    int ret;

    while (*c.p) {
        const char *next;

        c.line++;
        c.start = c.p;
        c.end = strchr(c.p, '\n');
        next = c.end ? c.end + 1 : NULL;
        if (!c.end) {
            c.end = c.p + strlen(c.p);
            next = c.end;
        }
        skip_space(&c);
        if (c.p < c.end && *c.p != '#') {
            if (cat->n_events + 1 >= QTRACE_MAX_EVENTS) {
                cat_fail(err, &c, c.p, "too many events (max %d)",
                         QTRACE_MAX_EVENTS - 1);
                return -EINVAL;
            }
            if (grow_events(cat, &cap) < 0) {
                cat_fail(err, &c, c.p, "out of memory");
                return -ENOMEM;
            }
            memset(&cat->events[cat->n_events + 1], 0,
                   sizeof(cat->events[0]));
            ret = parse_event(&c, cat, &cat->events[cat->n_events + 1],
                              err);
            if (ret < 0) {
                free(cat->events[cat->n_events + 1].fmt);
                free(cat->events[cat->n_events + 1].fmt_src);
                return ret;
            }
            cat->n_events++;
            cat->events[cat->n_events].id = (uint16_t)cat->n_events;
        }
        c.p = next;
    }
    return 0;
}

int qtrace_catalog_parse(struct qtrace_catalog *cat, const char *text,
                         struct qtrace_err *err)
{
    int ret;

    if (!cat || !text) {
        qtrace_err_set(err, "no catalog text");
        return -EINVAL;
    }
    memset(cat, 0, sizeof(*cat));
    cat->text = strdup(text);
    cat->events = calloc(1, sizeof(*cat->events));
    if (!cat->text || !cat->events) {
        qtrace_err_set(err, "out of memory");
        ret = -ENOMEM;
    } else {
        ret = parse_lines(cat, text, err);
    }
    if (ret < 0) {
        qtrace_catalog_fini(cat);
    }
    return ret;
}

void qtrace_catalog_fini(struct qtrace_catalog *cat)
{
    unsigned int i;

    if (!cat) {
        return;
    }
    if (cat->events) {
        for (i = 1; i <= cat->n_events; i++) {
            free(cat->events[i].fmt);
            free(cat->events[i].fmt_src);
        }
    }
    free(cat->events);
    free(cat->text);
    memset(cat, 0, sizeof(*cat));
}

const struct qtrace_event_desc *
qtrace_catalog_find(const struct qtrace_catalog *cat, const char *name)
{
    unsigned int i;

    if (!cat || !name || !cat->events) {
        return NULL;
    }
    for (i = 1; i <= cat->n_events; i++) {
        if (strcmp(cat->events[i].name, name) == 0) {
            return &cat->events[i];
        }
    }
    return NULL;
}

int qtrace_event_arg(const struct qtrace_event_desc *ev, const char *name)
{
    unsigned int i;

    for (i = 0; ev && i < ev->n_args; i++) {
        if (strcmp(ev->args[i].name, name) == 0) {
            return (int)i;
        }
    }
    return -1;
}

const struct qtrace_event_desc *
qtrace_catalog_get(const struct qtrace_catalog *cat, unsigned int id)
{
    if (!cat || !cat->events || id == 0 || id > cat->n_events) {
        return NULL;
    }
    return &cat->events[id];
}
