/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Loading the plugin's LTTng-UST probes (libqtrace-ust.so, beside
 * libqtrace.so) for backend=ust. Called once, at install time.
 */
#ifndef QTRACE_PLUGIN_UST_LOAD_H
#define QTRACE_PLUGIN_UST_LOAD_H

#include "qtrace/err.h"

/*
 * dlopen() the probes module from the plugin's own directory; it stays
 * loaded for the life of the process. Returns 0, or -1 with err naming
 * the module and dlerror()'s reason.
 */
int ust_load(struct qtrace_err *err);

#endif /* QTRACE_PLUGIN_UST_LOAD_H */
