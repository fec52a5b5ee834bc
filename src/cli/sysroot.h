/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The cross sysroot a dynamically linked foreign program needs under
 * qemu-user: Debian's cross libraries live in /usr/<triple>
 * (libc6-arm64-cross puts /usr/aarch64-linux-gnu/lib/ld-linux-aarch64.so.1),
 * and QEMU finds the guest's loader there only when told (-L or
 * QEMU_LD_PREFIX).
 */
#ifndef QTRACE_CLI_SYSROOT_H
#define QTRACE_CLI_SYSROOT_H

#include "qtrace/arch.h"

/*
 * For the program at path, of architecture arch: set *dir to the
 * directory to pass to QEMU's -L (the caller frees it), or to NULL when
 * none is needed (a static program, the host's own architecture, or a
 * loader the host has at its own path, as multiarch installs it), and
 * return CLI_OK. When no sysroot holds the program's loader, print one
 * line naming the Debian package to install (cmd is the command for the
 * message) and return CLI_FAIL.
 */
int sysroot_find(const char *cmd, const char *path,
                 const struct qtrace_arch *arch, char **dir);

#endif /* QTRACE_CLI_SYSROOT_H */
