/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Writing a uftrace data directory (the layout of uftrace 0.13, see
 * trace-formats.md section 1.8) from function entries and exits: shared by
 * `qtrace convert --to uftrace` and the plugin's uftrace= sink (on its
 * writer thread). One task per vCPU stream, its call stack kept balanced
 * here; symbols and maps are written at close from a symbol table.
 * Times are guest instruction counts written as nanoseconds. Not
 * thread-safe: one thread writes a given directory.
 */
#ifndef QTRACE_CONVERT_UFTRACE_DIR_H
#define QTRACE_CONVERT_UFTRACE_DIR_H

#include <stdbool.h>
#include <stdint.h>

#include "qtrace/err.h"
#include "qtrace/symbols.h"

struct uftrace_dir;

/* What the info file and task.txt say about the recording. */
struct uftrace_dir_meta {
    const char *exename;            /* guest program; NULL: "guest" */
    const char *cmdline;            /* how it was recorded; NULL: exename */
    unsigned int word_bits;         /* 32 or 64 (the ELF class) */
};

/*
 * Whether dir is a directory this writer may reuse: empty, or a uftrace
 * data directory (its info file starts with uftrace's magic).
 */
bool uftrace_dir_is_reusable(const char *dir);

/*
 * Create the directory dir, or reuse it if it is empty or a uftrace data
 * directory (its uftrace files are removed first). Returns 0 and *out,
 * or -errno with err as "DIR: REASON" (-EEXIST: a directory with other
 * files, left alone).
 */
int uftrace_dir_open(struct uftrace_dir **out, const char *dir,
                     struct qtrace_err *err);

/*
 * A func_entry of stream tid: pc entered at time, the record's depth (1 =
 * outermost, 0 = unknown). A func_exit of the function entered at pc.
 * Returns 0 or -errno (a .dat file that cannot be written), err filled.
 */
int uftrace_dir_entry(struct uftrace_dir *u, uint32_t tid, uint64_t time,
                      uint64_t pc, uint32_t depth, struct qtrace_err *err);
int uftrace_dir_exit(struct uftrace_dir *u, uint32_t tid, uint64_t time,
                     uint64_t pc, struct qtrace_err *err);

/*
 * A user event of stream tid at time: the trace's catalog id and name
 * ("provider:event", e.g. an instrumentation library's LIB:EVENT), named
 * in events.txt. uftrace shows the name, not the event's values.
 * Returns 0 or -errno, err filled.
 */
int uftrace_dir_event(struct uftrace_dir *u, uint32_t tid, uint64_t time,
                      unsigned int id, const char *name,
                      struct qtrace_err *err);

/* Any other record of stream tid: frames left open end at its time. */
void uftrace_dir_seen(struct uftrace_dir *u, uint32_t tid, uint64_t time);

/*
 * Close open frames at their stream's last time, then write info,
 * task.txt, sid-0.map and one <module>.sym per image of syms (which may
 * be NULL: addresses then show in hex) and free u. Returns 0 or -errno
 * with err filled; u is freed either way.
 */
int uftrace_dir_close(struct uftrace_dir *u,
                      const struct uftrace_dir_meta *meta,
                      const struct qtrace_symbols *syms,
                      struct qtrace_err *err);

/* Free without writing the closing files (after an error). */
void uftrace_dir_free(struct uftrace_dir *u);

/* The 16-byte .dat record, little-endian (exported for the unit test). */
void uftrace_dir_fmt_record(uint8_t out[16], uint64_t time, bool exit,
                            uint32_t depth, uint64_t addr);

#endif /* QTRACE_CONVERT_UFTRACE_DIR_H */
