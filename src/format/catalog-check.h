/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the reader needs from a trace's own catalog (docs/format.md,
 * "Reading rules", "The catalog a reader relies on"). The catalog comes
 * with the file, so before any record is read its layouts are checked:
 * every argument inside its event's fixed part, and each field the reader
 * loads or stores itself (the packed events it rebuilds, tb_trans and
 * lost) of the width the reader uses. Runs once, at open.
 */
#ifndef QTRACE_FORMAT_CATALOG_CHECK_H
#define QTRACE_FORMAT_CATALOG_CHECK_H

#include "qtrace/catalog.h"
#include "qtrace/err.h"

/*
 * 0 when the reader can rely on cat; -EBADMSG with err naming the event
 * and the field ("catalog: event exec_tb field pc is uint8_t at offset
 * 63, the reader needs a 64-bit field inside the record"). A field the
 * reader would use but the event lacks is no error: the event is then
 * not rebuilt from packets (unpack.c), as with an older catalog.
 */
int catalog_check_reader_needs(const struct qtrace_catalog *cat,
                               struct qtrace_err *err);

#endif /* QTRACE_FORMAT_CATALOG_CHECK_H */
