/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * image_map records (see maps.h and docs/calls.md). The mmap hooks run on
 * the vCPU's thread at each guest mmap (a readlink there is per system
 * call, not per executed instruction); maps_binary runs once.
 */
#include <inttypes.h>
#include <elf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "qtrace-events.h"
#include "qtrace/format.h"
#include "../../format/chunk.h"
#include "calls-decode.h"
#include "elf-load.h"
#include "entries.h"
#include "maps.h"
#include "../buffer/pack.h"
#include "../buffer/writer.h"

#define MAPS_MAX_VCPUS 4096
#define PAGE 4096u

/* An mmap of a file between its start and its return. */
struct pending {
    bool active;
    uint64_t len;
    uint64_t offset;                /* bytes */
    char path[PATH_MAX];
};

static struct {
    const struct calls_abi *abi;
    bool record;                    /* write image_map records */
    struct pending *pend[MAPS_MAX_VCPUS];   /* slot i: vCPU i's thread */
} ms;

bool maps_setup(const char *target, bool record)
{
    ms.abi = calls_abi_of(target);
    ms.record = record;
    return ms.abi != NULL;
}

static uint64_t page_down(uint64_t v)
{
    return v & ~(uint64_t)(PAGE - 1);
}

static uint64_t page_up(uint64_t v)
{
    return page_down(v + PAGE - 1);
}

static void fill(struct qtrace_ev_image_map *r, uint32_t size,
                 uint64_t time, uint64_t start, uint64_t end,
                 uint64_t offset, const char *path, uint16_t path_len)
{
    r->hdr.id = QTRACE_EV_IMAGE_MAP;
    r->hdr.size = (uint16_t)size;
    r->hdr.reserved = 0;
    r->hdr.time = time;
    r->start = start;
    r->end = end;
    r->offset = offset;
    r->path_len = path_len;
    memcpy((uint8_t *)r + QTRACE_EV_IMAGE_MAP_FIXED, path, path_len);
    memset((uint8_t *)r + QTRACE_EV_IMAGE_MAP_FIXED + path_len, 0,
           size - QTRACE_EV_IMAGE_MAP_FIXED - path_len);
}

/* Into the translation stream: belongs to no vCPU. */
static void emit_global(uint64_t start, uint64_t end, uint64_t offset,
                        const char *path)
{
    uint16_t len = (uint16_t)strnlen(path, PATH_MAX);
    uint32_t size = qtrace_rec_size(QTRACE_EV_IMAGE_MAP_FIXED, len);
    void *r;

    entries_add_map(path, start, end, offset);
    if (!ms.record) {
        return;
    }
    r = writer_trans_reserve(size);
    if (!r) {
        writer_count_lost(1);
        return;
    }
    fill(r, size, 0, start, end, offset, path, len);
    writer_trans_commit();
}

/* One record per loadable segment, at load bias `bias`. */
static void emit_segments(const struct elf_load *el, uint64_t bias,
                          const char *path)
{
    size_t i;

    for (i = 0; i < el->n_segs; i++) {
        const struct elf_seg *s = &el->segs[i];

        emit_global(bias + page_down(s->vaddr),
                    bias + page_up(s->vaddr + s->memsz),
                    page_down(s->offset), path);
    }
}

/*
 * Where QEMU found the interpreter: under its prefix (-L, else
 * QEMU_LD_PREFIX) when the file exists there, as QEMU's path() does,
 * else at its own path. The -L value is read from QEMU's command line,
 * among the arguments before the program.
 */
static void find_prefix(const char *program, char *prefix, size_t len)
{
    static char cmdline[16384];
    const char *env = getenv("QEMU_LD_PREFIX");
    FILE *f = fopen("/proc/self/cmdline", "re");
    size_t n = 0;
    const char *a;

    snprintf(prefix, len, "%s", env ? env : "");
    if (!f) {
        return;
    }
    n = fread(cmdline, 1, sizeof(cmdline) - 1, f);
    fclose(f);
    cmdline[n] = '\0';
    for (a = cmdline; a < cmdline + n; a += strlen(a) + 1) {
        if (strcmp(a, program) == 0) {
            break;
        }
        if ((strcmp(a, "-L") == 0 || strcmp(a, "--L") == 0) &&
            a + strlen(a) + 1 < cmdline + n) {
            snprintf(prefix, len, "%s", a + strlen(a) + 1);
        }
    }
}

static void map_interp(const char *program, const char *interp,
                       uint64_t first_pc)
{
    char prefix[PATH_MAX], joined[2 * PATH_MAX], real[PATH_MAX];
    struct elf_load el;
    uint64_t bias;

    find_prefix(program, prefix, sizeof(prefix));
    snprintf(joined, sizeof(joined), "%s%s", prefix, interp);
    if (!prefix[0] || access(joined, R_OK) != 0) {
        snprintf(joined, sizeof(joined), "%s", interp);
    }
    if (!realpath(joined, real) || elf_load_read(real, &el, NULL) < 0) {
        return;
    }
    /* The guest starts at the interpreter's entry point. */
    bias = first_pc - el.entry;
    if (!el.is_dyn) {
        bias = 0;
    }
    if (bias % PAGE != 0) {
        return;                     /* not where we expected it */
    }
    emit_segments(&el, bias, real);
}

/*
 * QEMU's start_code is the lowest executable segment's address once
 * loaded (its entry_code is the interpreter's entry for a dynamic
 * program, so it cannot give the bias).
 */
static bool program_bias(const struct elf_load *el, uint64_t start_code,
                         uint64_t *bias)
{
    size_t i;

    *bias = 0;
    if (!el->is_dyn) {
        return true;
    }
    for (i = 0; i < el->n_segs; i++) {
        if (el->segs[i].flags & PF_X) {
            *bias = start_code - el->segs[i].vaddr;
            return *bias % PAGE == 0;
        }
    }
    return false;
}

void maps_binary(const char *path, uint64_t start_code, uint64_t first_pc)
{
    char real[PATH_MAX];
    struct elf_load el;
    uint64_t bias;

    if (!ms.abi || !path[0] || !realpath(path, real) ||
        elf_load_read(real, &el, NULL) < 0) {
        return;
    }
    if (program_bias(&el, start_code, &bias)) {
        emit_segments(&el, bias, real);
    }
    if (el.interp[0]) {
        map_interp(path, el.interp, first_pc);
    }
}

/* The syscall's value as the guest sees it (32-bit guests: low half). */
static uint64_t guest_word(uint64_t v)
{
    return ms.abi->word_bits == 32 ? (uint32_t)v : v;
}

void maps_syscall(unsigned int vcpu, int64_t num, uint64_t len,
                  uint64_t flags, uint64_t fd, uint64_t offset)
{
    struct pending *p;
    char link[64];
    ssize_t n;

    if (!ms.abi || num != ms.abi->nr_mmap || vcpu >= MAPS_MAX_VCPUS) {
        return;
    }
    fd = guest_word(fd);
    if ((guest_word(flags) & ms.abi->map_anonymous) ||
        fd >= (ms.abi->word_bits == 32 ? 0x80000000u : INT64_MAX)) {
        return;
    }
    p = ms.pend[vcpu];
    if (!p) {
        p = calloc(1, sizeof(*p));
        if (!p) {
            return;
        }
        ms.pend[vcpu] = p;
    }
    /* QEMU user mode hands guest file descriptors to the host as they are. */
    snprintf(link, sizeof(link), "/proc/self/fd/%" PRIu64, fd);
    n = readlink(link, p->path, sizeof(p->path) - 1);
    p->active = n > 0 && p->path[0] == '/';
    if (p->active) {
        p->path[n] = '\0';
        p->len = guest_word(len);
        p->offset = guest_word(offset) * ms.abi->mmap_unit;
    }
}

void maps_syscall_ret(unsigned int vcpu, struct vbuf *vb, uint64_t time,
                      int64_t num, int64_t ret)
{
    struct pending *p;
    uint64_t start = guest_word((uint64_t)ret);
    uint16_t len;
    uint32_t size;

    if (!ms.abi || num != ms.abi->nr_mmap || vcpu >= MAPS_MAX_VCPUS ||
        !ms.pend[vcpu] || !ms.pend[vcpu]->active) {
        return;
    }
    p = ms.pend[vcpu];
    p->active = false;
    if (start > guest_word((uint64_t)-4096)) {
        return;                     /* -errno */
    }
    entries_add_map(p->path, start, start + page_up(p->len), p->offset);
    if (!ms.record) {
        return;
    }
    len = (uint16_t)strnlen(p->path, PATH_MAX);
    size = qtrace_rec_size(QTRACE_EV_IMAGE_MAP_FIXED, len);
    fill(vbuf_record(vb, size), size, time, start, start + page_up(p->len),
         p->offset, p->path, len);
}
