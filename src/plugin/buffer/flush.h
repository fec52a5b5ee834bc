/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The flush interval: no record stays in a vCPU's buffer much longer than
 * flush= milliseconds, so a QEMU that dies without a word loses at most
 * that much. Runs on the writer thread; the vCPUs' fast path is not
 * involved (see vbuf_ask_flush and vbuf_flush_parked).
 */
#ifndef QTRACE_PLUGIN_FLUSH_H
#define QTRACE_PLUGIN_FLUSH_H

#include <stddef.h>
#include <stdint.h>

#include "vbuf.h"

/* At writer start: the interval in ms, 0 for none. */
void flush_init(uint32_t interval_ms);

/* Add vb to the buffers watched (any thread; vb lives until exit). */
void flush_watch(struct vbuf *vb);

/* CLOCK_MONOTONIC time in ns (what the deadlines below count in). */
uint64_t flush_now_ns(void);

/*
 * Writer thread: when now_ns has reached the deadline, ask every vCPU
 * that has handed nothing over for half an interval to do so. Returns the
 * next deadline; UINT64_MAX without an interval.
 */
uint64_t flush_tick(uint64_t now_ns);

/*
 * Writer thread, for runtime control: the watched buffers (at most max
 * into out), and a request that vb hand its chunk over now if its vCPU
 * is parked, else at its next record.
 */
size_t flush_watched(struct vbuf **out, size_t max);
void flush_ask(struct vbuf *vb);

/*
 * In a forked child, which has no writer thread: a buffer the parent's
 * writer held at the fork goes back to its vCPU.
 */
void flush_after_fork_child(void);

#endif /* QTRACE_PLUGIN_FLUSH_H */
