/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Function entries of the guest's images (user mode), for the call
 * tracker: a direct jump to a function's first address is a tail call.
 * Filled from the image maps (the program, its interpreter, each file the
 * guest maps) with the guest symbol table of src/symbols/; asked at
 * translation time only. Any thread; one lock, never taken per executed
 * block.
 */
#ifndef QTRACE_PLUGIN_ENTRIES_H
#define QTRACE_PLUGIN_ENTRIES_H

#include <stdbool.h>
#include <stdint.h>

/* At install, when calls are tracked in user mode. False: out of memory. */
bool entries_setup(void);

/*
 * path is mapped at [start, end) from file offset (an image_map record):
 * its function symbols become known. Files that are not ELF are ignored.
 * A no-op before entries_setup().
 */
void entries_add_map(const char *path, uint64_t start, uint64_t end,
                     uint64_t offset);

/* pc is the first address of a function symbol of a mapped image. */
bool entries_is_function(uint64_t pc);

#endif /* QTRACE_PLUGIN_ENTRIES_H */
