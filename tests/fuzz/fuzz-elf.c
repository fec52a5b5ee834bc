/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Fuzz target: reading a guest's ELF file. The input is written to a file
 * and read by the plugin's header reader (src/plugin/elf-load.c) and by
 * the symbol loader (src/symbols/: elf-file.c, plt.c, symbols.c, and the
 * debug-file search, kept inside this process's directory), which then
 * places it as a program and as a mapping and looks addresses up.
 */
#include <stdint.h>
#include <stdlib.h>

#include "qtrace/symbols.h"
#include "../../src/plugin/calls/elf-load.h"
#include "../../src/symbols/elf-file.h"
#include "fuzz-file.h"

static volatile uint64_t sink;

/* Every symbol's start and end, and the segment edges, looked up. */
static void look_up(const struct qtrace_symbols *s)
{
    struct qtrace_image im;
    uint64_t off = 0;
    size_t i, k;

    for (i = 0; i < qtrace_symbols_n_images(s); i++) {
        qtrace_symbols_image(s, i, &im);
        sink += (uintptr_t)qtrace_symbols_lookup(s, im.start, &off) + off;
        sink += (uintptr_t)qtrace_symbols_lookup(s, im.end - 1, NULL);
        sink += (uintptr_t)qtrace_symbols_module(s, im.start, &off) + off;
        for (k = 0; k < im.n_syms && k < 4096; k++) {
            uint64_t at = im.syms[k].addr + im.bias;

            sink += (uintptr_t)qtrace_symbols_lookup(s, at, &off);
            sink += (uintptr_t)qtrace_symbols_lookup(
                s, at + im.syms[k].size - 1, &off);
        }
    }
}

static void load_symbols(const char *path)
{
    struct qtrace_symbols *s = qtrace_symbols_new();
    struct elf_file f = { 0 };
    struct qtrace_err err;

    if (!s) {
        abort();
    }
    if (elf_file_read(&f, path, &err) == 0) {
        sink += elf_file_exec_lo(&f);
        sink += qtrace_symbols_add_map(s, path, f.lo + 0x10000,
                                       f.hi + 0x10000, f.lo_offset, &err);
        sink += elf_file_bias(&f, f.lo, f.hi, f.lo_offset, NULL);
        elf_file_fini(&f);
    }
    sink += qtrace_symbols_add_program(s, path, 0x400000, &err);
    look_up(s);
    qtrace_symbols_free(s);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    /* libdw's debug-file search looks here instead of the host's dirs. */
    setenv("QTRACE_DEBUGINFO_PATH", fuzz_file_dir(), 1);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_file_write(data, size);
    struct elf_load el;
    struct qtrace_err err;

    if (elf_load_read(path, &el, &err) == 0) {
        sink += el.entry + el.n_segs;
    }
    load_symbols(path);
    return 0;
}
