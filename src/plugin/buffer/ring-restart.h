/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * With ring=, every chunk of a packed stream reads on its own: the
 * vCPU opens each new chunk with the restart of docs/format.md ("Loss"),
 * a lost record of 0 records, so that a ring can be written from any of
 * its chunks on (docs/cli.md, ring=).
 */
#ifndef QTRACE_PLUGIN_RING_RESTART_H
#define QTRACE_PLUGIN_RING_RESTART_H

#include <stdint.h>

#include "vbuf.h"

/*
 * vbuf's on_chunk: vb (a vCPU's) has just taken a fresh chunk, for a
 * reservation of size bytes (4: a staged block). vCPU thread, once per
 * chunk: never on the fast path.
 */
void ring_restart(struct vbuf *vb, uint32_t size);

#endif /* QTRACE_PLUGIN_RING_RESTART_H */
