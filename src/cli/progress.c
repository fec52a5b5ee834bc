/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The progress bar of the reading commands (see progress.h):
 *
 *   qtrace dump: [##########                ]  38%  212 MB/s  0:07 left
 *
 * The reader calls back once per chunk; the clock is read then, never
 * per record. The rate is that of the input since the bar started (or
 * since the reading went back to an earlier offset: `report` reads a
 * trace once per section), and the time left follows from it.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "progress.h"

/* Nothing for a reading that ends sooner; then a refresh this often. */
#define PROGRESS_FIRST_NS 500000000ull
#define PROGRESS_EVERY_NS 250000000ull
/* The rate needs some time behind it before it says anything. */
#define PROGRESS_RATE_NS 1000000000ull

static struct {
    const char *cmd;
    bool on;                        /* begun, and to be shown */
    bool shown;                     /* a bar is on the screen */
    uint64_t input_bytes;           /* what done / total stand for */
    uint64_t next_ns;               /* when the next drawing may come */
    uint64_t base_ns;               /* where the rate is measured from: */
    uint64_t base_done;             /* time and work */
    uint64_t last_done;
} pr;

static uint64_t now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The threshold, and whether the test variable set it. */
static uint64_t min_bytes(bool *test)
{
    const char *v = getenv("QTRACE_TEST_PROGRESS_MIN");
    char *end;
    unsigned long long n;

    *test = false;
    if (v && *v) {
        n = strtoull(v, &end, 10);
        if (*end == '\0') {
            *test = true;
            return n;
        }
    }
    return PROGRESS_MIN_BYTES;
}

static unsigned int columns(void)
{
    struct winsize ws;

    if (ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 40) {
        return ws.ws_col;
    }
    return 80;
}

/* "212 MB/s" and "0:07 left" into rate and left, or empty strings. */
static void fmt_rate(uint64_t now, uint64_t done, uint64_t total,
                     char *rate, char *left, size_t len)
{
    double secs = (double)(now - pr.base_ns) / 1e9;
    double units = (double)(done - pr.base_done);
    double bytes_per_unit = total ? (double)pr.input_bytes / (double)total
                                  : 0;
    double bps, eta;
    unsigned long s;

    rate[0] = left[0] = '\0';
    if (now - pr.base_ns < PROGRESS_RATE_NS || units <= 0) {
        return;
    }
    bps = units * bytes_per_unit / secs;
    snprintf(rate, len, "  %.0f MB/s", bps / 1e6);
    eta = (double)(total - done) / (units / secs);
    if (eta < 360000) {
        s = (unsigned long)eta;
        if (s >= 3600) {
            snprintf(left, len, "  %lu:%02lu:%02lu left", s / 3600,
                     s / 60 % 60, s % 60);
        } else {
            snprintf(left, len, "  %lu:%02lu left", s / 60, s % 60);
        }
    }
}

static void draw(uint64_t now, uint64_t done, uint64_t total)
{
    char head[64], rate[32], left[32], bar[128];
    unsigned int pct = (unsigned int)(done * 100 / total);
    size_t cols = columns(), width, fill, used;

    snprintf(head, sizeof(head), "qtrace %s: ", pr.cmd);
    fmt_rate(now, done, total, rate, left, sizeof(rate));
    /*
     * The bar takes what the line leaves, 10 to 50 characters, with
     * room kept for the rate and time left, so that it keeps its width
     * when they appear.
     */
    used = strlen(head) + 8 + 26;
    width = cols > used + 10 ? cols - used : 10;
    width = width > 50 ? 50 : width;
    fill = (size_t)((double)done / (double)total * (double)width);
    memset(bar, '#', fill);
    memset(bar + fill, ' ', width - fill);
    bar[width] = '\0';
    fprintf(stderr, "\r\033[K%s[%s] %3u%%%s%s", head, bar, pct, rate, left);
    fflush(stderr);
    pr.shown = true;
}

bool progress_begin(const char *cmd, uint64_t input_bytes)
{
    bool test;
    uint64_t min = min_bytes(&test);

    progress_end();
    memset(&pr, 0, sizeof(pr));
    if (!isatty(STDERR_FILENO) || input_bytes < min || input_bytes == 0) {
        return false;
    }
    pr.cmd = cmd;
    pr.on = true;
    pr.input_bytes = input_bytes;
    pr.base_ns = now_ns();
    pr.next_ns = test ? 0 : pr.base_ns + PROGRESS_FIRST_NS;
    return true;
}

void progress_update(uint64_t done, uint64_t total)
{
    uint64_t now;

    if (!pr.on || total == 0) {
        return;
    }
    if (done >= total) {
        progress_end();
        pr.on = true;           /* the work may go on: another pass */
        return;
    }
    now = now_ns();
    if (done < pr.last_done) {
        /* Read again from an earlier point: the rate starts over. */
        pr.base_ns = now;
        pr.base_done = done;
    }
    pr.last_done = done;
    if (now < pr.next_ns) {
        return;
    }
    pr.next_ns = now + PROGRESS_EVERY_NS;
    draw(now, done, total);
}

void progress_erase(void)
{
    if (pr.shown) {
        fputs("\r\033[K", stderr);
        fflush(stderr);
        pr.shown = false;
    }
}

void progress_end(void)
{
    progress_erase();
    pr.on = false;
}

static void on_progress(void *arg, uint64_t offset, uint64_t size)
{
    (void)arg;
    progress_update(offset, size);
}

void progress_attach(struct qtrace_reader *rd, const char *cmd)
{
    uint64_t size;

    qtrace_reader_offset(rd, &size);
    if (progress_begin(cmd, size)) {
        qtrace_reader_set_progress(rd, on_progress, NULL);
    }
}
