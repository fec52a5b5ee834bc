/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Text symbol tables in the System.map and /proc/kallsyms format, one
 * "ADDR TYPE NAME [MODULE]" line per symbol, read into the same form as
 * an ELF file's symbols (elf-file.h). Single-threaded.
 */
#ifndef QTRACE_SYMBOLS_SYMBOL_TABLE_H
#define QTRACE_SYMBOLS_SYMBOL_TABLE_H

#include <stddef.h>

#include "elf-file.h"
#include "qtrace/err.h"

/*
 * Parse the len bytes of text (a whole file named path, for messages)
 * into *f (zeroed first): the text symbols (types t, T, w, W), a module
 * kept in the name as "name [mod]", each running to the next symbol of
 * the same module, the last of a module over SYMBOL_TABLE_LAST_SIZE
 * bytes; f->lo and f->hi span them, f->anchor is _text or else _stext
 * (any type) or else the lowest symbol. Blank lines and lines without an
 * address (nm's undefined symbols, "U name") are passed over.
 *
 * Returns 0, or -errno with err filled: -EINVAL "PATH: line N: ..." for
 * a line of another form, "PATH: no text symbols" when none is kept,
 * and "PATH: every address is 0 ..." for a kallsyms read without the
 * right to see addresses (kptr_restrict); -ENOMEM.
 */
int symbol_table_parse(struct elf_file *f, const char *text, size_t len,
                       const char *path, struct qtrace_err *err);

/* Bytes covered by the last symbol of a table or of a module. */
#define SYMBOL_TABLE_LAST_SIZE 4096u

#endif /* QTRACE_SYMBOLS_SYMBOL_TABLE_H */
