/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The memory of device accesses (see mmio-cache.h), shared by all vCPUs
 * so that a device accessor one vCPU has run needs no lookup on another:
 * entries come from a pool allocated at set-up, are written once, then
 * published into an open-addressing table of atomic pointers; readers
 * take no lock. When the pool runs out, QEMU is asked as before.
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "mmio-cache.h"

#define N_SLOTS 32768u              /* table, a power of two */
#define N_ENTRIES 16384u            /* pool: half the table at most */
#define MAX_PROBES 32
#define PAGE_MASK (~(uint64_t)0xfff)

struct entry {
    const void *insn;
    uint64_t vpage;
    uint64_t delta;                 /* paddr - vaddr, modulo 2^64 */
    uint32_t dev_len;
    char dev[MMIO_DEV_MAX];
};

static struct entry *pool;
static atomic_uint pool_used;
static _Atomic(struct entry *) *table;

int mmio_cache_setup(void)
{
    pool = calloc(N_ENTRIES, sizeof(*pool));
    table = calloc(N_SLOTS, sizeof(*table));
    if (!pool || !table) {
        free(pool);
        free(table);
        pool = NULL;
        table = NULL;
        return -1;
    }
    return 0;
}

static uint32_t hash(const void *insn, uint64_t vpage)
{
    uint64_t h = ((uint64_t)(uintptr_t)insn >> 3) * 0x9e3779b97f4a7c15u;

    h ^= (vpage >> 12) * 0xc2b2ae3d27d4eb4fu;
    return (uint32_t)(h >> 40);
}

bool mmio_cache_find(const void *insn, uint64_t vaddr, struct mmio_hit *hit)
{
    uint64_t vpage = vaddr & PAGE_MASK;
    uint32_t i = hash(insn, vpage), n;

    if (!table) {
        return false;
    }
    for (n = 0; n < MAX_PROBES; n++, i++) {
        const struct entry *e = atomic_load_explicit(
            &table[i & (N_SLOTS - 1)], memory_order_acquire);

        if (!e) {
            return false;
        }
        if (e->insn == insn && e->vpage == vpage) {
            hit->paddr = vaddr + e->delta;
            hit->dev = e->dev;
            hit->dev_len = e->dev_len;
            return true;
        }
    }
    return false;
}

void mmio_cache_add(const void *insn, uint64_t vaddr, uint64_t paddr,
                    const char *dev, uint32_t dev_len)
{
    uint64_t vpage = vaddr & PAGE_MASK;
    uint32_t i = hash(insn, vpage), n, k;
    struct entry *e;

    if (!table) {
        return;
    }
    k = atomic_fetch_add_explicit(&pool_used, 1, memory_order_relaxed);
    if (k >= N_ENTRIES) {
        return;
    }
    e = &pool[k];
    e->insn = insn;
    e->vpage = vpage;
    e->delta = paddr - vaddr;
    e->dev_len = dev_len < MMIO_DEV_MAX ? dev_len : MMIO_DEV_MAX;
    memcpy(e->dev, dev, e->dev_len);
    for (n = 0; n < MAX_PROBES; n++, i++) {
        struct entry *old = NULL;

        /* Published whole: a reader sees all of it or nothing. */
        if (atomic_compare_exchange_strong_explicit(
                &table[i & (N_SLOTS - 1)], &old, e, memory_order_release,
                memory_order_relaxed)) {
            return;
        }
        if (old->insn == insn && old->vpage == vpage) {
            return;                 /* another vCPU was first */
        }
    }
}
