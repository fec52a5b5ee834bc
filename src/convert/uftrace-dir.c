/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The uftrace data directory writer (see uftrace-dir.h). Layout, as
 * uftrace 0.13 reads it (trace-formats.md section 1):
 *
 *   <tid>.dat      16-byte records: u64 time, then one u64 word
 *                  type | more << 2 | 5 << 3 | depth << 6 | addr << 16
 *                  (type 0 entry, 1 exit; depth 10 bits, 0 = outermost;
 *                  addr 48 bits)
 *   info           40-byte header ("Ftrace!\0", version 4, feature
 *                  TASK_SESSION), then the text sections of the info
 *                  mask in bit order: exename, cmdline, taskinfo
 *   task.txt       one SESS line, then one TASK line per task
 *   sid-0.map      one line per image, then the [stack] line at
 *                  ffffffffffff that puts every 48-bit address in user
 *                  space
 *   events.txt     "EVENT: <id> <provider>:<event>" per user event
 *                  (type 3 records, id from 1000000 up: uftrace's user
 *                  events; it shows their names, not their values)
 *   <module>.sym   "<offset> T <name>" sorted by offset from the image's
 *                  map start; "<offset> ? __sym_end" ends a symbol that
 *                  the next one does not start right after (setjmp,
 *                  longjmp and exec names get a '_': see fixup_names);
 *                  a function entered where no symbol is gets the name
 *                  "<module>+0x<ELF address>", up to the next name
 */
#include <dirent.h>
#include <endian.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "qtrace/callstack.h"
#include "uftrace-dir.h"

#define ADDR_MASK UINT64_C(0xffffffffffff)    /* uftrace keeps 48 bits */
#define DEPTH_MAX 1023u                 /* 10 bits */
#define MAX_OPEN 64                     /* .dat files open at once */
#define FEAT_TASK_SESSION (1ull << 1)
#define FEAT_EVENT (1ull << 7)
#define TYPE_EVENT 3u
#define EVENT_ID_USER 1000000u          /* uftrace's first user event id */
#define MAX_EVENTS 1024                 /* a trace's catalog ids */
#define INFO_EXE_NAME (1ull << 0)
#define INFO_CMDLINE (1ull << 3)
#define INFO_TASKINFO (1ull << 7)

struct task {
    uint32_t tid;                   /* vCPU stream id */
    FILE *f;                        /* <tid>.dat while open */
    uint64_t last_use;              /* for closing the least recent */
    uint64_t first_time;            /* time of its first record */
    uint64_t last_time;             /* time of its latest record */
    uint64_t records;               /* .dat records written */
    struct qtrace_callstack cs;
};

/* The addresses functions were entered at, each once (open addressing). */
struct pc_set {
    uint64_t *slots;                /* 0: empty (no function is at 0) */
    size_t n, cap;                  /* cap: a power of 2, or 0 */
};

struct uftrace_dir {
    char *dir;
    struct pc_set entered;
    struct task *tasks;
    size_t n_tasks, cap_tasks;
    size_t last;                    /* index of the last task used */
    size_t n_open;                  /* tasks with f open */
    uint64_t use_clock;
    int write_err;                  /* first failed write, -errno */
    char write_what[64];            /* the file it failed on */
    char *event_names[MAX_EVENTS];  /* user events met, by catalog id */
    bool any_event;
};

static size_t pc_hash(uint64_t pc, size_t cap)
{
    return (size_t)((pc * UINT64_C(0x9e3779b97f4a7c15)) >> 20) & (cap - 1);
}

/* Add pc; -ENOMEM when the set cannot grow (the name is then lost). */
static int pc_set_add(struct pc_set *set, uint64_t pc)
{
    size_t i;

    if (!pc) {
        return 0;
    }
    if (2 * (set->n + 1) > set->cap) {
        struct pc_set bigger = { NULL, 0, set->cap ? 2 * set->cap : 1024 };

        bigger.slots = calloc(bigger.cap, sizeof(*bigger.slots));
        if (!bigger.slots) {
            return -ENOMEM;
        }
        for (i = 0; i < set->cap; i++) {
            if (set->slots[i]) {
                pc_set_add(&bigger, set->slots[i]);
            }
        }
        free(set->slots);
        *set = bigger;
    }
    for (i = pc_hash(pc, set->cap); set->slots[i];
         i = (i + 1) & (set->cap - 1)) {
        if (set->slots[i] == pc) {
            return 0;
        }
    }
    set->slots[i] = pc;
    set->n++;
    return 0;
}

/* A .dat record of any type: 0 entry, 1 exit, 3 event. */
static void fmt_typed_record(uint8_t out[16], uint64_t time, unsigned int type,
                             uint32_t depth, uint64_t addr)
{
    uint64_t word = type | 5u << 3 |
                    (uint64_t)(depth > DEPTH_MAX ? DEPTH_MAX : depth) << 6 |
                    (addr & ADDR_MASK) << 16;
    uint64_t t = htole64(time);

    word = htole64(word);
    memcpy(out, &t, 8);
    memcpy(out + 8, &word, 8);
}

void uftrace_dir_fmt_record(uint8_t out[16], uint64_t time, bool exit,
                            uint32_t depth, uint64_t addr)
{
    uint64_t word = (exit ? 1u : 0u) | 5u << 3 |
                    (uint64_t)(depth > DEPTH_MAX ? DEPTH_MAX : depth) << 6 |
                    (addr & ADDR_MASK) << 16;
    uint64_t t = htole64(time);

    word = htole64(word);
    memcpy(out, &t, 8);
    memcpy(out + 8, &word, 8);
}

/* Whether dir/info starts with uftrace's magic: a uftrace directory. */
static bool is_uftrace_dir(const char *dir)
{
    char path[4096], magic[8];
    FILE *f;
    bool yes;

    snprintf(path, sizeof(path), "%s/info", dir);
    f = fopen(path, "rb");
    if (!f) {
        return false;
    }
    yes = fread(magic, 1, sizeof(magic), f) == sizeof(magic) &&
          memcmp(magic, "Ftrace!", 8) == 0;
    fclose(f);
    return yes;
}

bool uftrace_dir_is_reusable(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *de;
    bool empty = true;

    if (!d) {
        return false;
    }
    while (empty && (de = readdir(d)) != NULL) {
        empty = strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0;
    }
    closedir(d);
    return empty || is_uftrace_dir(dir);
}

/*
 * An existing directory is reused only when empty or when it holds a
 * uftrace data directory (then its files are removed, or stale tasks and
 * modules would mix in); anything else is refused, never cleaned.
 */
static int reuse_dir(const char *dir, struct qtrace_err *err)
{
    DIR *d = opendir(dir);
    struct dirent *de;
    bool uftrace = is_uftrace_dir(dir);

    if (!d) {
        int e = errno;

        qtrace_err_set(err, "%s: %s", dir, strerror(e));
        return -e;
    }
    while ((de = readdir(d)) != NULL) {
        const char *n = de->d_name;
        size_t len = strlen(n);

        if (strcmp(n, ".") == 0 || strcmp(n, "..") == 0) {
            continue;
        }
        if (!uftrace) {
            closedir(d);
            qtrace_err_set(err, "%s: exists and is no uftrace data "
                           "directory (not overwritten)", dir);
            return -EEXIST;
        }
        if ((len > 4 && strcmp(n + len - 4, ".dat") == 0) ||
            (len > 4 && strcmp(n + len - 4, ".sym") == 0) ||
            (strncmp(n, "sid-", 4) == 0 && len > 8 &&
             strcmp(n + len - 4, ".map") == 0) ||
            strcmp(n, "info") == 0 || strcmp(n, "task.txt") == 0) {
            unlinkat(dirfd(d), n, 0);
        }
    }
    closedir(d);
    return 0;
}

int uftrace_dir_open(struct uftrace_dir **out, const char *dir,
                     struct qtrace_err *err)
{
    struct uftrace_dir *u;
    struct stat st;
    int ret = 0;

    if (mkdir(dir, 0755) < 0) {
        ret = -errno;
        if (errno == EEXIST && stat(dir, &st) == 0) {
            if (!S_ISDIR(st.st_mode)) {
                ret = -ENOTDIR;
            } else if ((ret = reuse_dir(dir, err)) < 0) {
                return ret;
            }
        }
    }
    if (ret < 0) {
        qtrace_err_set(err, "%s: %s", dir, strerror(-ret));
        return ret;
    }
    u = calloc(1, sizeof(*u));
    if (!u || !(u->dir = strdup(dir))) {
        free(u);
        qtrace_err_set(err, "%s: %s", dir, strerror(ENOMEM));
        return -ENOMEM;
    }
    *out = u;
    return 0;
}

static struct task *find_task(struct uftrace_dir *u, uint32_t tid)
{
    size_t i;

    if (u->n_tasks && u->tasks[u->last].tid == tid) {
        return &u->tasks[u->last];
    }
    for (i = 0; i < u->n_tasks; i++) {
        if (u->tasks[i].tid == tid) {
            u->last = i;
            return &u->tasks[i];
        }
    }
    if (u->n_tasks == u->cap_tasks) {
        size_t cap = u->cap_tasks ? 2 * u->cap_tasks : 16;
        void *grown = realloc(u->tasks, cap * sizeof(*u->tasks));

        if (!grown) {
            return NULL;
        }
        u->tasks = grown;
        u->cap_tasks = cap;
    }
    u->last = u->n_tasks++;
    memset(&u->tasks[u->last], 0, sizeof(struct task));
    u->tasks[u->last].tid = tid;
    qtrace_callstack_init(&u->tasks[u->last].cs);
    return &u->tasks[u->last];
}

static void close_task_file(struct uftrace_dir *u, struct task *t)
{
    if (t->f) {
        if (fclose(t->f) != 0 && !u->write_err) {
            u->write_err = -errno;
            snprintf(u->write_what, sizeof(u->write_what), "%u.dat",
                     t->tid);
        }
        t->f = NULL;
        u->n_open--;
    }
}

/* t's .dat, opened (created on first use) if needed; NULL on error. */
static FILE *task_file(struct uftrace_dir *u, struct task *t)
{
    char path[4096];
    size_t i, oldest = 0;

    t->last_use = ++u->use_clock;
    if (t->f) {
        return t->f;
    }
    if (u->n_open >= MAX_OPEN) {
        /* Many threads: reopen in append mode later rather than fail. */
        for (i = 0; i < u->n_tasks; i++) {
            if (u->tasks[i].f && (!u->tasks[oldest].f ||
                u->tasks[i].last_use < u->tasks[oldest].last_use)) {
                oldest = i;
            }
        }
        close_task_file(u, &u->tasks[oldest]);
    }
    snprintf(path, sizeof(path), "%s/%u.dat", u->dir, t->tid);
    t->f = fopen(path, t->records ? "a" : "w");
    if (t->f) {
        u->n_open++;
    }
    return t->f;
}

static void write_typed(struct uftrace_dir *u, struct task *t, uint64_t time,
                        unsigned int type, uint32_t depth, uint64_t addr)
{
    uint8_t rec[16];
    FILE *f;

    if (u->write_err) {
        return;
    }
    f = task_file(u, t);
    fmt_typed_record(rec, time, type, depth ? depth - 1 : 0, addr);
    if (!f || fwrite(rec, sizeof(rec), 1, f) != 1) {
        u->write_err = errno ? -errno : -EIO;
        snprintf(u->write_what, sizeof(u->write_what), "%u.dat", t->tid);
        return;
    }
    if (!t->records++) {
        t->first_time = time;
    }
}

static void write_record(struct uftrace_dir *u, struct task *t, uint64_t time,
                         bool exit, uint32_t depth, uint64_t addr)
{
    write_typed(u, t, time, exit ? 1u : 0u, depth, addr);
}

/* The callstack's reports become records; arg is (dir, task). */
struct emit_ctx {
    struct uftrace_dir *u;
    struct task *t;
};

static void on_enter(void *arg, const struct qtrace_frame *f, uint32_t depth)
{
    struct emit_ctx *c = arg;

    write_record(c->u, c->t, f->start, false, depth, f->pc);
}

static void on_leave(void *arg, const struct qtrace_frame *f, uint32_t depth,
                     uint64_t time, bool forced)
{
    struct emit_ctx *c = arg;

    (void)forced;
    write_record(c->u, c->t, time, true, depth, f->pc);
}

static const struct qtrace_callstack_ops emit_ops = { on_enter, on_leave };

static int report_write_err(const struct uftrace_dir *u,
                            struct qtrace_err *err)
{
    if (u->write_err) {
        qtrace_err_set(err, "%s/%s: %s", u->dir, u->write_what,
                       strerror(-u->write_err));
    }
    return u->write_err;
}

int uftrace_dir_entry(struct uftrace_dir *u, uint32_t tid, uint64_t time,
                      uint64_t pc, uint32_t depth, struct qtrace_err *err)
{
    struct emit_ctx c = { u, find_task(u, tid) };

    if (!c.t || pc_set_add(&u->entered, pc) < 0 ||
        qtrace_callstack_enter(&c.t->cs, pc, 0, depth, time,
                               &emit_ops, &c) < 0) {
        qtrace_err_set(err, "%s: %s", u->dir, strerror(ENOMEM));
        return -ENOMEM;
    }
    c.t->last_time = time;
    return report_write_err(u, err);
}

int uftrace_dir_exit(struct uftrace_dir *u, uint32_t tid, uint64_t time,
                     uint64_t pc, struct qtrace_err *err)
{
    struct emit_ctx c = { u, find_task(u, tid) };

    if (!c.t) {
        qtrace_err_set(err, "%s: %s", u->dir, strerror(ENOMEM));
        return -ENOMEM;
    }
    qtrace_callstack_leave(&c.t->cs, pc, time, &emit_ops, &c);
    c.t->last_time = time;
    return report_write_err(u, err);
}

int uftrace_dir_event(struct uftrace_dir *u, uint32_t tid, uint64_t time,
                      unsigned int id, const char *name,
                      struct qtrace_err *err)
{
    struct task *t = find_task(u, tid);

    if (id >= MAX_EVENTS) {
        qtrace_err_set(err, "%s: event id %u out of range", u->dir, id);
        return -EINVAL;
    }
    if (!u->event_names[id]) {
        u->event_names[id] = strdup(name);
    }
    if (!t || !u->event_names[id]) {
        qtrace_err_set(err, "%s: %s", u->dir, strerror(ENOMEM));
        return -ENOMEM;
    }
    u->any_event = true;
    /* At the depth of the function it happened in, as uftrace shows it. */
    write_typed(u, t, time, TYPE_EVENT, t->cs.depth + 1, EVENT_ID_USER + id);
    if (time > t->last_time) {
        t->last_time = time;
    }
    return report_write_err(u, err);
}

void uftrace_dir_seen(struct uftrace_dir *u, uint32_t tid, uint64_t time)
{
    size_t i;

    if (u->n_tasks && u->tasks[u->last].tid == tid) {
        if (time > u->tasks[u->last].last_time) {
            u->tasks[u->last].last_time = time;
        }
        return;
    }
    /* Only streams with functions become tasks: no new task here. */
    for (i = 0; i < u->n_tasks; i++) {
        if (u->tasks[i].tid == tid) {
            if (time > u->tasks[i].last_time) {
                u->tasks[i].last_time = time;
            }
            return;
        }
    }
}

void uftrace_dir_free(struct uftrace_dir *u)
{
    size_t i;

    if (!u) {
        return;
    }
    for (i = 0; i < u->n_tasks; i++) {
        close_task_file(u, &u->tasks[i]);
        qtrace_callstack_fini(&u->tasks[i].cs);
    }
    for (i = 0; i < MAX_EVENTS; i++) {
        free(u->event_names[i]);
    }
    free(u->tasks);
    free(u->entered.slots);
    free(u->dir);
    free(u);
}

/* ---- closing files ---- */

/* A file of the directory opened for writing, or NULL with err set. */
static FILE *open_out(const struct uftrace_dir *u, const char *name,
                      struct qtrace_err *err)
{
    char path[4096];
    FILE *f;

    snprintf(path, sizeof(path), "%s/%s", u->dir, name);
    f = fopen(path, "w");
    if (!f) {
        qtrace_err_set(err, "%s: %s", path, strerror(errno));
    }
    return f;
}

static int close_out(const struct uftrace_dir *u, FILE *f, const char *name,
                     struct qtrace_err *err)
{
    int bad = ferror(f);
    int ret = fclose(f);

    if (bad || ret != 0) {
        qtrace_err_set(err, "%s/%s: %s", u->dir, name,
                       strerror(errno ? errno : EIO));
        return -EIO;
    }
    return 0;
}

static void put_le(uint8_t *p, uint64_t v, size_t n)
{
    size_t i;

    for (i = 0; i < n; i++) {
        p[i] = (uint8_t)(v >> (8 * i));
    }
}

/* Tasks with records, by tid: those uftrace is told about. */
static int cmp_task(const void *a, const void *b)
{
    const struct task *ta = a;
    const struct task *tb = b;

    return ta->tid < tb->tid ? -1 : ta->tid > tb->tid;
}

static int write_info(const struct uftrace_dir *u,
                      const struct uftrace_dir_meta *meta, size_t n_live,
                      struct qtrace_err *err)
{
    uint8_t hdr[40] = "Ftrace!";
    FILE *f = open_out(u, "info", err);
    size_t i, k = 0;

    if (!f) {
        return -EIO;
    }
    put_le(hdr + 8, 4, 4);              /* version */
    put_le(hdr + 12, sizeof(hdr), 2);   /* header size */
    hdr[14] = 1;                        /* little-endian records */
    hdr[15] = meta->word_bits == 32 ? 1 : 2;    /* ELF class */
    put_le(hdr + 16, FEAT_TASK_SESSION | (u->any_event ? FEAT_EVENT : 0), 8);
    put_le(hdr + 24, INFO_EXE_NAME | INFO_CMDLINE | INFO_TASKINFO, 8);
    put_le(hdr + 32, DEPTH_MAX + 1, 2); /* max_stack */
    fwrite(hdr, sizeof(hdr), 1, f);
    /* The sections, in info-mask bit order. */
    fprintf(f, "exename:%s\ncmdline:%s\n", meta->exename, meta->cmdline);
    fprintf(f, "taskinfo:lines=2\ntaskinfo:nr_tid=%zu\ntaskinfo:tids=",
            n_live);
    for (i = 0; i < u->n_tasks; i++) {
        if (u->tasks[i].records) {
            fprintf(f, "%s%u", k++ ? "," : "", u->tasks[i].tid);
        }
    }
    fputc('\n', f);
    return close_out(u, f, "info", err);
}

/* One session (the guest program), one task per stream with records. */
static int write_tasks(const struct uftrace_dir *u,
                       const struct uftrace_dir_meta *meta,
                       struct qtrace_err *err)
{
    FILE *f = open_out(u, "task.txt", err);
    uint32_t pid = 0;
    size_t i;

    if (!f) {
        return -EIO;
    }
    for (i = 0; i < u->n_tasks; i++) {
        const struct task *t = &u->tasks[i];

        if (!t->records) {
            continue;
        }
        if (!pid) {
            pid = t->tid;
            fprintf(f, "SESS timestamp=0.000000000 pid=%u sid=0 "
                    "exename=\"%s\"\n", pid, meta->exename);
        }
        fprintf(f, "TASK timestamp=%" PRIu64 ".%09" PRIu64 " tid=%u "
                "pid=%u\n", t->first_time / 1000000000u,
                t->first_time % 1000000000u, t->tid, pid);
    }
    return close_out(u, f, "task.txt", err);
}

/*
 * Names that uftrace 0.13 treats specially when it replays (its "fixup"
 * list, matched exactly): at a longjmp it resets the call depth to the
 * last setjmp's, and at an exec to 0, because its own recorder never
 * sees the frames these functions leave. qtrace records those exits, so
 * the reset would shift every later line: such names get a trailing '_'.
 */
static const char *const fixup_names[] = {
    "setjmp", "_setjmp", "sigsetjmp", "__sigsetjmp",
    "longjmp", "siglongjmp", "__longjmp_chk",
    "execl", "execlp", "execle", "execv", "execvp", "execvpe",
};

static const char *sym_suffix(const char *name)
{
    size_t i;

    for (i = 0; i < sizeof(fixup_names) / sizeof(fixup_names[0]); i++) {
        if (strcmp(name, fixup_names[i]) == 0) {
            return "_";
        }
    }
    return "";
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

    return x < y ? -1 : x > y;
}

/*
 * The entered addresses of image im that no symbol names, sorted; *n
 * gets their count. NULL when there are none (or no memory: they then
 * stay unnamed).
 */
static uint64_t *unnamed_entries(const struct uftrace_dir *u,
                                 const struct qtrace_symbols *syms,
                                 const struct qtrace_image *im, size_t *n)
{
    uint64_t *pcs = NULL;
    size_t i;

    *n = 0;
    for (i = 0; i < u->entered.cap; i++) {
        uint64_t pc = u->entered.slots[i];

        if (!pc || pc < im->start || pc >= im->end ||
            qtrace_symbols_lookup(syms, pc, NULL)) {
            continue;
        }
        if (!pcs && !(pcs = malloc(u->entered.n * sizeof(*pcs)))) {
            return NULL;
        }
        pcs[(*n)++] = pc;
    }
    if (*n) {
        qsort(pcs, *n, sizeof(*pcs), cmp_u64);
    }
    return pcs;
}

/* One "T" line, after a "__sym_end" line if the last symbol ended before. */
static void put_sym(FILE *f, uint64_t rel, uint64_t end, const char *name,
                    const char *suffix, uint64_t *prev_end, bool *any)
{
    if (*any && *prev_end < rel) {
        fprintf(f, "%016" PRIx64 " ? __sym_end\n", *prev_end);
    }
    fprintf(f, "%016" PRIx64 " T %s%s\n", rel, name, suffix);
    *prev_end = end;
    *any = true;
}

/*
 * <module>.sym of one image: offsets from the image's map start, the
 * image's symbols merged with its unnamed entered addresses. A gap after
 * a symbol gets a "? __sym_end" line, or uftrace would stretch the
 * symbol up to the next one; an unnamed entry runs to the next line.
 */
static int write_syms(const struct uftrace_dir *u, const char *module,
                      const struct qtrace_symbols *syms,
                      const struct qtrace_image *im, struct qtrace_err *err)
{
    const char *base = strrchr(im->path, '/') ? strrchr(im->path, '/') + 1
                                               : im->path;
    uint64_t span = im->end - im->start, prev_end = 0;
    char name[300];
    size_t i = 0, k = 0, n_pcs;
    uint64_t *pcs = unnamed_entries(u, syms, im, &n_pcs);
    bool any = false;
    FILE *f;

    snprintf(name, sizeof(name), "%s.sym", module);
    f = open_out(u, name, err);
    if (!f) {
        free(pcs);
        return -EIO;
    }
    while (i < im->n_syms || k < n_pcs) {
        uint64_t at = i < im->n_syms ? im->syms[i].addr + im->bias
                                     : UINT64_MAX;
        uint64_t rel, end;
        char text[64];

        if (k < n_pcs && pcs[k] < at) {
            rel = pcs[k] - im->start;
            end = k + 1 < n_pcs && pcs[k + 1] < at ? pcs[k + 1] : at;
            end = (end > im->end ? im->end : end) - im->start;
            snprintf(text, sizeof(text), "+0x%" PRIx64, pcs[k] - im->bias);
            snprintf(name, sizeof(name), "%s%s", base, text);
            put_sym(f, rel, end, name, "", &prev_end, &any);
            k++;
            continue;
        }
        i++;
        if (at < im->start || at >= im->end) {
            continue;
        }
        rel = at - im->start;
        end = rel + im->syms[i - 1].size;
        if (end > span || end < rel) {
            end = span;
        }
        put_sym(f, rel, end, im->syms[i - 1].name,
                sym_suffix(im->syms[i - 1].name), &prev_end, &any);
    }
    if (any) {
        fprintf(f, "%016" PRIx64 " ? __sym_end\n", prev_end);
    }
    free(pcs);
    snprintf(name, sizeof(name), "%s.sym", module);
    return close_out(u, f, name, err);
}

/*
 * The module name of image i: its path's basename, made unique with
 * "#N" when an earlier image has the same one (uftrace finds a module's
 * symbols by basename). *suffix gets "" or "#N" for the map line.
 */
static void module_name(const struct qtrace_symbols *syms, size_t i,
                        char *name, size_t len, char *suffix, size_t slen)
{
    struct qtrace_image im, other;
    const char *base;
    unsigned int dup = 1;
    size_t j;

    qtrace_symbols_image(syms, i, &im);
    base = strrchr(im.path, '/') ? strrchr(im.path, '/') + 1 : im.path;
    for (j = 0; j < i; j++) {
        const char *ob;

        qtrace_symbols_image(syms, j, &other);
        ob = strrchr(other.path, '/') ? strrchr(other.path, '/') + 1
                                      : other.path;
        if (other.loaded && strcmp(ob, base) == 0) {
            dup++;
        }
    }
    suffix[0] = '\0';
    if (dup > 1) {
        snprintf(suffix, slen, "#%u", dup);
    }
    snprintf(name, len, "%s%s", base, suffix);
}

static int write_maps(const struct uftrace_dir *u,
                      const struct qtrace_symbols *syms,
                      struct qtrace_err *err)
{
    FILE *f = open_out(u, "sid-0.map", err);
    size_t i, n = qtrace_symbols_n_images(syms);
    int ret = 0;

    if (!f) {
        return -EIO;
    }
    for (i = 0; i < n && ret == 0; i++) {
        struct qtrace_image im;
        char name[256], suffix[16];

        qtrace_symbols_image(syms, i, &im);
        /* Without symbols uftrace would read the file itself: leave it. */
        if (!im.loaded) {
            continue;
        }
        module_name(syms, i, name, sizeof(name), suffix, sizeof(suffix));
        fprintf(f, "%012" PRIx64 "-%012" PRIx64 " r-xp %08" PRIx64
                " 00:00 0 %s%s\n", im.start & ADDR_MASK,
                im.end & ADDR_MASK, im.offset, im.path, suffix);
        ret = write_syms(u, name, syms, &im, err);
    }
    fprintf(f, "ffffffffffff-ffffffffffff rw-p 00000000 00:00 0 [stack]\n");
    if (ret < 0) {
        fclose(f);
        return ret;
    }
    return close_out(u, f, "sid-0.map", err);
}

/* events.txt: the user events' names, provider:event, by uftrace id. */
static int write_events(const struct uftrace_dir *u, struct qtrace_err *err)
{
    FILE *f;
    size_t i;

    if (!u->any_event) {
        return 0;
    }
    f = open_out(u, "events.txt", err);
    if (!f) {
        return -EIO;
    }
    for (i = 0; i < MAX_EVENTS; i++) {
        if (u->event_names[i]) {
            fprintf(f, "EVENT: %zu %s\n", EVENT_ID_USER + i,
                    u->event_names[i]);
        }
    }
    return close_out(u, f, "events.txt", err);
}

int uftrace_dir_close(struct uftrace_dir *u,
                      const struct uftrace_dir_meta *meta,
                      const struct qtrace_symbols *syms,
                      struct qtrace_err *err)
{
    struct uftrace_dir_meta m = *meta;
    size_t i, n_live = 0;
    int ret;

    if (!m.exename || !m.exename[0]) {
        m.exename = "guest";
    }
    if (!m.cmdline || !m.cmdline[0]) {
        m.cmdline = m.exename;
    }
    for (i = 0; i < u->n_tasks; i++) {
        struct emit_ctx c = { u, &u->tasks[i] };

        qtrace_callstack_close(&c.t->cs, c.t->last_time, &emit_ops, &c);
    }
    for (i = 0; i < u->n_tasks; i++) {
        close_task_file(u, &u->tasks[i]);
        n_live += u->tasks[i].records != 0;
    }
    ret = report_write_err(u, err);
    if (u->n_tasks) {
        qsort(u->tasks, u->n_tasks, sizeof(*u->tasks), cmp_task);
    }
    if (ret == 0) {
        ret = write_info(u, &m, n_live, err);
    }
    if (ret == 0) {
        ret = write_tasks(u, &m, err);
    }
    if (ret == 0) {
        ret = write_maps(u, syms, err);
    }
    if (ret == 0) {
        ret = write_events(u, err);
    }
    uftrace_dir_free(u);
    return ret;
}
