/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Where libqtrace.so is: $QTRACE_PLUGIN, else beside the qtrace executable
 * (a build tree, then an installed tree). Used by record, which loads it
 * into QEMU, and by list, which reads the catalog built into it.
 */
#ifndef QTRACE_CLI_PLUGIN_PATH_H
#define QTRACE_CLI_PLUGIN_PATH_H

#define PLUGIN_NAME "libqtrace.so"

/*
 * Set *plugin to the plugin's absolute path (the caller frees it) and
 * return CLI_OK, or print "qtrace CMD: ..." on stderr and return CLI_FAIL.
 */
int plugin_path_find(const char *cmd, char **plugin);

#endif /* QTRACE_CLI_PLUGIN_PATH_H */
