/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * qtrace dump: print every record of a trace, one line each:
 * "<vcpu> <time> <event> <args>", and for exec_insn the instruction,
 * disassembled from the code bytes of its block's tb_trans record. Uses
 * the public reader API; capstone is behind disasm.h. exec_tb and func_*
 * lines end with ' | ' and the guest symbol of their address. With
 * --merge (a trace with host clock stamps), every stream in one time
 * order through qtrace/merge.h, each line led by its host time.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <glib.h>

#include "cli.h"
#include "simpletrace.h"
#include "digits.h"
#include "le.h"
#include "disasm.h"
#include "progress.h"
#include "event-filter.h"
#include "guest-syms.h"
#include "line-pool.h"
#include "mem-text.h"
#include "qtrace/callstack.h"
#include "qtrace/merge.h"
#include "qtrace/reader.h"
#include "qtrace/syscall.h"
#include "trace-end.h"

/* print_pooled could not start its threads: print on this one. */
#define PRINT_ALONE (-2)

/* Check for a failed stdout (full disk) this often, in records. */
#define WRITE_CHECK_EVERY 4096u

struct dump_opts {
    const char *path;               /* trace file, required */
    char *events;                   /* -e patterns, joined with ','; owned */
    unsigned int jobs;              /* -j: formatting threads, 0: default */
    bool merge;                     /* --merge: one order, by host time */
};

/* The disassembly of one instruction of a block, made when first met. */
struct insn_text {
    uint64_t off;                   /* its offset in the block's code */
    char *text;                     /* "mnemonic operands", NULL if not yet */
};

/* One translated block, from its tb_trans record. */
struct block {
    uint64_t pc;                    /* guest address of the first byte */
    uint8_t *code;                  /* copy of the code bytes */
    size_t code_len;
    bool thumb;                     /* arm: decode as Thumb (see guess) */
    unsigned int n_insns;           /* entries in insns */
    struct insn_text *insns;        /* by instruction index in the block */
};

/*
 * The " | name+0xOFF" text of a recent address: a block or a function is
 * printed again and again, and looking it up and formatting it each time
 * was an eighth of a dump of blocks. Direct mapped by address.
 */
#define SYM_CACHE_SLOTS 512u
#define SYM_TEXT_MAX 118u

struct sym_text {
    uint64_t addr;
    bool with_off;
    uint8_t len;                    /* 0: empty slot */
    char text[SYM_TEXT_MAX];
};

/* Where the arguments dump needs sit in the trace's own catalog. */
struct arg_map {
    const struct qtrace_event_desc *tb_trans;   /* NULL if absent */
    int tt_pc, tt_tb, tt_n_insns, tt_code;
    const struct qtrace_event_desc *exec_insn;  /* NULL if absent */
    int ei_pc, ei_tb, ei_idx;
    const struct qtrace_event_desc *sys;        /* syscall, or NULL */
    int sys_num;
    const struct qtrace_event_desc *sys_ret;    /* syscall_ret, or NULL */
    int sr_num, sr_ret;
    const struct qtrace_event_desc *exec_tb;    /* NULL if absent */
    int et_pc;
    bool et_fast;                               /* exec_tb as this dump's
                                                   catalog has it */
    struct qtrace_func_events fe;               /* func_entry, func_exit */
    struct mem_text mem;                        /* mem_access */
};

struct dump {
    const char *path;
    struct qtrace_reader *rd;
    struct event_filter filter;
    struct arg_map args;
    const char *arch;               /* META "arch", or "unknown" */
    struct disasm *dis;             /* NULL: no disassembler for arch */
    const struct qtrace_syscall_table *syscalls;    /* NULL: no names */
    struct qtrace_symbols *syms;    /* NULL: no event shown needs them */
    bool name_blocks;               /* some image: exec_tb gets a name */
    bool keep_blocks;               /* exec_insn shown: keep tb_trans code */
    uint64_t want[QTRACE_MAX_EVENTS / 64];  /* events read (select_shown) */
    bool want_all;                  /* ... every one */
    GHashTable *blocks;             /* tb id -> struct block */
    struct qtrace_reader *ahead;    /* finds blocks met early, or NULL */
    bool ahead_done;                /* ... it reached the end */
    uint8_t *name_len;              /* by event id: strlen of its name */
    struct qtrace_fmt **fmts;       /* by event id: its parsed format */
    unsigned int n_fmts;
    struct sym_text *sym_cache;     /* SYM_CACHE_SLOTS, or NULL */
    char *line;                     /* the line being built */
    size_t line_len;
    size_t line_cap;
    bool to_pool;                   /* a worker's copy (line-pool.h) */
    bool out_of_memory;             /* ... that lost a line so */
    char insn_buf[160];             /* an uncached disassembly */
};

static const char usage[] =
    "usage: qtrace dump [-e PATTERNS] [-j N] [--merge]\n"
    "                   [--symbols FILE[@ADDR]]... FILE\n"
    "\n"
    "Print every record of the trace FILE, one line each:\n"
    "  <vcpu> <time> <event> <arguments>\n"
    "(vcpu '-' for tb_trans, which belongs to no vCPU).\n"
    "exec_insn lines end with ' | ' and the disassembled instruction,\n"
    "exec_tb, func_entry and func_exit lines with ' | ' and the guest\n"
    "function (name, name+0xOFFSET, module+0xELFADDR in a file without\n"
    "a symbol there, or the address outside every file).\n"
    "With --merge, the records of every vCPU stream in one order, by the\n"
    "host time of a trace recorded with timeline=on (qtrace record\n"
    "--timeline), each line led by it, in seconds since the trace began:\n"
    "  <host time> <vcpu> <time> <event> <arguments>\n"
    "\n"
    "Options:\n"
    "  -e, --events=PATTERNS  only events matching the glob PATTERNS\n"
    "                         (comma separated; '-PATTERN' hides; if the\n"
    "                         first hides, the rest are shown); repeatable\n"
    "  -j, --jobs=N           format lines on N threads (default: one per\n"
    "                         CPU; 1: on the reading thread alone; with\n"
    "                         --merge, one thread)\n"
    "      --merge            all vCPU streams in one order, by host time\n"
    "                         (needs a trace recorded with --timeline)\n"
    GUEST_SYMS_HELP
    "  -h, --help             print this help and exit\n";

enum { OPT_SYMBOLS = 256, OPT_MERGE };

static const struct option long_opts[] = {
    { "events", required_argument, NULL, 'e' },
    { "jobs", required_argument, NULL, 'j' },
    { "symbols", required_argument, NULL, OPT_SYMBOLS },
    { "merge", no_argument, NULL, OPT_MERGE },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 },
};

static int parse_opts(int argc, char **argv, struct dump_opts *opts)
{
    int c;

    opterr = 0;
    guest_syms_options_reset();
    while ((c = getopt_long(argc, argv, ":e:j:h", long_opts, NULL)) != -1) {
        switch (c) {
        case 'e':
            if (cli_add_events("dump", &opts->events, optarg) != CLI_OK) {
                return CLI_FAIL;
            }
            break;
        case OPT_SYMBOLS:
            if (guest_syms_option("dump", optarg) != CLI_OK) {
                return CLI_USAGE;
            }
            break;
        case 'j':
            if (cli_parse_jobs("dump", optarg, &opts->jobs) != CLI_OK) {
                return CLI_USAGE;
            }
            break;
        case OPT_MERGE:
            opts->merge = true;
            break;
        case 'h':
            fputs(usage, stdout);
            return CLI_HELP;
        default:
            return cli_bad_option("dump", c, argv);
        }
    }
    if (optind >= argc) {
        return cli_usage("dump", "missing trace FILE");
    }
    if (argc - optind > 1) {
        return cli_usage("dump", "%s: one trace FILE only", argv[optind + 1]);
    }
    opts->path = argv[optind];
    return CLI_OK;
}

/* syscall and syscall_ret, named in the dump when the arch is known. */
static void map_syscall_args(struct arg_map *m,
                             const struct qtrace_catalog *cat)
{
    m->sys = qtrace_catalog_find(cat, "syscall");
    if (m->sys) {
        m->sys_num = qtrace_event_arg(m->sys, "num");
        if (m->sys_num < 0) {
            m->sys = NULL;
        }
    }
    m->sys_ret = qtrace_catalog_find(cat, "syscall_ret");
    if (m->sys_ret) {
        m->sr_num = qtrace_event_arg(m->sys_ret, "num");
        m->sr_ret = qtrace_event_arg(m->sys_ret, "ret");
        if (m->sr_num < 0 || m->sr_ret < 0) {
            m->sys_ret = NULL;
        }
    }
}

/*
 * Find tb_trans and exec_insn and their arguments by name, so the catalog
 * may reorder or extend them. An event lacking what dump needs is treated
 * as absent: its records still print, without disassembly.
 */
static void map_args(struct arg_map *m, const struct qtrace_catalog *cat)
{
    m->tb_trans = qtrace_catalog_find(cat, "tb_trans");
    if (m->tb_trans) {
        m->tt_pc = qtrace_event_arg(m->tb_trans, "pc");
        m->tt_tb = qtrace_event_arg(m->tb_trans, "tb");
        m->tt_n_insns = qtrace_event_arg(m->tb_trans, "n_insns");
        m->tt_code = qtrace_event_arg(m->tb_trans, "code");
        if (m->tt_pc < 0 || m->tt_tb < 0 || m->tt_code < 0) {
            m->tb_trans = NULL;
        }
    }
    m->exec_insn = qtrace_catalog_find(cat, "exec_insn");
    if (m->exec_insn) {
        m->ei_pc = qtrace_event_arg(m->exec_insn, "pc");
        m->ei_tb = qtrace_event_arg(m->exec_insn, "tb");
        m->ei_idx = qtrace_event_arg(m->exec_insn, "idx");
        if (m->ei_idx < 0) {
            m->ei_idx = qtrace_event_arg(m->exec_insn, "insn");
        }
        if (m->ei_pc < 0 || m->ei_tb < 0) {
            m->exec_insn = NULL;
        }
    }
    map_syscall_args(m, cat);
    m->exec_tb = qtrace_catalog_find(cat, "exec_tb");
    m->et_pc = m->exec_tb ? qtrace_event_arg(m->exec_tb, "pc") : -1;
    if (m->et_pc < 0) {
        m->exec_tb = NULL;
    }
    /*
     * The format and arguments of exec_tb in qtrace's own catalog: its
     * lines, a third of a dump of blocks, are then written directly.
     */
    m->et_fast = m->exec_tb && m->exec_tb->n_args == 2 && m->et_pc == 0 &&
                 m->exec_tb->fmt &&
                 strcmp(m->exec_tb->fmt, "pc 0x%llx tb %u") == 0 &&
                 m->exec_tb->args[0].type == QTRACE_ARG_U64 &&
                 m->exec_tb->args[1].type == QTRACE_ARG_U32;
    qtrace_func_events_find(&m->fe, cat);
    mem_text_map(&m->mem, cat);
}

static void free_block(void *p)
{
    struct block *b = p;
    unsigned int i;

    for (i = 0; i < b->n_insns; i++) {
        free(b->insns[i].text);
    }
    free(b->insns);
    free(b->code);
    free(b);
}

/*
 * An arm block carries no Thumb flag, but A32 instructions are all four
 * bytes: a block whose size is not four bytes per instruction is Thumb.
 * (A Thumb block of 32-bit instructions only is taken for A32.)
 */
static bool guess_thumb(const struct dump *d, size_t code_len,
                        unsigned int n_insns)
{
    if (!d->dis || !disasm_has_thumb(d->dis)) {
        return false;
    }
    if (n_insns == 0) {
        return code_len % 4 != 0;
    }
    return code_len != 4 * (size_t)n_insns;
}

/*
 * Bytes a block costs, counted against the reader's memory limit: the
 * tb_trans records come from the file, as many as it holds. The hash
 * node is an estimate; the text of an instruction, made when one is
 * printed, is not counted (an exec_insn record stands for each).
 */
static uint64_t block_cost(const struct block *b)
{
    return sizeof(*b) + 64 + b->code_len +
           (uint64_t)b->n_insns * sizeof(*b->insns);
}

/*
 * Keep the code of one tb_trans record; false with err filled when out
 * of memory or of the reader's memory limit.
 */
static bool add_block(struct dump *d, const struct qtrace_record *rec,
                      struct qtrace_err *err)
{
    const struct arg_map *m = &d->args;
    uint32_t tb = (uint32_t)qtrace_record_u64(rec, (unsigned)m->tt_tb);
    const uint8_t *code;
    struct block *b;
    size_t len;

    /* tb ids are unique per translation: a second record is a copy. */
    if (g_hash_table_contains(d->blocks, GUINT_TO_POINTER(tb))) {
        return true;
    }
    code = qtrace_record_bytes(rec, (unsigned)m->tt_code, &len);
    b = calloc(1, sizeof(*b));
    if (!b) {
        qtrace_err_set(err, "%s", strerror(ENOMEM));
        return false;
    }
    b->pc = qtrace_record_u64(rec, (unsigned)m->tt_pc);
    b->code_len = code ? len : 0;
    b->code = malloc(b->code_len ? b->code_len : 1);
    if (m->tt_n_insns >= 0) {
        b->n_insns = (unsigned)qtrace_record_u64(rec,
                                                 (unsigned)m->tt_n_insns);
    }
    /*
     * The count comes from the file: an instruction past the code bytes
     * kept cannot be disassembled, so no slot is kept for it.
     */
    if (b->n_insns > b->code_len) {
        b->n_insns = (unsigned)b->code_len;
    }
    if (qtrace_reader_charge(d->rd, block_cost(b), err) < 0) {
        b->n_insns = 0;
        free_block(b);
        return false;
    }
    b->insns = calloc(b->n_insns ? b->n_insns : 1, sizeof(*b->insns));
    if (!b->code || !b->insns) {
        b->n_insns = 0;
        free_block(b);
        qtrace_err_set(err, "%s", strerror(ENOMEM));
        return false;
    }
    if (b->code_len) {
        memcpy(b->code, code, b->code_len);
    }
    b->thumb = guess_thumb(d, b->code_len, b->n_insns);
    g_hash_table_insert(d->blocks, GUINT_TO_POINTER(tb), b);
    return true;
}

/*
 * A block met before its tb_trans record. The plugin writes translations
 * before any record that uses them, so this happens only with traces of
 * other writers, or when the block has no tb_trans at all: a second
 * reader then reads on through the translation chunks alone, from where
 * it last stopped, until it finds the block or the end.
 */
static struct block *find_block_ahead(struct dump *d, uint32_t tb)
{
    uint64_t want[QTRACE_MAX_EVENTS / 64] = { 0 };
    struct qtrace_record rec;
    struct qtrace_err err;
    unsigned int id = d->args.tb_trans->id;

    if (d->ahead_done) {
        return NULL;
    }
    if (!d->ahead) {
        want[id / 64] |= 1ull << (id % 64);
        if (qtrace_reader_open(d->path, &d->ahead, &err) < 0 ||
            qtrace_reader_select(d->ahead, want, &err) < 0) {
            d->ahead_done = true;
            return NULL;
        }
    }
    /* Its catalog is a copy of d->rd's: events compare by id. */
    while (qtrace_reader_next(d->ahead, &rec, &err) > 0) {
        if (rec.ev->id == id && add_block(d, &rec, &err) &&
            (uint32_t)qtrace_record_u64(&rec, (unsigned)d->args.tt_tb) == tb) {
            return g_hash_table_lookup(d->blocks, GUINT_TO_POINTER(tb));
        }
    }
    d->ahead_done = true;
    return NULL;
}

/* Disassembly of an exec_insn record: cached per block and index. */
static const char *insn_text(struct dump *d, const struct qtrace_record *rec)
{
    const struct arg_map *m = &d->args;
    uint64_t pc = qtrace_record_u64(rec, (unsigned)m->ei_pc);
    uint32_t tb = (uint32_t)qtrace_record_u64(rec, (unsigned)m->ei_tb);
    uint64_t idx = m->ei_idx >= 0 ?
        qtrace_record_u64(rec, (unsigned)m->ei_idx) : UINT64_MAX;
    struct block *b = g_hash_table_lookup(d->blocks, GUINT_TO_POINTER(tb));
    struct insn_text *slot;
    uint64_t off;

    if (!b && d->args.tb_trans) {
        b = find_block_ahead(d, tb);
    }
    if (!b || pc < b->pc || pc - b->pc >= b->code_len) {
        return "?";
    }
    off = pc - b->pc;
    slot = idx < b->n_insns ? &b->insns[idx] : NULL;
    if (slot && slot->text && slot->off == off) {
        return slot->text;
    }
    disasm_insn(d->dis, b->code + off, b->code_len - off, pc, b->thumb,
                d->insn_buf, sizeof(d->insn_buf));
    if (slot && !slot->text) {
        /* Out of memory only costs the cache, not the output. */
        slot->text = strdup(d->insn_buf);
        slot->off = off;
    }
    return d->insn_buf;
}

/*
 * Each line is built in d->line and written with one stdio call: a call
 * per piece cost more than the formatting at millions of lines.
 */
static bool line_room(struct dump *d, size_t n)
{
    size_t cap = d->line_cap;
    char *bigger;

    if (d->line_len + n <= cap) {
        return true;
    }
    while (cap < d->line_len + n) {
        cap *= 2;
    }
    bigger = realloc(d->line, cap);
    if (!bigger) {
        return false;
    }
    d->line = bigger;
    d->line_cap = cap;
    return true;
}

/*
 * Out of memory: what is built goes out now, then the piece itself; a
 * worker, whose text goes out later in order, can only give up.
 */
static void line_add(struct dump *d, const char *s, size_t n)
{
    if (!line_room(d, n)) {
        if (d->to_pool) {
            d->out_of_memory = true;
            return;
        }
        cli_write_out(stdout, d->line, d->line_len);
        cli_write_out(stdout, s, n);
        d->line_len = 0;
        return;
    }
    memcpy(d->line + d->line_len, s, n);
    d->line_len += n;
}

static void line_str(struct dump *d, const char *s)
{
    line_add(d, s, strlen(s));
}

/* A string literal: its length is known, its copy inlined. */
#define line_lit(d, s) line_add((d), (s), sizeof(s) - 1)

/* v in decimal and then c, in place. */
static void line_u64(struct dump *d, uint64_t v, char c)
{
    unsigned int n = digits_dec_len(v);
    char buf[DIGITS_MAX + 1];

    if (!line_room(d, n + 1)) {
        buf[n] = c;
        digits_dec(buf + n, v);
        line_add(d, buf, n + 1);
        return;
    }
    d->line[d->line_len + n] = c;
    digits_dec(d->line + d->line_len + n, v);
    d->line_len += n + 1;
}

/* v in decimal and then c at p, which has room; returns the end. */
static inline char *put_dec(char *p, uint64_t v, char c)
{
    unsigned int n = digits_dec_len(v);

    p[n] = c;
    digits_dec(p + n, v);
    return p + n + 1;
}

/* " " and the formatted arguments of rec, unless there are none. */
static void line_args(struct dump *d, const struct qtrace_record *rec)
{
    const struct qtrace_fmt *fmt = d->fmts[rec->ev->id];
    size_t at = d->line_len + 1;
    int n;

    if (!line_room(d, 2)) {
        d->out_of_memory = true;
        return;
    }
    n = qtrace_fmt_record(fmt, rec, d->line + at, d->line_cap - at);
    if (n <= 0) {
        return;
    }
    if ((size_t)n >= d->line_cap - at) {
        if (line_room(d, (size_t)n + 2)) {
            qtrace_fmt_record(fmt, rec, d->line + at, d->line_cap - at);
        } else {
            n = (int)(d->line_cap - at - 1);    /* cut: out of memory */
        }
    }
    d->line[d->line_len] = ' ';
    d->line_len = at + (size_t)n;
}

/*
 * " pc 0xP tb N" of an exec_tb record whose catalog has qtrace's format
 * (et_fast): what qtrace_fmt_record prints, in a fifth of the time.
 * False when it is not one.
 */
static bool line_exec_tb(struct dump *d, const struct qtrace_record *rec)
{
    const struct qtrace_event_desc *ev = rec->ev;
    uint64_t pc;
    uint32_t tb;
    unsigned int n;
    char *p;

    if (!d->args.et_fast || rec->size < ev->fixed_size ||
        !line_room(d, 48)) {
        return false;
    }
    pc = load64(rec->data + ev->args[0].offset);
    tb = load32(rec->data + ev->args[1].offset);
    p = d->line + d->line_len;
    memcpy(p, " pc 0x", 6);
    p += 6;
    n = digits_hex_len(pc);
    digits_hex(p + n, pc);
    p += n;
    memcpy(p, " tb ", 4);
    p += 4;
    n = digits_dec_len(tb);
    digits_dec(p + n, tb);
    d->line_len = (size_t)(p + n - d->line);
    return true;
}

/* " " and a mem_access record's decoded arguments (mem-text.h). */
static void line_mem(struct dump *d, const struct qtrace_record *rec)
{
    char buf[512];
    int n;

    /* Written in place when there is room: no copy of the text. */
    if (line_room(d, MEM_TEXT_FAST_ROOM + 1)) {
        n = mem_text_fmt(&d->args.mem, rec, d->line + d->line_len + 1,
                         MEM_TEXT_FAST_ROOM);
        if (n > 0 && (unsigned int)n < MEM_TEXT_FAST_ROOM) {
            d->line[d->line_len] = ' ';
            d->line_len += 1 + (size_t)n;
            return;
        }
    }
    n = mem_text_fmt(&d->args.mem, rec, buf, sizeof(buf));

    line_lit(d, " ");
    line_add(d, buf, n > 0 && (size_t)n < sizeof(buf) ? (size_t)n
                                                       : strlen(buf));
}

/*
 * " | NAME" after a syscall, and " | NAME (ENAME)" after a failed return:
 * the four architectures with a table share Linux's generic errno values,
 * which are the host's.
 */
static void print_syscall(struct dump *d, const struct qtrace_record *rec)
{
    const struct arg_map *m = &d->args;
    bool is_ret = rec->ev == m->sys_ret;
    int64_t num = qtrace_record_i64(rec, (unsigned)(is_ret ? m->sr_num :
                                                    m->sys_num));
    const char *name = qtrace_syscall_name(d->syscalls, num);
    int64_t ret;
    const char *ename;

    line_lit(d, " | ");
    line_str(d, name ? name : "?");
    if (is_ret) {
        ret = qtrace_record_i64(rec, (unsigned)m->sr_ret);
        ename = ret < 0 && ret >= -4095 ? strerrorname_np((int)-ret) : NULL;
        if (ename) {
            line_lit(d, " (");
            line_str(d, ename);
            line_lit(d, ")");
        }
    }
}

/* The name of addr (see guest_syms_fmt), from the cache if it is there. */
static void line_symbol(struct dump *d, uint64_t addr, bool with_off)
{
    struct sym_text *t;
    char buf[320];
    size_t n;

    t = d->sym_cache ? &d->sym_cache[(addr ^ (addr >> 9)) &
                                     (SYM_CACHE_SLOTS - 1)] : NULL;
    if (t && t->len && t->addr == addr && t->with_off == with_off) {
        line_add(d, t->text, t->len);
        return;
    }
    n = strlen(guest_syms_fmt(d->syms, addr, with_off, buf, sizeof(buf)));
    line_add(d, buf, n);
    if (t && n > 0 && n <= SYM_TEXT_MAX) {
        memcpy(t->text, buf, n);
        t->len = (uint8_t)n;
        t->addr = addr;
        t->with_off = with_off;
    }
}

/* " | name" after func_* lines, " | name+0xOFF" after exec_tb lines. */
static void print_symbol(struct dump *d, const struct qtrace_record *rec)
{
    const struct arg_map *m = &d->args;
    bool with_off = false;
    int field;

    if (!d->syms) {
        return;
    }
    if (rec->ev == m->exec_tb && d->name_blocks) {
        field = m->et_pc;
        with_off = true;
    } else if (rec->ev == m->fe.entry) {
        field = m->fe.entry_pc;
    } else if (rec->ev == m->fe.exit) {
        field = m->fe.exit_pc;
    } else {
        return;
    }
    line_lit(d, " | ");
    line_symbol(d, qtrace_record_u64(rec, (unsigned)field), with_off);
}

/*
 * Append rec's line to d->line; insn is the disassembly of an exec_insn
 * record when the reading thread made it (dump -j), else NULL.
 */
static void build_line(struct dump *d, const struct qtrace_record *rec,
                       const char *insn)
{
    const size_t head = 2 * (DIGITS_MAX + 1) + sizeof(rec->ev->name);
    char *p;

    if (line_room(d, head)) {
        /* The common case, with room checked once for the three. */
        p = d->line + d->line_len;
        if (rec->vcpu == QTRACE_VCPU_NONE) {
            memcpy(p, "- ", 2);
            p += 2;
        } else {
            p = put_dec(p, rec->vcpu, ' ');
        }
        p = put_dec(p, rec->time, ' ');
        /* The whole array: a fixed size, copied without a call. */
        memcpy(p, rec->ev->name, sizeof(rec->ev->name));
        d->line_len = (size_t)(p - d->line) + d->name_len[rec->ev->id];
    } else {
        /* Translations belong to no vCPU: "-" in the vCPU column. */
        if (rec->vcpu == QTRACE_VCPU_NONE) {
            line_add(d, "- ", 2);
        } else {
            line_u64(d, rec->vcpu, ' ');
        }
        line_u64(d, rec->time, ' ');
        line_add(d, rec->ev->name, d->name_len[rec->ev->id]);
    }
    if (rec->ev == d->args.mem.ev) {
        line_mem(d, rec);
    } else if (rec->ev != d->args.exec_tb || !line_exec_tb(d, rec)) {
        line_args(d, rec);
    }
    if (rec->ev == d->args.exec_insn) {
        line_lit(d, " | ");
        if (d->dis) {
            line_str(d, insn ? insn : insn_text(d, rec));
        } else {
            line_lit(d, "(no disassembler for ");
            line_str(d, d->arch);
            line_lit(d, ")");
        }
    } else {
        print_symbol(d, rec);
    }
    if (d->syscalls && rec->ev &&
        (rec->ev == d->args.sys || rec->ev == d->args.sys_ret)) {
        print_syscall(d, rec);
    }
    if (d->line_len < d->line_cap) {
        d->line[d->line_len++] = '\n';
    } else {
        line_lit(d, "\n");
    }
}

/*
 * Lines gather in d->line up to this many bytes, then go out in one
 * write: a write per line, through stdio's three calls, cost a tenth of
 * dump -j 1.
 */
#define LINES_OUT (64u << 10)

static void lines_out(struct dump *d)
{
    cli_write_out(stdout, d->line, d->line_len);
    d->line_len = 0;
}

/*
 * A worker's lines (line-pool.h): ctx is the worker's copy of the dump,
 * which shares every table but the line and the symbol cache.
 */
static bool format_batch(void *ctx, const struct qtrace_record *recs,
                         const char *const *notes, size_t n,
                         struct line_out *out)
{
    struct dump *w = ctx;
    size_t i;

    if (!line_out_room(out, 256)) {
        return false;
    }
    w->line = out->buf;
    w->line_len = out->len;
    w->line_cap = out->cap;
    w->out_of_memory = false;
    for (i = 0; i < n; i++) {
        build_line(w, &recs[i], notes[i]);
    }
    out->buf = w->line;
    out->len = w->line_len;
    out->cap = w->line_cap;
    return !w->out_of_memory;
}

/* The workers' copies of d, or NULL when out of memory. */
static struct dump *new_workers(const struct dump *d, unsigned int n)
{
    struct dump *w = calloc(n, sizeof(*w));
    unsigned int i;

    for (i = 0; w && i < n; i++) {
        w[i] = *d;
        w[i].line = NULL;
        w[i].line_len = 0;
        w[i].line_cap = 0;
        w[i].to_pool = true;
        w[i].sym_cache = d->sym_cache ?
                         calloc(SYM_CACHE_SLOTS, sizeof(*w[i].sym_cache)) :
                         NULL;
        if (d->sym_cache && !w[i].sym_cache) {
            while (i--) {
                free(w[i].sym_cache);
            }
            free(w);
            return NULL;
        }
    }
    return w;
}

static void free_workers(struct dump *w, unsigned int n)
{
    unsigned int i;

    for (i = 0; w && i < n; i++) {
        free(w[i].sym_cache);
    }
    free(w);
}

/*
 * The reading thread reads and copies the records shown; the pool's
 * workers format them and the reading thread writes their lines in
 * order. Returns the reader's last status (qtrace_reader_next), or 2
 * when writing or formatting failed.
 */
static int read_into_pool(struct dump *d, struct line_pool *pool,
                          struct qtrace_err *err)
{
    struct qtrace_record rec;
    const char *insn;
    int ret;

    while ((ret = qtrace_reader_next(d->rd, &rec, err)) > 0) {
        if (d->keep_blocks && rec.ev == d->args.tb_trans &&
            !add_block(d, &rec, err)) {
            char why[sizeof(err->msg)];

            memcpy(why, err->msg, sizeof(why));
            qtrace_err_set(err, "chunk %" PRIu64 ": %s", rec.chunk_seq, why);
            line_pool_finish(pool);
            return -1;
        }
        if (!event_filter_has(&d->filter, rec.ev->id)) {
            continue;
        }
        /* The blocks and their caches stay on this thread. */
        insn = rec.ev == d->args.exec_insn && d->dis ? insn_text(d, &rec)
                                                     : NULL;
        if (!line_pool_add(pool, &rec, insn)) {
            line_pool_finish(pool);
            return 2;
        }
    }
    return line_pool_finish(pool) ? ret : 2;
}

/*
 * Print on n worker threads (dump -j); exec_insn records carry their
 * disassembly, made on this thread, which keeps the blocks. The status
 * of print_records, or PRINT_ALONE when the threads cannot be had.
 */
static int print_pooled(struct dump *d, unsigned int n)
{
    struct dump *w = new_workers(d, n);
    void *ctxs[64];
    struct line_pool *pool;
    struct qtrace_err err;
    unsigned int i;
    int ret;

    for (i = 0; w && i < n; i++) {
        ctxs[i] = &w[i];
    }
    pool = w ? line_pool_new(n, ctxs, format_batch, stdout) : NULL;
    if (!pool) {
        free_workers(w, n);
        return PRINT_ALONE;
    }
    ret = read_into_pool(d, pool, &err);
    free_workers(w, n);
    if (ret == 2) {
        fflush(stdout);
        if (!ferror(stdout)) {
            cli_error("dump", "%s: out of memory", d->path);
        }
        return CLI_FAIL;    /* a lost stdout is reported by main.c */
    }
    if (ret < 0) {
        fflush(stdout);
        cli_error("dump", "%s: %s", d->path, err.msg);
        return CLI_FAIL;
    }
    return trace_end_check("dump", d->path, d->rd);
}

/*
 * Print from the first record on, keeping each block's code as its
 * tb_trans passes by; then say whether the trace lacks its END.
 */
static int print_records(struct dump *d)
{
    struct qtrace_record rec;
    struct qtrace_err err;
    unsigned long n = 0;
    int ret;

    while ((ret = qtrace_reader_next(d->rd, &rec, &err)) > 0) {
        if (d->keep_blocks && rec.ev == d->args.tb_trans &&
            !add_block(d, &rec, &err)) {
            lines_out(d);
            fflush(stdout);
            cli_error("dump", "%s: chunk %" PRIu64 ": %s", d->path,
                      rec.chunk_seq, err.msg);
            return CLI_FAIL;
        }
        if (event_filter_has(&d->filter, rec.ev->id)) {
            build_line(d, &rec, NULL);
            if (d->line_len >= LINES_OUT) {
                lines_out(d);
            }
        }
        /* A lost stdout is reported by main.c; stop writing into it. */
        if (++n % WRITE_CHECK_EVERY == 0 && ferror(stdout)) {
            return CLI_FAIL;
        }
    }
    lines_out(d);
    if (ret < 0) {
        fflush(stdout);
        cli_error("dump", "%s: %s", d->path, err.msg);
        return CLI_FAIL;
    }
    /* Every record up to a cut was valid and printed: a warning. */
    return trace_end_check("dump", d->path, d->rd);
}

/*
 * "S.NNNNNNNNN " (seconds since the trace began), or "- " for none;
 * without printf, which took a third of a merged dump.
 */
static void line_host_time(struct dump *d, uint64_t ns)
{
    char frac[] = "000000000 ";     /* nine digits, zero-padded */

    if (ns == QTRACE_MERGE_NO_TIME) {
        line_lit(d, "- ");
        return;
    }
    line_u64(d, ns / 1000000000u, '.');
    digits_dec(frac + 9, ns % 1000000000u);
    line_add(d, frac, sizeof(frac) - 1);
}

/*
 * dump --merge: every stream in one order, by host time, on this thread
 * (the merge holds one reader per stream). A trace without stamps gets
 * one line saying what can be had instead.
 */
static int print_merged(struct dump *d)
{
    struct qtrace_merge *m;
    struct qtrace_record rec;
    struct qtrace_err err;
    unsigned long n = 0;
    uint64_t ns;
    int ret;

    ret = qtrace_merge_open(d->rd, d->want_all ? NULL : d->want, &m, &err);
    if (ret == -ENODATA) {
        cli_error("dump", "%s: --merge needs host clock stamps, and the "
                  "trace has none (recorded without timeline=on: record "
                  "with qtrace record --timeline); each vCPU stream has "
                  "only its own instruction count, which qtrace dump "
                  "without --merge shows stream by stream%s", d->path,
                  qtrace_catalog_find(qtrace_reader_catalog(d->rd),
                                      "order") ?
                  " (its order records, if any, order the streams at "
                  "system calls, thread starts and exits)" : "");
        return CLI_FAIL;
    }
    if (ret < 0) {
        cli_error("dump", "%s: --merge: %s", d->path, err.msg);
        return CLI_FAIL;
    }
    while ((ret = qtrace_merge_next(m, &rec, &ns, &err)) > 0) {
        if (d->keep_blocks && rec.ev == d->args.tb_trans &&
            !add_block(d, &rec, &err)) {
            fflush(stdout);
            cli_error("dump", "%s: chunk %" PRIu64 ": %s", d->path,
                      rec.chunk_seq, err.msg);
            qtrace_merge_close(m);
            return CLI_FAIL;
        }
        if (event_filter_has(&d->filter, rec.ev->id)) {
            d->line_len = 0;
            line_host_time(d, ns);
            build_line(d, &rec, NULL);
            cli_write_out(stdout, d->line, d->line_len);
        }
        if (++n % WRITE_CHECK_EVERY == 0 && ferror(stdout)) {
            qtrace_merge_close(m);
            return CLI_FAIL;
        }
    }
    if (ret < 0) {
        fflush(stdout);
        cli_error("dump", "%s: %s", d->path, err.msg);
        qtrace_merge_close(m);
        return CLI_FAIL;
    }
    ret = trace_end_check("dump", d->path, qtrace_merge_reader(m));
    qtrace_merge_close(m);
    return ret;
}

static bool shows(const struct dump *d, const struct qtrace_event_desc *ev)
{
    return ev && event_filter_has(&d->filter, ev->id);
}

/* Each event's name length and parsed format; false when out of memory. */
static bool parse_formats(struct dump *d, const struct qtrace_catalog *cat)
{
    unsigned int i;

    d->n_fmts = cat->n_events;
    for (i = 1; i <= cat->n_events; i++) {
        d->name_len[i] = (uint8_t)strlen(cat->events[i].name);
        d->fmts[i] = qtrace_fmt_new(&cat->events[i]);
        if (!d->fmts[i]) {
            return false;
        }
    }
    return true;
}

/* Open the trace and set up the filter, the catalog map and capstone. */
static int open_dump(struct dump *d, const struct dump_opts *opts)
{
    struct qtrace_err err;
    const struct qtrace_catalog *cat;

    d->path = opts->path;
    if (qtrace_reader_open(d->path, &d->rd, &err) < 0) {
        cli_error("dump", "%s: %s", d->path, err.msg);
        return CLI_FAIL;
    }
    /*
     * Lines on the terminal would tear a percentage apart; a merge reads
     * through readers of its own.
     */
    if (!isatty(STDOUT_FILENO) && !opts->merge) {
        progress_attach(d->rd, "dump");
    }
    cat = qtrace_reader_catalog(d->rd);
    if (event_filter_parse(&d->filter, cat, opts->events, &err) < 0) {
        return cli_usage("dump", "-e %s", err.msg);
    }
    map_args(&d->args, cat);
    d->arch = qtrace_reader_meta(d->rd, "arch");
    if (!d->arch) {
        d->arch = "unknown";
    }
    d->dis = disasm_new(d->arch);
    d->syscalls = qtrace_syscall_table_find(d->arch);
    if (shows(d, d->args.exec_tb) || shows(d, d->args.fe.entry) ||
        shows(d, d->args.fe.exit)) {
        d->syms = guest_syms_load(d->rd, "dump");
        if (!d->syms) {
            return CLI_FAIL;
        }
        d->name_blocks = qtrace_symbols_n_images(d->syms) > 0;
        d->sym_cache = calloc(SYM_CACHE_SLOTS, sizeof(*d->sym_cache));
    }
    d->blocks = g_hash_table_new_full(NULL, NULL, NULL, free_block);
    d->name_len = malloc(cat->n_events + 1u);
    d->fmts = calloc(cat->n_events + 1u, sizeof(*d->fmts));
    d->line_cap = 256;
    d->line = malloc(d->line_cap);
    if (!d->line || !d->name_len || !d->fmts ||
        (d->syms && !d->sym_cache) || !parse_formats(d, cat)) {
        cli_error("dump", "%s: out of memory", d->path);
        return CLI_FAIL;
    }
    return CLI_OK;
}

/*
 * Read only the chunks that hold an event shown (with the translations
 * that exec_insn lines need): `dump -e syscall` of a block trace then
 * reads a few chunks.
 */
static int select_shown(struct dump *d, bool merge)
{
    const struct qtrace_catalog *cat = qtrace_reader_catalog(d->rd);
    uint64_t *want = d->want;
    struct qtrace_err err;
    bool all = true;
    unsigned int id;

    /* Blocks are only needed to disassemble exec_insn records shown. */
    d->keep_blocks = d->dis && d->args.tb_trans && shows(d, d->args.exec_insn);
    for (id = 1; id <= cat->n_events && id < QTRACE_MAX_EVENTS; id++) {
        if (event_filter_has(&d->filter, id) ||
            (d->keep_blocks && id == d->args.tb_trans->id)) {
            want[id / 64] |= 1ull << (id % 64);
        } else {
            all = false;
        }
    }
    d->want_all = all;
    /* A merge selects in the readers it opens. */
    if (!all && !merge && qtrace_reader_select(d->rd, want, &err) < 0) {
        cli_error("dump", "%s: %s", d->path, err.msg);
        return CLI_FAIL;
    }
    return CLI_OK;
}

static void close_dump(struct dump *d)
{
    unsigned int i;

    if (d->blocks) {
        g_hash_table_destroy(d->blocks);
    }
    disasm_free(d->dis);
    qtrace_reader_close(d->ahead);
    qtrace_symbols_free(d->syms);
    free(d->line);
    free(d->name_len);
    if (d->fmts) {
        for (i = 1; i <= d->n_fmts; i++) {
            qtrace_fmt_free(d->fmts[i]);
        }
        free(d->fmts);
    }
    free(d->sym_cache);
    qtrace_reader_close(d->rd);
}

int cmd_dump(int argc, char **argv)
{
    struct dump_opts opts = { .path = NULL, .events = NULL };
    struct dump d = { .rd = NULL };
    int ret;

    if (simpletrace_named(argc, argv)) {
        return cmd_dump_simpletrace(argc, argv);
    }
    ret = parse_opts(argc, argv, &opts);

    if (ret == CLI_OK) {
        ret = open_dump(&d, &opts);
    }
    if (ret == CLI_OK) {
        ret = select_shown(&d, opts.merge);
    }
    if (ret == CLI_OK && opts.merge) {
        ret = print_merged(&d);
    } else if (ret == CLI_OK) {
        unsigned int jobs = opts.jobs ? opts.jobs :
                            line_pool_default_workers();

        /*
         * From 3 threads on, the reading gets one of its own: with 2, the
         * copy it costs is not won back (the reading thread already
         * keeps up with two formatting ones).
         */
        if (jobs > 2) {
            cli_read_ahead(d.rd, jobs);
        }
        ret = jobs > 1 ? print_pooled(&d, jobs) : PRINT_ALONE;
        if (ret == PRINT_ALONE) {
            ret = print_records(&d);
        }
    }
    close_dump(&d);
    free(opts.events);
    return ret;
}
