/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A misspelt qtrace record -e is misuse found before QEMU starts, against
 * the catalog of the plugin that will run.
 */
#ifndef QTRACE_CLI_RECORD_EVENTS_H
#define QTRACE_CLI_RECORD_EVENTS_H

/*
 * Check events (the joined -e value, "@FILE" for a pattern file, or
 * NULL) against the catalog built into the plugin at path. Returns
 * CLI_OK, or CLI_USAGE after printing "qtrace record: -e PATTERN: no
 * event matches[; did you mean 'NAME'?]" and the help pointer. A plugin
 * whose catalog cannot be read, or a pattern file that cannot be, is left
 * to the plugin, which reports it when QEMU loads it: CLI_OK.
 */
int record_events_check(const char *events, const char *plugin);

#endif /* QTRACE_CLI_RECORD_EVENTS_H */
