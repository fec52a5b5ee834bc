/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Benchmark workload: pointer chasing. A linked list of nodes scattered
 * over 16 MiB in a random order, walked again and again: every load's
 * address comes from the load before it, so no stride predicts it (the
 * hard case for an access encoding). Usage: work-chase [WALKS]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define NODES (1u << 18)

struct node {
    struct node *next;
    uint64_t value;
    uint64_t pad[6];                /* a node per 64-byte line */
};

int main(int argc, char **argv)
{
    unsigned long walks = argc > 1 ? strtoul(argv[1], NULL, 0) : 4;
    struct node *nodes = malloc(NODES * sizeof(*nodes));
    uint32_t *order = malloc(NODES * sizeof(*order));
    uint32_t i, j, t, seed = 88172645u;
    uint64_t sum = 0;
    struct node *p;
    unsigned long w;

    if (!nodes || !order) {
        return 1;
    }
    /* A random cycle through every node (Fisher-Yates, xorshift). */
    for (i = 0; i < NODES; i++) {
        order[i] = i;
    }
    for (i = NODES - 1; i > 0; i--) {
        seed ^= seed << 13;
        seed ^= seed >> 17;
        seed ^= seed << 5;
        j = seed % (i + 1);
        t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
    for (i = 0; i < NODES; i++) {
        nodes[order[i]].next = &nodes[order[(i + 1) % NODES]];
        nodes[order[i]].value = i;
    }
    for (w = 0; w < walks; w++) {
        for (p = &nodes[order[0]], i = 0; i < NODES; i++, p = p->next) {
            sum += p->value;
        }
    }
    printf("work-chase: %llu\n", (unsigned long long)sum);
    free(nodes);
    free(order);
    return 0;
}
