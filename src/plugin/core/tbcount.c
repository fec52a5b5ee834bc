/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Per-vCPU block counters for QEMU 7.2-8.2 (see tbcount.h). Slot s owns
 * table[s][page], pages of PAGE_IDS counters by translation id: a vCPU
 * writes only its own pages, so that vCPUs running the same block never
 * write one cache line. Pages are added for every slot under a lock at
 * translation time; QEMU publishes a block to other vCPUs only after its
 * translation, so a callback always finds its page.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "tbcount.h"

#define PAGE_BITS 12
#define PAGE_IDS (1u << PAGE_BITS)                  /* 32 KiB of counters */
#define N_PAGES ((TBTAB_MAX_ID >> PAGE_BITS) + 1)
#define MAX_SLOTS 256u

static unsigned int n_slots;
/* n_slots tables of N_PAGES page pointers, slot after slot. */
static _Atomic(uint64_t *) *table;
static pthread_mutex_t grow_lock = PTHREAD_MUTEX_INITIALIZER;

int tbcount_setup(unsigned int slots)
{
    if (slots > MAX_SLOTS) {
        slots = MAX_SLOTS;
    }
    table = calloc((size_t)slots * N_PAGES, sizeof(*table));
    if (!table) {
        return -1;
    }
    n_slots = slots;
    return 0;
}

int tbcount_add(const struct tb_info *ti)
{
    uint32_t page = ti->id >> PAGE_BITS;
    unsigned int s;
    int ret = 0;

    pthread_mutex_lock(&grow_lock);
    for (s = 0; s < n_slots && ret == 0; s++) {
        _Atomic(uint64_t *) *slot = &table[(size_t)s * N_PAGES + page];

        if (!atomic_load_explicit(slot, memory_order_relaxed)) {
            uint64_t *p = calloc(PAGE_IDS, sizeof(*p));

            if (p) {
                atomic_store_explicit(slot, p, memory_order_release);
            } else {
                ret = -1;
            }
        }
    }
    pthread_mutex_unlock(&grow_lock);
    return ret;
}

void tbcount_exec(unsigned int vcpu_index, void *udata)
{
    struct tb_info *ti = udata;

    if (__builtin_expect(vcpu_index < n_slots, 1)) {
        uint64_t *p = atomic_load_explicit(
            &table[(size_t)vcpu_index * N_PAGES + (ti->id >> PAGE_BITS)],
            memory_order_relaxed);

        p[ti->id & (PAGE_IDS - 1)]++;
        return;
    }
    __atomic_fetch_add(&ti->count, 1, __ATOMIC_RELAXED);
}

uint64_t tbcount_take(struct tb_info *ti)
{
    uint32_t page = ti->id >> PAGE_BITS, off = ti->id & (PAGE_IDS - 1);
    uint64_t total = 0;
    unsigned int s;

    for (s = 0; s < n_slots; s++) {
        uint64_t *p = atomic_load(&table[(size_t)s * N_PAGES + page]);

        if (p) {
            total += p[off];
            p[off] = 0;
        }
    }
    return total;
}
