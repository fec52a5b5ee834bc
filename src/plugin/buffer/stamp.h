/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Host clock stamps (timeline=on; docs/format.md, "Timeline"): the clock
 * record vbuf.c writes where a vCPU's chunk begins and ends and where
 * the vCPU stood still, in the encoding of its stream. vbuf.c decides
 * where and when; this file only knows the record.
 */
#ifndef QTRACE_PLUGIN_STAMP_H
#define QTRACE_PLUGIN_STAMP_H

#include <stdint.h>

#include "vbuf.h"

/*
 * A clock record saying that the vCPU ran nothing from host time ns to
 * resume_ns (time: the vCPU's instruction count, *vb->icount) at `at`
 * (room for VBUF_STAMP_MAX bytes there), wrapped in a record packet in
 * a staged stream. Returns its bytes. Called by vbuf.c when vb->stamps
 * is set, on the vCPU's thread, or the writer thread's while the vCPU
 * is parked; no lock, no allocation, no system call.
 */
uint32_t stamp_put(struct vbuf *vb, uint8_t *at, uint64_t ns,
                   uint64_t resume_ns);

#endif /* QTRACE_PLUGIN_STAMP_H */
