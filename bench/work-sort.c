/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Benchmark workload: memory heavy the way real programs are. Each round
 * fills an array of records from a generator, sorts it with qsort (a
 * comparison callback per step: calls, loads through pointers), then
 * counts keys in an open-addressing hash table and walks the table.
 * Usage: work-sort [ROUNDS]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define RECORDS (1u << 16)
#define SLOTS (1u << 17)            /* power of two, twice the records */

struct record {
    uint32_t key;
    uint32_t weight;
    uint64_t payload;
};

struct slot {
    uint32_t key;                   /* 0: empty */
    uint32_t count;
};

static int by_key(const void *a, const void *b)
{
    const struct record *x = a, *y = b;

    return (x->key > y->key) - (x->key < y->key);
}

/* xorshift: the same data on every run. */
static uint32_t next(uint32_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 17;
    *s ^= *s << 5;
    return *s;
}

static void count_keys(struct slot *table, const struct record *r)
{
    uint32_t i, h;

    for (i = 0; i < RECORDS; i++) {
        uint32_t key = r[i].key | 1;

        for (h = key * 2654435761u & (SLOTS - 1);
             table[h].key && table[h].key != key; h = (h + 1) & (SLOTS - 1)) {
        }
        table[h].key = key;
        table[h].count++;
    }
}

static uint64_t walk(const struct slot *table)
{
    uint64_t sum = 0;
    uint32_t h;

    for (h = 0; h < SLOTS; h++) {
        sum += (uint64_t)table[h].key * table[h].count;
    }
    return sum;
}

int main(int argc, char **argv)
{
    unsigned long rounds = argc > 1 ? strtoul(argv[1], NULL, 0) : 4;
    struct record *r = malloc(RECORDS * sizeof(*r));
    struct slot *table = calloc(SLOTS, sizeof(*table));
    uint32_t seed = 2463534242u;
    uint64_t sum = 0;
    unsigned long n, i;

    if (!r || !table) {
        return 1;
    }
    for (n = 0; n < rounds; n++) {
        for (i = 0; i < RECORDS; i++) {
            r[i].key = next(&seed) % (RECORDS * 4);
            r[i].weight = (uint32_t)i;
            r[i].payload = seed;
        }
        qsort(r, RECORDS, sizeof(*r), by_key);
        count_keys(table, r);
        sum += walk(table) + r[RECORDS / 2].key;
    }
    printf("work-sort: %llu\n", (unsigned long long)sum);
    free(r);
    free(table);
    return 0;
}
