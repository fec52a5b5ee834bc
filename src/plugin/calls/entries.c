/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Function entries for the call tracker (entries.h). A mapping is added
 * on the vCPU thread at its mmap's return, or at the first translation;
 * lookups happen when a block ending in a direct jump is translated. Both
 * are rare next to block executions, so one mutex guards the table, which
 * is single-threaded by itself.
 */
#include <pthread.h>
#include <string.h>

#include "qtrace/symbols.h"
#include "entries.h"

static struct {
    pthread_mutex_t lock;
    struct qtrace_symbols *syms;    /* NULL: not set up */
} es = { .lock = PTHREAD_MUTEX_INITIALIZER };

bool entries_setup(void)
{
    es.syms = qtrace_symbols_new();
    return es.syms != NULL;
}

void entries_add_map(const char *path, uint64_t start, uint64_t end,
                     uint64_t offset)
{
    if (!es.syms) {
        return;
    }
    /* A file that is no ELF (ld.so.cache, data) just names nothing. */
    pthread_mutex_lock(&es.lock);
    qtrace_symbols_add_map(es.syms, path, start, end, offset, NULL);
    pthread_mutex_unlock(&es.lock);
}

/*
 * GCC moves the unlikely paths of a function into a symbol of their own,
 * NAME.cold, reached by jumps from NAME and jumping back into it: a part
 * of NAME's frame, not a function.
 */
static bool is_split_part(const char *name)
{
    return strstr(name, ".cold") != NULL;
}

bool entries_is_function(uint64_t pc)
{
    uint64_t offset = 1;
    const char *name;
    bool entry;

    if (!es.syms) {
        return false;
    }
    pthread_mutex_lock(&es.lock);
    name = qtrace_symbols_lookup(es.syms, pc, &offset);
    entry = name != NULL && offset == 0 && !is_split_part(name);
    pthread_mutex_unlock(&es.lock);
    return entry;
}
