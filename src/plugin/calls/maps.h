/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * image_map records (user mode): which host file backs which guest
 * addresses. The program and its ELF interpreter come from QEMU's
 * information and their ELF headers, once, at the first translation;
 * files the guest maps itself come from its mmap system calls.
 */
#ifndef QTRACE_PLUGIN_MAPS_H
#define QTRACE_PLUGIN_MAPS_H

#include <stdbool.h>
#include <stdint.h>

#include "../buffer/vbuf.h"

/*
 * At install: follow the guest's images for QEMU target `target` (user
 * mode), writing image_map records when record is true; each image is
 * also handed to the function entries (entries.h).
 */
bool maps_setup(const char *target, bool record);

/*
 * At the first translation (its pc is where the guest starts: the
 * interpreter's entry for a dynamic program): the program at path, whose
 * code QEMU says starts at start_code, and its interpreter. Written to
 * the translation stream (no vCPU, time 0).
 */
void maps_binary(const char *path, uint64_t start_code, uint64_t first_pc);

/* A system call starts: an mmap of a file notes the file. */
void maps_syscall(unsigned int vcpu, int64_t num, uint64_t len,
                  uint64_t flags, uint64_t fd, uint64_t offset);

/* It returned: a successful mmap of a file is recorded into vb. */
void maps_syscall_ret(unsigned int vcpu, struct vbuf *vb, uint64_t time,
                      int64_t num, int64_t ret);

#endif /* QTRACE_PLUGIN_MAPS_H */
