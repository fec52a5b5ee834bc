/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The text of a mem_access record in `qtrace dump`: its flags decoded as
 * words, and paddr, dev and value only when its flags say they are valid
 * (QEMU 7.2 gives no values; user mode has no physical addresses), where
 * the catalog's format would print zeros that look like data.
 */
#ifndef QTRACE_CLI_MEM_TEXT_H
#define QTRACE_CLI_MEM_TEXT_H

#include <stdbool.h>
#include <stddef.h>

#include "qtrace/reader.h"

/* Where mem_access's arguments sit in a trace's catalog. */
struct mem_text {
    const struct qtrace_event_desc *ev; /* NULL: absent or unknown shape */
    int pc, vaddr, paddr, size, flags;  /* argument indexes */
    int device, value;                  /* -1 when the catalog lacks them */
    bool fast;                          /* every argument an unsigned
                                           integer (device a string): read
                                           in place, see mem_text_fmt */
};

/* Room in which mem_text_fmt writes a line without counting each piece. */
#define MEM_TEXT_FAST_ROOM 192u

/* Find mem_access and its arguments by name in cat. */
void mem_text_map(struct mem_text *m, const struct qtrace_catalog *cat);

/*
 * Format the arguments of rec (a record of m->ev) into buf, like
 * snprintf (returns the length needed, without the NUL):
 *   pc 0xP vaddr 0xV [paddr 0xA] size N load|store [sext] [be] [io]
 *   [dev 'NAME'] [value 0xX] [flags 0xF]
 * the last for flag bits this reader does not know.
 */
int mem_text_fmt(const struct mem_text *m, const struct qtrace_record *rec,
                 char *buf, size_t len);

#endif /* QTRACE_CLI_MEM_TEXT_H */
