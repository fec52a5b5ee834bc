/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The flight recorder's rings (ring=SIZE, docs/cli.md): per vCPU, the
 * most recent chunks the vCPU handed over, kept in memory instead of
 * written, the oldest given up when more than SIZE bytes are held. Only
 * the writer thread touches them; what to do with a chunk given up or
 * written is the writer's (writer-ring.c).
 */
#ifndef QTRACE_PLUGIN_RING_H
#define QTRACE_PLUGIN_RING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "vbuf.h"

/* Install time: rings of bytes each (0: no ring), chunks of chunk_bytes. */
void ring_setup(size_t bytes, size_t chunk_bytes);

/* Whether ring= is in force. */
bool ring_is_on(void);

/*
 * Writer thread: c becomes its vCPU's newest chunk. Returns the chunks
 * given up to stay within the bound, oldest first, linked through next
 * (NULL: none), for the caller to recycle; their records count in
 * ring_dropped().
 */
struct chunk *ring_keep(struct chunk *c);

/*
 * Writer thread: the oldest chunk of the first vCPU ring from vcpu on
 * that holds any, its vCPU in *found; NULL when none does. The ring's
 * chunks follow through next.
 */
struct chunk *ring_peek(uint32_t vcpu, uint32_t *found);

/*
 * Writer thread: empty the ring of vcpu, returning its chunks as above;
 * with to_cut, only up to its newest chunk marked cut, when it has one
 * (a snapshot trigger's: what came after stays for the next snapshot).
 */
struct chunk *ring_take(uint32_t vcpu, bool to_cut);

/* Records given up from the rings so far (END's ring_dropped=). */
uint64_t ring_dropped(void);

/* Chunks the rings hold now (the writer's pool counts them apart). */
size_t ring_chunks(void);

#endif /* QTRACE_PLUGIN_RING_H */
