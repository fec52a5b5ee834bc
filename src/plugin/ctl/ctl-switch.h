/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What a vCPU writes into its stream when it follows a change of the
 * output state (trace-file on|off|set): runs on the vCPU's thread, from
 * its slow path (vbuf_cross), never on the fast path.
 */
#ifndef QTRACE_PLUGIN_CTL_SWITCH_H
#define QTRACE_PLUGIN_CTL_SWITCH_H

#include <stdint.h>

#include "../buffer/vbuf.h"

/* vbuf's on_cross for a vCPU's buffer (struct vcpu's buf). */
void ctl_switch_cross(struct vbuf *vb, enum vbuf_cross how, uint64_t time);

/*
 * The instructions of vb's stream in the current file, to be added to
 * END's insns= when the stream ends: icount minus where the file began.
 */
uint64_t ctl_switch_file_insns(const struct vbuf *vb, uint64_t icount);

/* Guest instructions so far: every vCPU's count, summed (any thread). */
uint64_t ctl_switch_insns_now(void);

#endif /* QTRACE_PLUGIN_CTL_SWITCH_H */
