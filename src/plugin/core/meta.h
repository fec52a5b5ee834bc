/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The META chunk's text (docs/format.md, "META chunk"): what the trace is
 * of, including what user-mode QEMU knows of the guest binary, which is
 * captured on the first translation.
 */
#ifndef QTRACE_PLUGIN_META_H
#define QTRACE_PLUGIN_META_H

#include <stdbool.h>
#include <stdint.h>

#include "evsel.h"

struct meta_cfg {
    const char *target;             /* QEMU's target name: "aarch64" */
    const char *qemu_version;
    bool system_mode;
    bool trace_maps;                /* the binary goes to maps.c too */
    const struct evsel *sel;        /* the recorded events */
    bool timeline;                  /* clock records: timeline= keys */
};

/* At install; cfg's strings and selection must live until exit. */
void meta_setup(const struct meta_cfg *cfg);

/*
 * At every translation (first_pc: the block's address); only the first
 * one of a user-mode run does anything. Not at install time: the binary
 * is not loaded then (QEMU 7.2 crashes in path_to_binary), and only a
 * vCPU thread may ask.
 */
void meta_capture_binary(uint64_t first_pc);

/*
 * The META text, "key=value\n" lines (a sink_meta_fn); the guest binary's
 * keys only once they are known.
 */
const char *meta_text(void);

/*
 * The guest binary's keys (binary, start_code, end_code, entry) for the
 * INFO chunk of a trace whose META went out before the guest ran; NULL
 * while they are not known (and always in system mode).
 */
const char *meta_info_text(void);

#endif /* QTRACE_PLUGIN_META_H */
