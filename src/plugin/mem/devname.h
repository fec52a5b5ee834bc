/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The device name a system-mode I/O access is recorded with (mem.c):
 * which QEMU can be asked for it, and the stable form of the name.
 * Pure functions: no QEMU call, so that unit tests link them.
 */
#ifndef QTRACE_PLUGIN_DEVNAME_H
#define QTRACE_PLUGIN_DEVNAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Whether qemu_plugin_hwaddr_device_name may be called from a memory
 * callback of the QEMU whose version string is version ("7.2.22 (Debian
 * 1:7.2+dfsg-7)", as qc_qemu_version gives it): 8.2 and later. Before
 * 8.2 it dereferences a MemoryRegionSection that another vCPU thread can
 * have replaced under MTTCG (docs/kernel.md), and QEMU dies of SIGSEGV.
 * False for a version it cannot read.
 */
bool devname_qemu_safe(const char *version);

/*
 * The name to record for an access at guest physical address paddr to
 * the region QEMU calls qemu_name, into buf (len bytes, NUL-terminated,
 * cut to fit): qemu_name itself, but for a region QEMU left unnamed,
 * which it calls "anon" and eight hex digits of a host pointer that
 * change from run to run: that becomes "anon@0x" and the address of the
 * accessed 4 KiB page ("anon@0xfed00000"). Returns the length written.
 */
size_t devname_format(const char *qemu_name, uint64_t paddr, char *buf,
                      size_t len);

#endif /* QTRACE_PLUGIN_DEVNAME_H */
