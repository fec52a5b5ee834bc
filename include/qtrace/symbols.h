/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Guest symbols: function names read with libelf from the ELF files a
 * guest ran (symtab and dynsym), placed at the addresses they were loaded
 * at, and looked up by address. Memory grows with the number of images
 * and their symbols, never with the trace. Single-threaded: one table per
 * thread.
 */
#ifndef QTRACE_SYMBOLS_H
#define QTRACE_SYMBOLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "qtrace/err.h"

struct qtrace_symbols;
struct qtrace_reader;

/* One symbol of an ELF file, at its link-time (ELF) address. */
struct qtrace_sym {
    uint64_t addr;                  /* st_value (Thumb bit cleared) */
    uint64_t size;                  /* bytes covered, never 0 (see below) */
    const char *name;               /* owned by the table */
};

/*
 * One image: an ELF file placed in the guest's address space. Run-time
 * address = ELF address + bias.
 */
struct qtrace_image {
    const char *path;               /* host path, owned by the table */
    uint64_t start;                 /* run-time range [start, end) */
    uint64_t end;
    uint64_t offset;                /* file offset mapped at start */
    uint64_t bias;                  /* run-time minus ELF address */
    bool loaded;                    /* ELF read: syms is valid */
    size_t n_syms;
    const struct qtrace_sym *syms;  /* sorted by addr, no overlaps */
};

/* An empty table, or NULL when out of memory. */
struct qtrace_symbols *qtrace_symbols_new(void);
void qtrace_symbols_free(struct qtrace_symbols *s);  /* NULL is a no-op */

/*
 * The ELF file path mapped at [start, end) from file offset (an image_map
 * record). The load bias is start minus the ELF address of that offset
 * (found through the PT_LOAD segment holding it: 0 for a non-PIE program,
 * the load base for PIE programs and shared objects). The image then
 * covers the whole extent of the file's PT_LOAD segments, so a record of
 * any one of its mappings places all of its code. Each file is read once,
 * however often it is mapped.
 *
 * Returns 0 when the image is new, 1 when it was known already (same file
 * and bias: nothing changes) or when the file could not be read before,
 * and -errno the first time a file cannot be read as an ELF (err:
 * "PATH: REASON"; -ENOEXEC when it is no ELF file at all, such as a data
 * file the guest mapped). Such an image is kept without symbols: its
 * addresses resolve to nothing and the caller shows them in hex.
 */
int qtrace_symbols_add_map(struct qtrace_symbols *s, const char *path,
                           uint64_t start, uint64_t end, uint64_t offset,
                           struct qtrace_err *err);

/*
 * The guest program known only from the trace header (META binary and
 * start_code): a non-PIE program at its link addresses, a PIE one biased
 * so that its first executable segment starts at start_code (that is what
 * QEMU user mode reports). Returns 1 and does nothing when an image of
 * the same file exists already (from an image_map record), else as
 * qtrace_symbols_add_map().
 */
int qtrace_symbols_add_program(struct qtrace_symbols *s, const char *path,
                               uint64_t start_code, struct qtrace_err *err);

/*
 * The symbol holding the run-time address addr: its name, and in *offset
 * (may be NULL) addr's distance from the symbol's start. NULL when no
 * image or no symbol covers addr. The name belongs to the table.
 */
const char *qtrace_symbols_lookup(const struct qtrace_symbols *s,
                                  uint64_t addr, uint64_t *offset);

/*
 * As qtrace_symbols_lookup(), and in *size (may be NULL) the bytes the
 * symbol covers (its st_size, or up to the next symbol: see below).
 */
const char *qtrace_symbols_lookup_sized(const struct qtrace_symbols *s,
                                        uint64_t addr, uint64_t *offset,
                                        uint64_t *size);

/*
 * The image holding the run-time address addr, for addresses no symbol
 * covers: the base name of its file ("libc.so.6"), and in *elf_addr
 * (may be NULL) addr's ELF address (addr minus the load bias: what
 * objdump and addr2line show for it). NULL when no image holds addr or
 * its file could not be read. The name belongs to the table.
 */
const char *qtrace_symbols_module(const struct qtrace_symbols *s,
                                  uint64_t addr, uint64_t *elf_addr);

/*
 * Images: the --symbols files first (qtrace_symbols_extra_add, in the
 * order given), then the trace's, sorted by start address.
 */
size_t qtrace_symbols_n_images(const struct qtrace_symbols *s);
/* Image i (< n_images) into *out; pointers belong to the table. */
void qtrace_symbols_image(const struct qtrace_symbols *s, size_t i,
                          struct qtrace_image *out);

/* Called with one line, "PATH: REASON", per file that cannot be read. */
typedef void (*qtrace_symbols_warn_fn)(void *arg, const char *msg);

/*
 * A symbol file the user gives (qtrace's --symbols FILE[@ADDR]) for
 * every table qtrace_symbols_load_trace() fills from now on in this
 * process: code the trace names no file for (a kernel or firmware in
 * system mode, a JIT) or a better table for one it names (the unstripped
 * original of a stripped program). Read here, once; main thread only.
 *
 * FILE is told by its content: an ELF file (program, vmlinux, firmware
 * image, debug file: its symbols as for the trace's files) or a text
 * table in the System.map and /proc/kallsyms format, "ADDR TYPE NAME
 * [MODULE]" (hexadecimal ADDR without 0x): text symbols only (types t,
 * T, w, W), named "NAME [MODULE]" when a module is given, each running
 * to the next symbol of its module; the last one of a module covers 4
 * KiB. Without @ADDR the symbols are at the file's addresses; with it
 * (hexadecimal, 0x optional) they are moved so that the file's anchor
 * lies at ADDR: its _text, else its _stext, else its first executable
 * segment (ELF) or its lowest symbol (text). A spec that names an
 * existing file is a path as a whole.
 *
 * Within a table, a --symbols file's symbol wins over the images' at any
 * address it covers, and among those files the first given wins.
 * Returns 0 or -errno with err: "PATH: REASON", "PATH: line N: REASON"
 * for a text line of another form, "SPEC: ..." for a bad ADDR.
 */
int qtrace_symbols_extra_add(const char *spec, struct qtrace_err *err);

/* Forget the files of qtrace_symbols_extra_add(): after every table
 * that used them is freed. */
void qtrace_symbols_extra_clear(void);

/*
 * The symbols of a trace's guest: the --symbols files
 * (qtrace_symbols_extra_add), every image_map record (arguments
 * start, end, offset, path), then the program named in the header (META
 * binary and start_code, user mode) unless a record placed it already.
 * Reads the trace from its start and rewinds it; a trace that stops early
 * gives what was read (its reader reports the cut later). warn (may be
 * NULL) is told once about each file that cannot be read, except mapped
 * files that are not ELF at all (ld.so.cache, data): those are no loss.
 * Returns 0 or -ENOMEM.
 */
int qtrace_symbols_load_trace(struct qtrace_symbols *s,
                              struct qtrace_reader *rd,
                              qtrace_symbols_warn_fn warn, void *arg);

/*
 * The separate debug file of the ELF file path (its DWARF, for a file
 * stripped of it), found as the symbol table's is: by build-id, then by
 * .gnu_debuglink (QTRACE_DEBUGINFO_PATH replaces the search path).
 * malloc'ed, or NULL when there is none.
 */
char *qtrace_symbols_debug_file(const char *path);

/*
 * Symbols kept: functions (STT_FUNC, STT_GNU_IFUNC) and labels without a
 * type in executable sections (assembly), defined in a section. Mapping
 * symbols ($x, $d, $a, $t...) and local .L labels are dropped. At one
 * address one name wins: a function over a label, then the fewest
 * leading underscores (calloc over __calloc), then global over weak over
 * local. A file without a symbol table (stripped) takes the one of its
 * separate debug file, found by libdw's standard search (build-id, then
 * .gnu_debuglink; QTRACE_DEBUGINFO_PATH replaces its path). PLT stubs
 * get "name@plt" after the relocation of the GOT slot they jump through
 * (see src/symbols/plt.c). A symbol of size 0
 * covers up to the next symbol or the end of its section (or of the sized
 * function it sits in); a sized symbol ends at the next symbol if that
 * comes first.
 */

#endif /* QTRACE_SYMBOLS_H */
