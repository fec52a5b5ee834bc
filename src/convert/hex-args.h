/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Which arguments of an event its format prints in hexadecimal, so that
 * the converters show addresses and flags as the dump does: read from
 * the printf format of the trace's own catalog. Pure function.
 */
#ifndef QTRACE_CONVERT_HEX_ARGS_H
#define QTRACE_CONVERT_HEX_ARGS_H

#include <stdint.h>

#include "qtrace/catalog.h"

/*
 * Bit i set when ev's format prints argument i with %x (or %X): the
 * format's conversions are taken in order, one per argument ("%%" left
 * out), or one per argument but the bytes arguments, which may print
 * without one. A format whose conversions match neither gives 0.
 */
uint32_t hex_args_find(const struct qtrace_event_desc *ev);

#endif /* QTRACE_CONVERT_HEX_ARGS_H */
