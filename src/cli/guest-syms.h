/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Guest symbols for the reading commands: the trace's symbol table
 * loaded with warnings in the CLI's form, and addresses printed as
 * names. Single-threaded, main thread.
 */
#ifndef QTRACE_CLI_GUEST_SYMS_H
#define QTRACE_CLI_GUEST_SYMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "qtrace/reader.h"
#include "qtrace/symbols.h"

/*
 * --symbols FILE[@ADDR] of command cmd (dump, report, replay, convert):
 * the file is read now, for every symbol table loaded later in this
 * process (qtrace_symbols_extra_add). Returns CLI_OK, or CLI_USAGE
 * after one line naming the file and the reason (a line number for a
 * bad line of a text table).
 */
int guest_syms_option(const char *cmd, const char *spec);

/*
 * Forget the --symbols files of an earlier command run in this process
 * (tests and the fuzzer call commands in-process): called before
 * parsing a command's options.
 */
void guest_syms_options_reset(void);

/* The help line of --symbols, shared by the commands that take it. */
#define GUEST_SYMS_HELP \
    "      --symbols=FILE[@ADDR]\n" \
    "                    name addresses after FILE too (an ELF file, a\n" \
    "                    System.map or kallsyms), moved so that its\n" \
    "                    _text lies at ADDR if given; its names win over\n" \
    "                    the trace's files; repeatable\n"

/*
 * The symbols of the trace rd (rewound afterwards). A file that cannot
 * be read is reported once on stderr, "qtrace CMD: PATH: REASON
 * (addresses shown in hex)". NULL when out of memory (reported too).
 */
struct qtrace_symbols *guest_syms_load(struct qtrace_reader *rd,
                                       const char *cmd);

/*
 * addr as text into buf: "name" when addr is a symbol's start, else
 * "name+0xOFF" ("name+0x0" too when with_off); "module+0xELFADDR" when
 * no symbol but an image holds it ("gzip+0x4290"), or "0xADDR" when
 * nothing does. Returns buf.
 */
const char *guest_syms_fmt(const struct qtrace_symbols *s, uint64_t addr,
                           bool with_off, char *buf, size_t len);

/*
 * The name of the function entered at addr, as guest_syms_fmt() gives
 * it, with a PLT stub's "name@plt" shown as "name" unless keep_plt (a
 * call through the PLT and a direct call reach the same function).
 */
const char *guest_syms_fn_name(const struct qtrace_symbols *s,
                               uint64_t addr, bool keep_plt, char *buf,
                               size_t len);

#endif /* QTRACE_CLI_GUEST_SYMS_H */
