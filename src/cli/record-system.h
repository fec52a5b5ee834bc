/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * qtrace record --system: the qemu-system-<arch> command line for a
 * whole machine (a kernel, a firmware), and what a kernel image says of
 * its architecture. Main thread, before QEMU runs.
 */
#ifndef QTRACE_CLI_RECORD_SYSTEM_H
#define QTRACE_CLI_RECORD_SYSTEM_H

#include <stdbool.h>
#include <stddef.h>

#include "qtrace/arch.h"

struct record_system {
    bool on;                        /* --system */
    const char *arch;               /* --arch NAME, or NULL */
    const char *machine;            /* -M, --machine NAME, or NULL */
    const char *kernel;             /* --kernel FILE, or NULL */
    const char *initrd;             /* --initrd FILE, or NULL */
    const char *append;             /* --append CMDLINE, or NULL */
};

/*
 * What the file at path is when it is a Linux kernel image that is not
 * ELF: "bzImage" (x86 boot protocol, "HdrS" at 0x202), "arm64 Image" or
 * "RISC-V Image" (their magic at 0x38), with the QEMU target name in
 * *arch (may be NULL); NULL for anything else or an unreadable file.
 */
const char *record_system_image_kind(const char *path, const char **arch);

/*
 * The guest architecture of a system-mode run: --arch, else the
 * kernel's (an ELF file's machine, or the kind of image above), else
 * x86_64. Returns CLI_OK, or CLI_FAIL / CLI_USAGE after one line.
 */
int record_system_arch(const struct record_system *sys,
                       const struct qtrace_arch **arch);

/*
 * qemu [-machine M] [-kernel K] [-initrd I] [-append A] WORDS... -plugin
 * PLUGIN_ARG ARGS...: WORDS are record's -Q words, ARGS (NULL-ended) the
 * QEMU arguments after "--", last so that they win where QEMU keeps the
 * last. The strings are borrowed; the array is malloc'ed (NULL when out
 * of memory).
 */
char **record_system_argv(char *qemu, char *plugin_arg,
                          const struct record_system *sys,
                          char *const *words, size_t n_words,
                          char *const *args);

#endif /* QTRACE_CLI_RECORD_SYSTEM_H */
