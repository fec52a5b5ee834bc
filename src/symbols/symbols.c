/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The symbol table of a guest (see include/qtrace/symbols.h): the files it
 * mapped, each read once (elf-file.c), and the images placing them in its
 * address space, kept sorted by start so a lookup is two binary searches.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "elf-file.h"
#include "qtrace/symbols.h"
#include "user-file.h"

/* One file, read once; several images may use it. */
struct file_slot {
    char *path;
    bool have_id;                   /* dev and ino identify the file */
    dev_t dev;
    ino_t ino;
    bool ok;                        /* read: elf is valid */
    bool borrowed;                  /* elf belongs to a user_file */
    bool table;                     /* a text table: no module name */
    struct elf_file elf;
};

struct mapping {
    uint64_t start, end;            /* run-time range */
    uint64_t offset;                /* file offset at start */
    uint64_t bias;
    struct file_slot *file;
};

struct qtrace_symbols {
    struct file_slot **files;
    size_t n_files, cap_files;
    struct mapping *maps;           /* sorted by start */
    size_t n_maps, cap_maps;
    struct mapping *user;           /* --symbols files, first given first */
    size_t n_user, cap_user;
};

struct qtrace_symbols *qtrace_symbols_new(void)
{
    return calloc(1, sizeof(struct qtrace_symbols));
}

void qtrace_symbols_free(struct qtrace_symbols *s)
{
    size_t i;

    if (!s) {
        return;
    }
    for (i = 0; i < s->n_files; i++) {
        if (!s->files[i]->borrowed) {
            elf_file_fini(&s->files[i]->elf);
        }
        free(s->files[i]->path);
        free(s->files[i]);
    }
    free(s->files);
    free(s->maps);
    free(s->user);
    free(s);
}

/*
 * The slot of path: the same file under another name (the trace header
 * may say "./prog" where an image_map record says "/home/u/prog") is
 * found by device and inode.
 */
static struct file_slot *find_file(const struct qtrace_symbols *s,
                                   const char *path, const struct stat *st)
{
    size_t i;

    for (i = 0; i < s->n_files; i++) {
        const struct file_slot *f = s->files[i];

        if (f->borrowed) {
            continue;               /* placed by the user, not by a trace */
        }
        if (st && f->have_id ? (f->dev == st->st_dev && f->ino == st->st_ino)
                             : strcmp(f->path, path) == 0) {
            return s->files[i];
        }
    }
    return NULL;
}

/* A new empty slot for path, owned by s; NULL when out of memory. */
static struct file_slot *new_slot(struct qtrace_symbols *s, const char *path)
{
    struct file_slot *f;

    if (s->n_files == s->cap_files) {
        size_t cap = s->cap_files ? 2 * s->cap_files : 8;
        void *grown = realloc(s->files, cap * sizeof(*s->files));

        if (!grown) {
            return NULL;
        }
        s->files = grown;
        s->cap_files = cap;
    }
    f = calloc(1, sizeof(*f));
    if (!f || !(f->path = strdup(path))) {
        free(f);
        return NULL;
    }
    s->files[s->n_files++] = f;
    return f;
}

/*
 * Find or read path. *fresh_err is 0 when the slot existed, or the result
 * of reading it now (-errno with err filled when it failed).
 */
static struct file_slot *get_file(struct qtrace_symbols *s, const char *path,
                                  int *fresh_err, struct qtrace_err *err)
{
    struct stat st;
    bool have_id = stat(path, &st) == 0;
    struct file_slot *f = find_file(s, path, have_id ? &st : NULL);

    *fresh_err = 0;
    if (f) {
        return f;
    }
    f = new_slot(s, path);
    if (!f) {
        return NULL;
    }
    f->have_id = have_id;
    f->dev = have_id ? st.st_dev : 0;
    f->ino = have_id ? st.st_ino : 0;
    *fresh_err = elf_file_read(&f->elf, path, err);
    f->ok = *fresh_err == 0;
    return f;
}

/* Insert m keeping maps sorted by start; -ENOMEM on failure. */
static int insert_map(struct qtrace_symbols *s, const struct mapping *m)
{
    size_t i;

    if (s->n_maps == s->cap_maps) {
        size_t cap = s->cap_maps ? 2 * s->cap_maps : 8;
        void *grown = realloc(s->maps, cap * sizeof(*s->maps));

        if (!grown) {
            return -ENOMEM;
        }
        s->maps = grown;
        s->cap_maps = cap;
    }
    for (i = s->n_maps; i > 0 && s->maps[i - 1].start > m->start; i--) {
        s->maps[i] = s->maps[i - 1];
    }
    s->maps[i] = *m;
    s->n_maps++;
    return 0;
}

/* Remove map i, then insert m: its start may have moved. */
static void move_map(struct qtrace_symbols *s, size_t i,
                     const struct mapping *m)
{
    memmove(&s->maps[i], &s->maps[i + 1],
            (s->n_maps - i - 1) * sizeof(*s->maps));
    s->n_maps--;
    insert_map(s, m);               /* the slot just freed: cannot fail */
}

/*
 * Add or merge m. Returns 1 when an image of the same file and bias
 * existed (its range grows to cover m), 0 when m is new.
 */
static int place(struct qtrace_symbols *s, struct mapping *m)
{
    size_t i;

    if (m->file->ok) {
        /* The file's whole extent: one record places all its code. */
        uint64_t lo = m->file->elf.lo + m->bias;
        uint64_t hi = m->file->elf.hi + m->bias;

        if (hi > lo) {
            if (lo < m->start) {
                m->start = lo;
                m->offset = m->file->elf.lo_offset;
            }
            m->end = hi > m->end ? hi : m->end;
        }
    }
    for (i = 0; i < s->n_maps; i++) {
        struct mapping merged = s->maps[i];

        if (merged.file != m->file || merged.bias != m->bias) {
            continue;
        }
        if (m->start < merged.start) {
            merged.start = m->start;
            merged.offset = m->offset;
        }
        merged.end = m->end > merged.end ? m->end : merged.end;
        move_map(s, i, &merged);
        return 1;
    }
    return insert_map(s, m);
}

/* The bias of an image of file placed already, or NULL. */
static const uint64_t *known_bias(const struct qtrace_symbols *s,
                                  const struct file_slot *file)
{
    size_t i;

    for (i = 0; i < s->n_maps; i++) {
        if (s->maps[i].file == file) {
            return &s->maps[i].bias;
        }
    }
    return NULL;
}

int qtrace_symbols_add_map(struct qtrace_symbols *s, const char *path,
                           uint64_t start, uint64_t end, uint64_t offset,
                           struct qtrace_err *err)
{
    struct mapping m = { start, end, offset, 0, NULL };
    int fresh_err, ret;

    m.file = get_file(s, path, &fresh_err, err);
    if (!m.file) {
        qtrace_err_set(err, "%s: %s", path, strerror(ENOMEM));
        return -ENOMEM;
    }
    if (m.file->ok) {
        m.bias = elf_file_bias(&m.file->elf, start, end, offset,
                               known_bias(s, m.file));
    }
    if (m.end <= m.start) {
        m.end = m.start + 1;
    }
    ret = place(s, &m);
    if (ret < 0) {
        qtrace_err_set(err, "%s: %s", path, strerror(-ret));
        return ret;
    }
    if (fresh_err < 0) {
        return fresh_err;
    }
    return m.file->ok ? ret : 1;
}

int qtrace_symbols_add_program(struct qtrace_symbols *s, const char *path,
                               uint64_t start_code, struct qtrace_err *err)
{
    struct mapping m = { 0, 0, 0, 0, NULL };
    int fresh_err, ret;
    size_t i;

    m.file = get_file(s, path, &fresh_err, err);
    if (!m.file) {
        qtrace_err_set(err, "%s: %s", path, strerror(ENOMEM));
        return -ENOMEM;
    }
    if (fresh_err < 0) {
        return fresh_err;
    }
    for (i = 0; i < s->n_maps; i++) {
        if (s->maps[i].file == m.file) {
            return 1;
        }
    }
    if (!m.file->ok) {
        return 1;
    }
    /* QEMU's start_code is the first executable segment, biased. */
    if (m.file->elf.dynamic && start_code) {
        m.bias = start_code - elf_file_exec_lo(&m.file->elf);
    }
    m.start = m.file->elf.lo + m.bias;
    m.end = m.file->elf.hi + m.bias;
    m.offset = m.file->elf.lo_offset;
    if (m.end <= m.start) {
        m.end = m.start + 1;
    }
    ret = place(s, &m);
    if (ret < 0) {
        qtrace_err_set(err, "%s: %s", path, strerror(-ret));
    }
    return ret;
}

int symbols_add_user(struct qtrace_symbols *s, const struct user_file *u)
{
    struct file_slot *f = new_slot(s, u->path);
    struct mapping m = { 0, 0, 0, u->bias, f };

    if (!f) {
        return -ENOMEM;
    }
    f->ok = true;
    f->borrowed = true;
    f->table = u->table;
    f->elf = u->elf;                /* a shallow copy: u owns the arrays */
    m.start = f->elf.lo + u->bias;
    m.end = f->elf.hi + u->bias;
    m.offset = f->elf.lo_offset;
    if (m.end <= m.start) {
        m.end = m.start + 1;
    }
    if (s->n_user == s->cap_user) {
        size_t cap = s->cap_user ? 2 * s->cap_user : 4;
        void *grown = realloc(s->user, cap * sizeof(*s->user));

        if (!grown) {
            return -ENOMEM;
        }
        s->user = grown;
        s->cap_user = cap;
    }
    s->user[s->n_user++] = m;
    return 0;
}

/* The image holding addr, or NULL. */
static const struct mapping *find_map(const struct qtrace_symbols *s,
                                      uint64_t addr)
{
    size_t lo = 0, hi = s->n_maps;

    /* Last map starting at or before addr. */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;

        if (s->maps[mid].start <= addr) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    /* Images do not overlap in practice; if one does, look further back. */
    while (lo > 0) {
        const struct mapping *m = &s->maps[--lo];

        if (addr < m->end) {
            return m;
        }
    }
    return NULL;
}

/* The symbol of image m holding addr, as qtrace_symbols_lookup(). */
static const struct qtrace_sym *lookup_in(const struct mapping *m,
                                          uint64_t addr, uint64_t *offset)
{
    const struct qtrace_sym *syms;
    size_t lo = 0, hi;
    uint64_t a;

    if (!m || !m->file->ok) {
        return NULL;
    }
    a = addr - m->bias;
    syms = m->file->elf.syms;
    hi = m->file->elf.n_syms;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;

        if (syms[mid].addr <= a) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    if (lo == 0 || a - syms[lo - 1].addr >= syms[lo - 1].size) {
        return NULL;
    }
    if (offset) {
        *offset = a - syms[lo - 1].addr;
    }
    return &syms[lo - 1];
}

/* The user's file holding addr (the first given), or NULL. */
static const struct mapping *find_user_map(const struct qtrace_symbols *s,
                                           uint64_t addr, bool want_sym,
                                           bool want_elf)
{
    size_t i;

    for (i = 0; i < s->n_user; i++) {
        const struct mapping *m = &s->user[i];

        if (addr < m->start || addr >= m->end ||
            (want_elf && m->file->table) ||
            (want_sym && !lookup_in(m, addr, NULL))) {
            continue;
        }
        return m;
    }
    return NULL;
}

/* The user's files first: they name what the trace's images also hold. */
const char *qtrace_symbols_lookup_sized(const struct qtrace_symbols *s,
                                        uint64_t addr, uint64_t *offset,
                                        uint64_t *size)
{
    const struct mapping *m;
    const struct qtrace_sym *sym;

    if (!s) {
        return NULL;
    }
    m = find_user_map(s, addr, true, false);
    sym = lookup_in(m ? m : find_map(s, addr), addr, offset);
    if (sym && size) {
        *size = sym->size;
    }
    return sym ? sym->name : NULL;
}

const char *qtrace_symbols_lookup(const struct qtrace_symbols *s,
                                  uint64_t addr, uint64_t *offset)
{
    return qtrace_symbols_lookup_sized(s, addr, offset, NULL);
}

const char *qtrace_symbols_module(const struct qtrace_symbols *s,
                                  uint64_t addr, uint64_t *elf_addr)
{
    const struct mapping *m = s ? find_map(s, addr) : NULL;
    const char *slash;

    if ((!m || !m->file->ok) && s) {
        /* A text table has no file addresses to show. */
        m = find_user_map(s, addr, false, true);
    }
    if (!m || !m->file->ok) {
        return NULL;
    }
    if (elf_addr) {
        *elf_addr = addr - m->bias;
    }
    slash = strrchr(m->file->path, '/');
    return slash ? slash + 1 : m->file->path;
}

size_t qtrace_symbols_n_images(const struct qtrace_symbols *s)
{
    return s ? s->n_user + s->n_maps : 0;
}

void qtrace_symbols_image(const struct qtrace_symbols *s, size_t i,
                          struct qtrace_image *out)
{
    const struct mapping *m = i < s->n_user ? &s->user[i]
                                            : &s->maps[i - s->n_user];

    out->path = m->file->path;
    out->start = m->start;
    out->end = m->end;
    out->offset = m->offset;
    out->bias = m->bias;
    out->loaded = m->file->ok;
    out->n_syms = m->file->ok ? m->file->elf.n_syms : 0;
    out->syms = m->file->ok ? m->file->elf.syms : NULL;
}
