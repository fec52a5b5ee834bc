/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libqtrace-ust.so: the LTTng-UST probes of the plugin's events
 * (provider "qtrace", from the header qtrace-tracetool generates from
 * trace-events). The plugin holds the tracepoints; ust-load.c loads this
 * module for backend=ust only, and liblttng-ust, which it pulls in,
 * registers the provider with the session daemon as it loads.
 */
#define LTTNG_UST_TRACEPOINT_CREATE_PROBES
#include "trace-ust-qtrace.h"
