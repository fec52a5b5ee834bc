/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A symbol file the user names (qtrace's --symbols FILE[@ADDR]), told
 * apart by its content: an ELF file (elf-file.c) or a System.map or
 * kallsyms text table (symbol-table.c), placed at its own addresses or
 * moved so that its anchor lies at ADDR. Single-threaded.
 */
#ifndef QTRACE_SYMBOLS_USER_FILE_H
#define QTRACE_SYMBOLS_USER_FILE_H

#include <stdbool.h>
#include <stdint.h>

#include "elf-file.h"
#include "qtrace/err.h"
#include "qtrace/symbols.h"

struct user_file {
    char *path;                     /* as the user gave it */
    bool table;                     /* a text table, not an ELF file */
    struct elf_file elf;            /* its symbols at file addresses */
    uint64_t bias;                  /* run-time minus file address */
};

/*
 * Read path into *u (zeroed first). at (may be NULL): the run-time
 * address of the file's anchor (elf_file_anchor: _text, _stext, else
 * the first executable segment or the lowest symbol). Returns 0, or
 * -errno with err "PATH: REASON" (a line number for a bad text line).
 */
int user_file_read(struct user_file *u, const char *path, const uint64_t *at,
                   struct qtrace_err *err);
void user_file_fini(struct user_file *u);

/*
 * Add u to s ahead of the trace's images (symbols.c): its symbols win
 * at any address they cover. u is borrowed: it must outlive s.
 * Returns 0 or -ENOMEM.
 */
int symbols_add_user(struct qtrace_symbols *s, const struct user_file *u);

/*
 * Add the files of qtrace_symbols_extra_add() to s (extra-files.c).
 * Returns 0 or -ENOMEM.
 */
int extra_files_place(struct qtrace_symbols *s);

#endif /* QTRACE_SYMBOLS_USER_FILE_H */
