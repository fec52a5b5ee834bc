/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The translation table (see tbtab.h): a two-level array indexed by id so
 * lookups take no lock; pages of ids are added under a lock at
 * translation time.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "tbtab.h"

#define PAGE_BITS 16
#define PAGE_IDS (1u << PAGE_BITS)
#define N_PAGES 4096u               /* 268 M translations */

_Static_assert((uint64_t)N_PAGES * PAGE_IDS - 1 == TBTAB_MAX_ID,
               "tbtab.h's TBTAB_MAX_ID");

static _Atomic(struct tb_info **) pages[N_PAGES];
static pthread_mutex_t grow_lock = PTHREAD_MUTEX_INITIALIZER;
static uint32_t next_id = 1;        /* guarded by grow_lock */

struct tb_info *tbtab_new(uint32_t n_insns)
{
    struct tb_info *tb;
    struct tb_info **page;
    uint32_t id;

    tb = calloc(1, sizeof(*tb) + (size_t)n_insns * sizeof(tb->insns[0]));
    if (!tb) {
        return NULL;
    }
    pthread_mutex_lock(&grow_lock);
    id = next_id;
    if (id >> PAGE_BITS >= N_PAGES) {
        pthread_mutex_unlock(&grow_lock);
        free(tb);
        return NULL;
    }
    page = atomic_load(&pages[id >> PAGE_BITS]);
    if (!page) {
        page = calloc(PAGE_IDS, sizeof(*page));
        if (!page) {
            pthread_mutex_unlock(&grow_lock);
            free(tb);
            return NULL;
        }
        atomic_store(&pages[id >> PAGE_BITS], page);
    }
    next_id++;
    tb->id = id;
    tb->n_insns = n_insns;
    __atomic_store_n(&page[id & (PAGE_IDS - 1)], tb, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&grow_lock);
    return tb;
}

const struct tb_info *tbtab_get(uint32_t id)
{
    struct tb_info **page;

    if (id >> PAGE_BITS >= N_PAGES) {
        return NULL;
    }
    page = atomic_load(&pages[id >> PAGE_BITS]);
    if (!page) {
        return NULL;
    }
    return __atomic_load_n(&page[id & (PAGE_IDS - 1)], __ATOMIC_ACQUIRE);
}

uint32_t tbtab_max_id(void)
{
    uint32_t n;

    pthread_mutex_lock(&grow_lock);
    n = next_id - 1;
    pthread_mutex_unlock(&grow_lock);
    return n;
}
