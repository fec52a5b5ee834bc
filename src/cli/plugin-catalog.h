/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The event catalog built into libqtrace.so: the trace-events text the
 * generator stored as the symbol qtrace_catalog_text, read from the
 * plugin file's symbol table with libelf (the plugin is not loaded).
 */
#ifndef QTRACE_CLI_PLUGIN_CATALOG_H
#define QTRACE_CLI_PLUGIN_CATALOG_H

#include "qtrace/catalog.h"
#include "qtrace/err.h"

/*
 * Parse the catalog of the plugin at path into cat (release it with
 * qtrace_catalog_fini). Returns 0, or -errno with err saying why
 * ("no symbol qtrace_catalog_text (symbol table stripped?)").
 */
int plugin_catalog_load(const char *path, struct qtrace_catalog *cat,
                        struct qtrace_err *err);

#endif /* QTRACE_CLI_PLUGIN_CATALOG_H */
