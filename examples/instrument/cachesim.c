/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Example instrumentation library: an L1 data cache simulator. Every
 * guest load and store goes through a set-associative cache with LRU
 * replacement, one cache per vCPU (as each core has its own L1); hits and
 * misses are counted per guest function.
 *
 * Arguments (instr-arg=):
 *   size=N      cache size in bytes, K and M suffixes (default 32K)
 *   assoc=N     ways per set (default 8)
 *   line=N      line size in bytes, a power of two (default 64)
 *   range=A-B   only accesses of instructions in [A, B) (repeatable)
 *   out=FILE    the table (default stderr)
 *
 * The model is cachegrind's D1: a store allocates its line like a load;
 * an access that straddles two lines references both and counts as one
 * access, a miss if either line misses. Accesses to devices (system
 * mode, API 1.1's is_io) bypass the cache and are counted apart.
 *
 * The function of an access is the guest function holding its
 * instruction, found once per instruction at translation time with the
 * host's symbol call: it costs nothing per access, and it is how
 * cachegrind attributes accesses too. Instructions outside any symbol
 * (system mode: all) count under "?".
 *
 * Output, at exit:
 *   cache size S assoc A line L sets N
 *   total refs R reads R writes W misses M read_misses M write_misses M
 *   io N                                  (device accesses, if any)
 *   device NAME N                         (per device)
 *   function NAME refs R misses M read_misses M write_misses M
 * functions sorted by misses, then references, most first.
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qtrace/instrument.h"
#include "out-file.h"

QTRACE_INSTR_DECLARE();

#define MAX_VCPUS 1024
#define MAX_RANGES 16
#define MAX_DEVICES 32

/* Counters of one function; vCPUs add to them concurrently (atomics). */
struct func {
    const char *name;
    uint64_t reads, writes;
    uint64_t read_misses, write_misses;
    uint64_t io;
    struct func *next;
};

/* One vCPU's cache: sets x assoc line numbers, most recently used first. */
struct cache {
    uint64_t *tags;             /* UINT64_MAX: empty way */
};

static const struct qtrace_instr_host *host;
static FILE *out;
static uint64_t cache_size = 32768, assoc = 8, line_size = 64;
static uint64_t n_sets;
static unsigned int line_bits;
static struct {
    uint64_t start, end;
} ranges[MAX_RANGES];
static unsigned int n_ranges;

static struct cache *caches[MAX_VCPUS];
static struct func *funcs;      /* all functions, under funcs_lock */
static pthread_mutex_t funcs_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
    const char *name;
    uint64_t count;
} devices[MAX_DEVICES];
static pthread_mutex_t devices_lock = PTHREAD_MUTEX_INITIALIZER;

/* ---- the cache ---- */

static struct cache *cache_of(unsigned int vcpu)
{
    struct cache *c;
    uint64_t i;

    if (vcpu >= MAX_VCPUS) {
        return NULL;
    }
    if (caches[vcpu]) {
        return caches[vcpu];
    }
    /* Once per vCPU, on its own thread: nobody else writes this slot. */
    c = malloc(sizeof(*c));
    if (!c) {
        return NULL;
    }
    c->tags = malloc(n_sets * assoc * sizeof(uint64_t));
    if (!c->tags) {
        free(c);
        return NULL;
    }
    for (i = 0; i < n_sets * assoc; i++) {
        c->tags[i] = UINT64_MAX;
    }
    caches[vcpu] = c;
    return c;
}

/*
 * Reference line number `block`: true on a miss. The set's ways are kept
 * in LRU order; the block moves to the front, a miss drops the last.
 */
static bool ref_misses(struct cache *c, uint64_t block)
{
    uint64_t *way = &c->tags[(block & (n_sets - 1)) * assoc];
    uint64_t i;
    bool hit;

    for (i = 0; i < assoc && way[i] != block; i++) {
    }
    hit = i < assoc;
    if (!hit) {
        i = assoc - 1;          /* the least recently used goes */
    }
    memmove(&way[1], &way[0], i * sizeof(*way));
    way[0] = block;
    return !hit;
}

/* Both lines of a straddling access are referenced: state changes. */
static bool access_misses(struct cache *c, uint64_t addr, unsigned int size)
{
    uint64_t first = addr >> line_bits;
    uint64_t last = (addr + (size ? size : 1) - 1) >> line_bits;
    bool miss = false;
    uint64_t b;

    for (b = first; b <= last; b++) {
        miss |= ref_misses(c, b);
    }
    return miss;
}

/* ---- execution ---- */

static void count_device(const char *name)
{
    unsigned int i;

    pthread_mutex_lock(&devices_lock);
    for (i = 0; i < MAX_DEVICES && devices[i].name &&
         strcmp(devices[i].name, name) != 0; i++) {
    }
    if (i < MAX_DEVICES) {
        devices[i].name = name;
        devices[i].count++;
    }
    pthread_mutex_unlock(&devices_lock);
}

static void accessed(unsigned int vcpu, const struct qtrace_instr_mem *a,
                     void *udata)
{
    struct func *f = udata;
    struct cache *c;
    bool miss;

    /* Device registers are not cached (a 1.0 host never sets is_io). */
    if (host->api_version >= QTRACE_INSTR_API_VERSION && a->is_io) {
        __atomic_fetch_add(&f->io, 1, __ATOMIC_RELAXED);
        count_device(a->device ? a->device : "?");
        return;
    }
    c = cache_of(vcpu);
    if (!c) {
        return;
    }
    miss = access_misses(c, a->vaddr, a->size);
    __atomic_fetch_add(a->store ? &f->writes : &f->reads, 1,
                       __ATOMIC_RELAXED);
    if (miss) {
        __atomic_fetch_add(a->store ? &f->write_misses : &f->read_misses,
                           1, __ATOMIC_RELAXED);
    }
}

/* ---- translation ---- */

static bool in_ranges(uint64_t pc)
{
    unsigned int i;

    for (i = 0; i < n_ranges; i++) {
        if (pc >= ranges[i].start && pc < ranges[i].end) {
            return true;
        }
    }
    return n_ranges == 0;
}

/* The counters of the function named name (NULL: "?"), made once. */
static struct func *func_named(const char *name)
{
    struct func *f;

    name = name ? name : "?";
    pthread_mutex_lock(&funcs_lock);
    for (f = funcs; f && strcmp(f->name, name) != 0; f = f->next) {
    }
    if (!f) {
        f = calloc(1, sizeof(*f));
        if (f) {
            f->name = name;
            f->next = funcs;
            funcs = f;
        }
    }
    pthread_mutex_unlock(&funcs_lock);
    return f;
}

static void translated(struct qtrace_instr_tb *tb, void *data)
{
    uint32_t i, n = host->tb_n_insns(tb);

    (void)data;
    for (i = 0; i < n; i++) {
        uint64_t pc = host->insn_vaddr(tb, i);
        const char *name = NULL;
        struct func *f;

        if (!in_ranges(pc)) {
            continue;
        }
        host->symbol(pc, &name, NULL);
        f = func_named(name);
        if (f) {
            host->exec_mem(host, tb, i, QTRACE_INSTR_LOADS_STORES, accessed,
                           f);
        }
    }
}

/* ---- set-up and results ---- */

/* "32K", "1M", "64": bytes; false if not a positive number. */
static bool parse_size(const char *s, uint64_t *v)
{
    char *end;
    unsigned long long n = strtoull(s, &end, 0);

    if (end == s || n == 0) {
        return false;
    }
    if (*end == 'K' || *end == 'k') {
        n <<= 10;
        end++;
    } else if (*end == 'M' || *end == 'm') {
        n <<= 20;
        end++;
    }
    *v = n;
    return *end == '\0';
}

static bool parse_range(const char *s)
{
    char *end;

    if (n_ranges == MAX_RANGES) {
        return false;
    }
    ranges[n_ranges].start = strtoull(s, &end, 0);
    if (*end != '-') {
        return false;
    }
    s = end + 1;
    ranges[n_ranges].end = strtoull(s, &end, 0);
    if (end == s || *end || ranges[n_ranges].end <= ranges[n_ranges].start) {
        return false;
    }
    n_ranges++;
    return true;
}

static bool is_pow2(uint64_t v)
{
    return v && !(v & (v - 1));
}

/* Returns NULL, or why the arguments are refused. */
static const char *parse_args(int argc, const char **argv)
{
    static char why[QTRACE_INSTR_ERRMSG_MAX];
    int i;

    for (i = 0; i < argc; i++) {
        const char *a = argv[i];
        bool ok = true;

        if (strncmp(a, "size=", 5) == 0) {
            ok = parse_size(a + 5, &cache_size);
        } else if (strncmp(a, "assoc=", 6) == 0) {
            ok = parse_size(a + 6, &assoc);
        } else if (strncmp(a, "line=", 5) == 0) {
            ok = parse_size(a + 5, &line_size);
        } else if (strncmp(a, "range=", 6) == 0) {
            ok = parse_range(a + 6);
        } else if (strncmp(a, "out=", 4) != 0) {
            snprintf(why, sizeof(why), "unknown argument %s (known: size=, "
                     "assoc=, line=, range=A-B, out=)", a);
            return why;
        }
        if (!ok) {
            snprintf(why, sizeof(why), "%s: not a valid value", a);
            return why;
        }
    }
    if (!is_pow2(line_size) || cache_size % (assoc * line_size) != 0 ||
        !is_pow2(cache_size / (assoc * line_size))) {
        snprintf(why, sizeof(why), "size=%" PRIu64 " assoc=%" PRIu64
                 " line=%" PRIu64 ": the line size and the number of "
                 "sets (size / (assoc * line)) must be powers of two",
                 cache_size, assoc, line_size);
        return why;
    }
    return NULL;
}

int qtrace_instr_init(const struct qtrace_instr_host *h, int argc,
                      const char **argv, char *errmsg)
{
    const char *why = parse_args(argc, argv);

    host = h;
    if (why) {
        snprintf(errmsg, QTRACE_INSTR_ERRMSG_MAX, "%s", why);
        return 1;
    }
    n_sets = cache_size / (assoc * line_size);
    for (line_bits = 0; (1ull << line_bits) < line_size; line_bits++) {
    }
    out = example_out_open(argc, argv);
    if (!out) {
        snprintf(errmsg, QTRACE_INSTR_ERRMSG_MAX, "cannot open out=");
        return 1;
    }
    return h->on_tb_trans(h, translated, NULL);
}

static uint64_t misses_of(const struct func *f)
{
    return f->read_misses + f->write_misses;
}

static int by_misses(const void *a, const void *b)
{
    const struct func *x = *(struct func *const *)a;
    const struct func *y = *(struct func *const *)b;
    uint64_t rx = x->reads + x->writes, ry = y->reads + y->writes;

    if (misses_of(x) != misses_of(y)) {
        return misses_of(x) > misses_of(y) ? -1 : 1;
    }
    if (rx != ry) {
        return rx > ry ? -1 : 1;
    }
    return strcmp(x->name, y->name);
}

static void print_table(void)
{
    struct func total = { .name = "total" }, **sorted, *f;
    size_t n = 0, i;

    for (f = funcs; f; f = f->next) {
        total.reads += f->reads;
        total.writes += f->writes;
        total.read_misses += f->read_misses;
        total.write_misses += f->write_misses;
        total.io += f->io;
        n++;
    }
    fprintf(out, "cache size %" PRIu64 " assoc %" PRIu64 " line %" PRIu64
            " sets %" PRIu64 "\n", cache_size, assoc, line_size, n_sets);
    fprintf(out, "total refs %" PRIu64 " reads %" PRIu64 " writes %" PRIu64
            " misses %" PRIu64 " read_misses %" PRIu64 " write_misses %"
            PRIu64 "\n", total.reads + total.writes, total.reads,
            total.writes, misses_of(&total), total.read_misses,
            total.write_misses);
    if (total.io) {
        fprintf(out, "io %" PRIu64 "\n", total.io);
    }
    for (i = 0; i < MAX_DEVICES && devices[i].name; i++) {
        fprintf(out, "device %s %" PRIu64 "\n", devices[i].name,
                devices[i].count);
    }
    sorted = malloc((n ? n : 1) * sizeof(*sorted));
    if (!sorted) {
        return;
    }
    for (f = funcs, i = 0; f; f = f->next) {
        sorted[i++] = f;
    }
    qsort(sorted, n, sizeof(*sorted), by_misses);
    for (i = 0; i < n; i++) {
        f = sorted[i];
        if (f->reads + f->writes + f->io) {
            fprintf(out, "function %s refs %" PRIu64 " misses %" PRIu64
                    " read_misses %" PRIu64 " write_misses %" PRIu64 "\n",
                    f->name, f->reads + f->writes, misses_of(f),
                    f->read_misses, f->write_misses);
        }
    }
    free(sorted);
}

void qtrace_instr_fini(void)
{
    print_table();
    example_out_close(out);
}
