/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * symlist FILE: the symbols qtrace reads for the ELF file FILE, one
 * "0xADDR SIZE NAME" line each at link-time addresses, so tests can
 * compare them with binutils (objdump, nm) on the same file.
 */
#include <inttypes.h>
#include <stdio.h>

#include "qtrace/symbols.h"

int main(int argc, char **argv)
{
    struct qtrace_symbols *s = qtrace_symbols_new();
    struct qtrace_err err = { "" };
    struct qtrace_image im;
    size_t i;

    if (argc != 2 || !s) {
        fprintf(stderr, "usage: symlist FILE\n");
        return 2;
    }
    if (qtrace_symbols_add_map(s, argv[1], 0x10000000, 0x10001000, 0,
                               &err) < 0) {
        fprintf(stderr, "symlist: %s\n", err.msg);
        qtrace_symbols_free(s);
        return 1;
    }
    qtrace_symbols_image(s, 0, &im);
    for (i = 0; i < im.n_syms; i++) {
        printf("0x%" PRIx64 " %" PRIu64 " %s\n", im.syms[i].addr,
               im.syms[i].size, im.syms[i].name);
    }
    qtrace_symbols_free(s);
    return 0;
}
