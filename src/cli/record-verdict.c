/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The status file of a recording and what it says (see record-verdict.h).
 * Runs in `qtrace record` after QEMU has exited.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "kv.h"
#include "record-verdict.h"

/* The END text is a few short lines; more would not be the plugin's. */
#define STATUS_MAX 4096

char *record_verdict_new_status_file(void)
{
    const char *dir = getenv("TMPDIR");
    char *path;
    int fd;

    if (asprintf(&path, "%s/qtrace-status-XXXXXX",
                 dir && dir[0] ? dir : "/tmp") < 0) {
        errno = ENOMEM;
        return NULL;
    }
    fd = mkstemp(path);
    if (fd < 0) {
        int e = errno;

        free(path);
        errno = e;
        return NULL;
    }
    close(fd);
    return path;
}

static uint64_t get_u64(const struct kv_list *kv, const char *key)
{
    const char *v = kv_get(kv, key);

    return v ? strtoull(v, NULL, 10) : 0;
}

void record_verdict_read(const char *path, struct record_verdict *v)
{
    uint8_t text[STATUS_MAX];
    struct kv_list kv = { NULL, NULL, 0 };
    char why[128];
    size_t len;
    FILE *f;

    memset(v, 0, sizeof(*v));
    f = path ? fopen(path, "rb") : NULL;
    if (!f) {
        return;
    }
    len = fread(text, 1, sizeof(text), f);
    fclose(f);
    if (len == 0 || kv_parse(&kv, text, len, why, sizeof(why)) < 0) {
        kv_fini(&kv);
        return;
    }
    v->known = kv_get(&kv, "records") != NULL;
    v->records = get_u64(&kv, "records");
    v->chunks = get_u64(&kv, "chunks");
    v->bytes = get_u64(&kv, "bytes");
    v->lost = get_u64(&kv, "lost");
    v->failed_outputs = get_u64(&kv, "failed_outputs");
    v->has_ring = kv_get(&kv, "ring_dropped") != NULL;
    v->ring_dropped = get_u64(&kv, "ring_dropped");
    v->has_insns = kv_get(&kv, "insns") != NULL;
    v->insns = get_u64(&kv, "insns");
    kv_fini(&kv);
}

void record_verdict_remove(const char *path)
{
    if (path) {
        unlink(path);
    }
}

int record_verdict_status(const char *out, const struct record_verdict *v,
                          int guest_status)
{
    bool bad = false;

    if (v->lost > 0) {
        cli_error("record", "%s: %" PRIu64 " records lost", out, v->lost);
        bad = true;
    }
    /*
     * The plugin said why an output failed; a failing guest's status
     * already fails the run, and a second line would repeat the first.
     */
    if (v->failed_outputs > 0 && guest_status == 0) {
        cli_error("record", "%s: the trace is incomplete (%" PRIu64
                  " plugin output%s failed, see above)", out,
                  v->failed_outputs, v->failed_outputs > 1 ? "s" : "");
        bad = true;
    }
    /*
     * No totals after a guest that ended well: QEMU left without running
     * the plugin's exit (the guest exec'd another program, say). After a
     * failing guest, QEMU's own message or the signal already says it.
     */
    if (!v->known && guest_status == 0) {
        cli_error("record", "%s: the plugin did not finish the trace (it "
                  "left no totals)", out);
        bad = true;
    }
    if (guest_status != 0) {
        return guest_status;
    }
    return bad ? CLI_FAIL : CLI_OK;
}
