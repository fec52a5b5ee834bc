/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The debug file of a stripped ELF file through libdwfl (see
 * debug-file.h): the file is reported as an offline module, and asking
 * for its symbol table makes libdwfl run its standard debug file search;
 * the name of the file it accepted is the answer.
 */
#include <stdlib.h>
#include <string.h>

#include <elfutils/libdwfl.h>

#include "debug-file.h"

char *debug_file_find(const char *path)
{
    char *search = getenv(DEBUG_FILE_PATH_ENV);
    const Dwfl_Callbacks callbacks = {
        .find_elf = dwfl_build_id_find_elf,
        .find_debuginfo = dwfl_standard_find_debuginfo,
        .section_address = dwfl_offline_section_address,
        .debuginfo_path = search && search[0] ? &search : NULL,
    };
    const char *debug_name = NULL;
    char *found = NULL;
    Dwfl_Module *mod;
    Dwfl *dwfl = dwfl_begin(&callbacks);

    if (!dwfl) {
        return NULL;
    }
    mod = dwfl_report_offline(dwfl, "", path, -1);
    if (dwfl_report_end(dwfl, NULL, NULL) == 0 && mod &&
        dwfl_module_getsymtab(mod) >= 0) {
        dwfl_module_info(mod, NULL, NULL, NULL, NULL, NULL, NULL,
                         &debug_name);
    }
    if (debug_name && strcmp(debug_name, path) != 0) {
        found = strdup(debug_name);
    }
    dwfl_end(dwfl);
    return found;
}
