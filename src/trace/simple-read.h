/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Reading QEMU's simpletrace files (simple-format.h), as written by
 * libqtrace-trace's simple backend or by QEMU: records in file order,
 * their arguments decoded when the trace-events file is given. Every
 * length is checked against the file, which may be cut short or hostile.
 */
#ifndef QTRACE_TRACE_SIMPLE_READ_H
#define QTRACE_TRACE_SIMPLE_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "qtrace/catalog.h"
#include "qtrace/err.h"

struct st_reader;

/* One event record; pointers stay valid until the reader is closed. */
struct st_event {
    uint64_t id;
    const char *name;               /* from the mapping; "dropped" */
    uint64_t timestamp_ns;
    uint32_t pid;
    bool is_dropped;                /* args hold the dropped count */
    const uint8_t *args;            /* argument bytes */
    size_t args_len;
    uint64_t offset;                /* of the record in the file */
};

/* True if the first bytes of a file are a simpletrace header. */
bool st_is_simpletrace(const void *head, size_t len);

/* Same, reading path's first bytes; false if it cannot be read. */
bool st_file_is_simpletrace(const char *path);

/* Open path; 0, or -errno with err saying why. */
int st_reader_open(const char *path, struct st_reader **out,
                   struct qtrace_err *err);

/* The file's version (4) and size. */
uint64_t st_reader_version(const struct st_reader *rd);

/*
 * Next event record (mapping records are taken in on the way): 1, 0 at
 * the end, or -EBADMSG with err naming the offset.
 */
int st_reader_next(struct st_reader *rd, struct st_event *ev,
                   struct qtrace_err *err);

/*
 * Print ev's arguments into buf as "name=value ..." (integers in hex,
 * strings as they are, as simpletrace.py prints them) using desc, the
 * event in the trace-events file; NULL desc prints the bytes in hex.
 * Returns 0, or -EBADMSG if the bytes do not fit desc's arguments.
 */
int st_format_args(const struct st_event *ev,
                   const struct qtrace_event_desc *desc, char *buf,
                   size_t size);

void st_reader_close(struct st_reader *rd);

#endif /* QTRACE_TRACE_SIMPLE_READ_H */
