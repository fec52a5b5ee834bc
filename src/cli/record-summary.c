/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * qtrace record's closing line (see record-summary.h). Only the END
 * chunk is read, so the line costs the same for any size of trace.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "record-summary.h"
#include "trace-end.h"

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

/* "N instructions, " when the END chunk counted them, else nothing. */
static void fmt_insns(char *buf, size_t len, const struct kv_list *end)
{
    const char *insns = kv_get(end, "insns");

    buf[0] = '\0';
    if (insns) {
        snprintf(buf, len, "%s instructions, ", insns);
    }
}

void record_summary_print(const struct record_summary *s)
{
    struct kv_list end;
    struct qtrace_err err;
    uint64_t bytes = 0;
    char size[32], insns[64];
    const char *records, *lost;
    int ret;

    if (is_unwritten(s)) {
        return;
    }
    ret = trace_end_read(s->path, &end, &bytes, &err);
    if (ret < 0) {
        cli_error("record", "%s: %s", s->path, err.msg);
        return;
    }
    record_summary_fmt_size(size, sizeof(size), bytes);
    if (ret == 0) {
        cli_error("record", "%s, no END chunk (the recording did not "
                  "finish) -> %s", size, s->path);
        return;
    }
    fmt_insns(insns, sizeof(insns), &end);
    records = kv_get(&end, "records");
    lost = kv_get(&end, "lost");
    cli_error("record", "%s%s records, %s, %s lost -> %s", insns,
              records ? records : "?", size, lost ? lost : "?", s->path);
    kv_fini(&end);
}
