/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Modules the user names (an ELF kernel or firmware image, placed at its
 * link addresses or moved) and the lookup of an address's module
 * (coverage.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cov-elf.h"
#include "coverage.h"

#define PAGE 4096u

static uint64_t page_down(uint64_t v)
{
    return v & ~(uint64_t)(PAGE - 1);
}

static uint64_t page_up(uint64_t v)
{
    return page_down(v + PAGE - 1);
}

/*
 * The module's segments: its PT_LOADs in whole pages, as the loader maps
 * them; a segment sharing a page with the one before starts where that
 * one ends, so that the segments stay disjoint.
 */
static int place_loads(struct cov_module *mod, const struct cov_elf *e)
{
    size_t i;

    mod->segs = calloc(e->n_loads, sizeof(*mod->segs));
    if (!mod->segs) {
        return -ENOMEM;
    }
    for (i = 0; i < e->n_loads; i++) {
        const struct cov_load *l = &e->loads[i];
        uint64_t start = page_down(l->vaddr) + mod->bias;
        uint64_t end = page_up(l->vaddr + l->memsz) + mod->bias;
        uint64_t off = page_down(l->offset);

        if (mod->n_segs > 0 && start < mod->segs[mod->n_segs - 1].end) {
            off += mod->segs[mod->n_segs - 1].end - start;
            start = mod->segs[mod->n_segs - 1].end;
        }
        if (start < end) {
            mod->segs[mod->n_segs++] = (struct cov_segment){ start, end,
                                                              off };
        }
    }
    return 0;
}

/* The ELF address placed at ADDR by FILE@ADDR (see coverage.h). */
static uint64_t anchor_of(const struct cov_elf *e)
{
    size_t i;

    if (e->has_anchor) {
        return e->anchor;
    }
    for (i = 0; i < e->n_loads; i++) {
        if (e->loads[i].exec) {
            return e->loads[i].vaddr;
        }
    }
    return e->loads[0].vaddr;
}

int cov_add_elf(struct cov *c, const char *path, const uint64_t *at,
                struct qtrace_err *err)
{
    struct cov_module *more, *mod;
    struct cov_elf e;
    int ret = cov_elf_read(path, true, &e, err);

    if (ret < 0) {
        return ret;
    }
    more = realloc(c->mods, (c->n_mods + 1) * sizeof(*more));
    if (!more) {
        cov_elf_fini(&e);
        qtrace_err_set(err, "%s", strerror(ENOMEM));
        return -ENOMEM;
    }
    c->mods = more;
    mod = &c->mods[c->n_mods];
    memset(mod, 0, sizeof(*mod));
    mod->user = true;
    mod->elf = true;
    mod->bias = at ? *at - anchor_of(&e) : 0;
    mod->entry = e.entry + mod->bias;
    mod->path = strdup(path);
    ret = mod->path ? place_loads(mod, &e) : -ENOMEM;
    cov_elf_fini(&e);
    if (ret < 0 || mod->n_segs == 0) {
        free(mod->path);
        free(mod->segs);
        qtrace_err_set(err, "%s: %s", path, ret < 0 ? strerror(ENOMEM) :
                       "no loadable segment");
        return ret < 0 ? ret : -EINVAL;
    }
    c->n_mods++;
    return 0;
}

/* The segment of mod holding addr, or -1 (segments sorted by start). */
static long segment_of(const struct cov_module *mod, uint64_t addr)
{
    size_t lo = 0, hi = mod->n_segs;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;

        if (mod->segs[mid].start <= addr) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    if (lo == 0 || addr >= mod->segs[lo - 1].end) {
        return -1;
    }
    return (long)lo - 1;
}

const struct cov_module *cov_module_of(const struct cov *c, uint64_t addr,
                                       size_t *seg)
{
    int pass;
    size_t i;

    /* The user's files first: they name what the trace cannot. */
    for (pass = 0; pass < 2; pass++) {
        for (i = 0; i < c->n_mods; i++) {
            const struct cov_module *mod = &c->mods[i];
            long s;

            if (mod->user != (pass == 0)) {
                continue;
            }
            s = segment_of(mod, addr);
            if (s >= 0) {
                if (seg) {
                    *seg = (size_t)s;
                }
                return mod;
            }
        }
    }
    return NULL;
}
