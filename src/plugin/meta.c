/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The META text of a trace. Built on the writer thread when the first
 * chunk is written, by which time a user-mode guest's binary is known.
 */
#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "qtrace/arch.h"
#include "qtrace/format.h"
#include "../qemu/qemu-compat.h"
#include "maps.h"
#include "meta.h"

static struct meta_cfg cfg;

static struct {
    atomic_bool taken;
    atomic_bool ready;
    char path[1024];
    uint64_t start_code, end_code, entry;
} guest_binary;

void meta_setup(const struct meta_cfg *c)
{
    cfg = *c;
}

void meta_capture_binary(uint64_t first_pc)
{
    const char *path;

    if (cfg.system_mode || atomic_exchange(&guest_binary.taken, true)) {
        return;
    }
    path = qemu_plugin_path_to_binary();
    snprintf(guest_binary.path, sizeof(guest_binary.path), "%s",
             path ? path : "");
    free((void *)path);     /* glib-allocated; g_free is free */
    guest_binary.start_code = qemu_plugin_start_code();
    guest_binary.end_code = qemu_plugin_end_code();
    guest_binary.entry = qemu_plugin_entry_code();
    atomic_store(&guest_binary.ready, true);
    if (cfg.trace_maps) {
        maps_binary(guest_binary.path, guest_binary.start_code, first_pc);
    }
}

const char *meta_text(void)
{
    static char meta[8192];
    const struct qtrace_arch *arch = qtrace_arch_by_name(cfg.target);
    bool have_binary = atomic_load(&guest_binary.ready);
    char events[2048];
    char created[64];
    time_t now = time(NULL);
    struct tm tm;

    evsel_fmt(cfg.sel, events, sizeof(events));
    strftime(created, sizeof(created), "%Y-%m-%dT%H:%M:%SZ",
             gmtime_r(&now, &tm));
    snprintf(meta, sizeof(meta),
             "format=%d\nqtrace=%s\narch=%s\nword_bits=%u\nendian=%s\n"
             "qemu=%s\nplugin_api=%d\nmode=%s\nbinary=%s\n"
             "start_code=0x%" PRIx64 "\nend_code=0x%" PRIx64
             "\nentry=0x%" PRIx64 "\ntime=insns\ncreated=%s\nevents=%s\n",
             QTRACE_FORMAT_VERSION, QTRACE_VERSION, cfg.target,
             arch ? arch->word_bits : 0,
             arch && arch->big_endian ? "big" : "little",
             cfg.qemu_version, qc_api(),
             cfg.system_mode ? "system" : "user",
             have_binary ? guest_binary.path : "",
             have_binary ? guest_binary.start_code : 0,
             have_binary ? guest_binary.end_code : 0,
             have_binary ? guest_binary.entry : 0,
             created, events);
    return meta;
}
