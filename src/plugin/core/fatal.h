/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The last word before a user-mode QEMU dies of a signal. QEMU 7.2 calls
 * no plugin hook when the guest dies of a signal (a fault, abort(), a
 * SIGTERM it does not catch): it restores the signal's default action
 * and sends the signal to itself with kill(). This hook sits in QEMU's
 * own import of kill() and runs a callback just before.
 */
#ifndef QTRACE_PLUGIN_FATAL_H
#define QTRACE_PLUGIN_FATAL_H

#include <stdbool.h>

/* Called once, on the dying thread, with the host signal number. */
typedef void (*fatal_fn)(int sig);

/*
 * Route QEMU's calls of kill() through the hook (install time). False
 * when QEMU's executable imports no kill() the hook can take over (a
 * static build): the flush interval then bounds what is lost.
 */
bool fatal_hook_install(fatal_fn on_fatal);

#endif /* QTRACE_PLUGIN_FATAL_H */
