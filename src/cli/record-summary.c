/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * qtrace record's closing line (see record-summary.h). The trace itself
 * is not read, so the line costs the same for any size of trace.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "record-summary.h"

void record_summary_begin(struct record_summary *s, const char *path)
{
    s->path = path;
    s->existed = stat(path, &s->before) == 0;
}

/*
 * Whether the run left the file as it found it (or left none), or wrote
 * no file that can be read back (-o /dev/null, a FIFO).
 */
static bool is_unwritten(const struct record_summary *s)
{
    struct stat now;

    if (stat(s->path, &now) < 0 || !S_ISREG(now.st_mode)) {
        return true;
    }
    return s->existed && now.st_dev == s->before.st_dev &&
           now.st_ino == s->before.st_ino &&
           now.st_size == s->before.st_size &&
           now.st_mtim.tv_sec == s->before.st_mtim.tv_sec &&
           now.st_mtim.tv_nsec == s->before.st_mtim.tv_nsec;
}

void record_summary_fmt_size(char *buf, size_t len, unsigned long long bytes)
{
    static const char *const units[] = { "kB", "MB", "GB", "TB", "PB" };
    double v = (double)bytes;
    size_t u = 0;

    if (bytes < 1000) {
        snprintf(buf, len, "%llu B", bytes);
        return;
    }
    v /= 1000.0;
    while (v >= 999.95 && u + 1 < sizeof(units) / sizeof(units[0])) {
        v /= 1000.0;
        u++;
    }
    snprintf(buf, len, "%.1f %s", v, units[u]);
}

void record_summary_print(const struct record_summary *s,
                          const struct record_verdict *v)
{
    struct stat st;
    char size[32], insns[64] = "", ring[64] = "";

    if (is_unwritten(s) || stat(s->path, &st) < 0) {
        return;
    }
    record_summary_fmt_size(size, sizeof(size),
                            (unsigned long long)st.st_size);
    if (!v->known) {
        cli_error("record", "%s, no END chunk (the recording did not "
                  "finish) -> %s", size, s->path);
        return;
    }
    if (v->has_insns) {
        snprintf(insns, sizeof(insns), "%" PRIu64 " instructions, ",
                 v->insns);
    }
    if (v->has_ring) {
        /* Given up by the flight recorder on purpose: not lost. */
        snprintf(ring, sizeof(ring), ", %" PRIu64 " left out by the ring",
                 v->ring_dropped);
    }
    cli_error("record", "%s%" PRIu64 " records, %s, %" PRIu64
              " lost%s -> %s", insns, v->records, size, v->lost, ring,
              s->path);
}
