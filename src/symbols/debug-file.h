/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Finding the separate debug file of a stripped ELF file the way the
 * elfutils tools do (libdw's standard search): by build-id under
 * /usr/lib/debug/.build-id/xx/yyyy.debug (Debian's -dbg and -dbgsym
 * packages), then by the .gnu_debuglink name beside the file, in its
 * .debug folder and under /usr/lib/debug. Runs on the caller's thread.
 */
#ifndef QTRACE_SYMBOLS_DEBUG_FILE_H
#define QTRACE_SYMBOLS_DEBUG_FILE_H

/*
 * The environment variable that replaces the search path, in the syntax
 * of elfutils' --debuginfo-path ("-:.debug:/usr/lib/debug" by default):
 * absolute folders are debug roots searched by build-id and by path.
 */
#define DEBUG_FILE_PATH_ENV "QTRACE_DEBUGINFO_PATH"

/*
 * The path of the debug file that belongs to the ELF file path (checked
 * against its build-id, or its debuglink CRC), malloc'ed; NULL when
 * there is none or on any error (a missing debug file is no error).
 */
char *debug_file_find(const char *path);

#endif /* QTRACE_SYMBOLS_DEBUG_FILE_H */
