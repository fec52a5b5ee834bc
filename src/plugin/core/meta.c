/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The META text of a trace, built at install time, and the guest binary's
 * keys, known in user mode only once the guest runs (the INFO chunk).
 */
#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "qtrace/arch.h"
#include "qtrace/format.h"
#include "../../qemu/qemu-compat.h"
#include "../calls/maps.h"
#include "meta.h"

static struct meta_cfg cfg;
static uint64_t origin_ns;          /* CLOCK_MONOTONIC at meta_setup */

static struct {
    atomic_bool taken;
    atomic_bool ready;
    char path[1024];
    uint64_t start_code, end_code, entry;
} guest_binary;

void meta_setup(const struct meta_cfg *c)
{
    struct timespec ts;

    cfg = *c;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    origin_ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
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

/* "binary=...\n" and the code range: what only the running guest tells. */
static int fmt_binary(char *buf, size_t len)
{
    return snprintf(buf, len,
                    "binary=%s\nstart_code=0x%" PRIx64 "\nend_code=0x%" PRIx64
                    "\nentry=0x%" PRIx64 "\n", guest_binary.path,
                    guest_binary.start_code, guest_binary.end_code,
                    guest_binary.entry);
}

const char *meta_text(void)
{
    static char meta[8192];
    const struct qtrace_arch *arch = qtrace_arch_by_name(cfg.target);
    char events[2048];
    char created[64];
    time_t now = time(NULL);
    struct tm tm;
    int n;

    evsel_fmt(cfg.sel, events, sizeof(events));
    strftime(created, sizeof(created), "%Y-%m-%dT%H:%M:%SZ",
             gmtime_r(&now, &tm));
    n = snprintf(meta, sizeof(meta),
                 "format=%d\nqtrace=%s\narch=%s\nword_bits=%u\nendian=%s\n"
                 "qemu=%s\nplugin_api=%d\nmode=%s\ntime=insns\n"
                 "created=%s\nevents=%s\n",
                 QTRACE_FORMAT_VERSION, QTRACE_VERSION, cfg.target,
                 arch ? arch->word_bits : 0,
                 arch && arch->big_endian ? "big" : "little",
                 cfg.qemu_version, qc_api(),
                 cfg.system_mode ? "system" : "user", created, events);
    /*
     * The clock of the stamps, and its reading when the run began: the
     * zero readers count host times from, in every file of the run.
     */
    if (cfg.timeline && n > 0 && (size_t)n < sizeof(meta)) {
        n += snprintf(meta + n, sizeof(meta) - (size_t)n,
                      "timeline=monotonic\ntimeline_origin=%" PRIu64 "\n",
                      origin_ns);
    }
    if (atomic_load(&guest_binary.ready) && n > 0 &&
        (size_t)n < sizeof(meta)) {
        fmt_binary(meta + n, sizeof(meta) - (size_t)n);
    }
    return meta;
}

const char *meta_info_text(void)
{
    static char info[1200];

    if (!atomic_load(&guest_binary.ready)) {
        return NULL;
    }
    fmt_binary(info, sizeof(info));
    return info;
}
