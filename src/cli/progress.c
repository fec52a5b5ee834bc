/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The progress display of the reading commands (see progress.h). The
 * reader calls back once per chunk; the clock is read then, never per
 * record.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "progress.h"

/* Nothing for a reading that ends sooner; then a refresh this often. */
#define PROGRESS_FIRST_NS 500000000ull
#define PROGRESS_EVERY_NS 250000000ull

static struct {
    const char *cmd;
    uint64_t start_ns;              /* when the reading was attached */
    uint64_t next_ns;               /* when the next refresh may come */
    int shown;                      /* percentage on screen, -1: none */
} pr = { .shown = -1 };

static uint64_t now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Clear the line the percentage took. */
static void erase(void)
{
    if (pr.shown >= 0) {
        fputs("\r\033[K", stderr);
        fflush(stderr);
        pr.shown = -1;
    }
}

static void on_progress(void *arg, uint64_t offset, uint64_t size)
{
    uint64_t now;
    int pct;

    (void)arg;
    if (offset >= size) {
        erase();
        return;
    }
    now = now_ns();
    if (now < pr.next_ns) {
        return;
    }
    pr.next_ns = now + PROGRESS_EVERY_NS;
    pct = (int)(offset * 100 / size);
    if (pct != pr.shown) {
        fprintf(stderr, "\rqtrace %s: %d%%", pr.cmd, pct);
        fflush(stderr);
        pr.shown = pct;
    }
}

void progress_attach(struct qtrace_reader *rd, const char *cmd)
{
    if (!isatty(STDERR_FILENO)) {
        return;
    }
    pr.cmd = cmd;
    pr.start_ns = now_ns();
    pr.next_ns = pr.start_ns + PROGRESS_FIRST_NS;
    qtrace_reader_set_progress(rd, on_progress, NULL);
}
