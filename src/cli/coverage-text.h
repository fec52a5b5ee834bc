/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The text form of `qtrace coverage` (docs/cli.md): per module and per
 * function, what ran. Main thread.
 */
#ifndef QTRACE_CLI_COVERAGE_TEXT_H
#define QTRACE_CLI_COVERAGE_TEXT_H

#include <stdio.h>

#include "coverage.h"
#include "qtrace/symbols.h"

/*
 * Print c on out, functions named after syms. Returns 0, or -1 when
 * out of memory.
 */
int coverage_text_print(const struct cov *c,
                        const struct qtrace_symbols *syms, FILE *out);

#endif /* QTRACE_CLI_COVERAGE_TEXT_H */
