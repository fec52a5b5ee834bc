/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The debug file of a stripped ELF file through libdwfl (see
 * debug-file.h): the file is reported as an offline module, and asking
 * for its symbol table makes libdwfl call find_debug_file below; the
 * name of the file it accepted is the answer. The search is ours, not
 * libdwfl's standard one, because every candidate name comes from a file
 * a trace names (its directory, its .gnu_debuglink): each is opened as
 * open-file.h opens them, so a FIFO or a device planted there is skipped
 * instead of blocking, and nothing is fetched over the network.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <elfutils/libdwelf.h>
#include <elfutils/libdwfl.h>

#include "debug-file.h"
#include "open-file.h"
#include "qtrace/symbols.h"

/* elfutils' default search path; a leading '-' or '+' is about CRCs. */
#define DEFAULT_SEARCH "-:.debug:/usr/lib/debug"

/* What a candidate debug file must match. */
struct want {
    const unsigned char *id;    /* the main file's build-id, or NULL */
    int id_len;                 /* its length in bytes */
    dev_t dev;                  /* the main file itself is no candidate */
    ino_t ino;
};

/* Whether the ELF file open on fd carries the build-id w wants. */
static bool has_build_id(int fd, const struct want *w)
{
    Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
    const void *id = NULL;
    ssize_t len = elf ? dwelf_elf_gnu_build_id(elf, &id) : -1;
    bool same = len == w->id_len && memcmp(id, w->id, (size_t)len) == 0;

    elf_end(elf);
    return same;
}

/*
 * Open path if it is a regular file, not the main file, and (when the
 * main file has a build-id) one with the same build-id. Without a
 * build-id the name alone decides, as the default '-' search does.
 */
static int try_candidate(const char *path, const struct want *w,
                         char **found)
{
    struct qtrace_err ignored;
    struct stat st;
    int fd = open_regular_file(path, &ignored);

    if (fd < 0) {
        return -1;
    }
    if (fstat(fd, &st) < 0 || (st.st_dev == w->dev && st.st_ino == w->ino) ||
        (w->id && !has_build_id(fd, w))) {
        close(fd);
        return -1;
    }
    *found = strdup(path);
    if (!*found) {
        close(fd);
        return -1;
    }
    return fd;
}

/* ROOT/.build-id/xx/yyyy.debug for each absolute folder of the search. */
static int try_build_id(char *search, const struct want *w, char **found)
{
    char path[4096];
    char *save = NULL, *root;
    int fd = -1, n, i;

    for (root = strtok_r(search, ":", &save); root && fd < 0;
         root = strtok_r(NULL, ":", &save)) {
        if (root[0] != '/') {
            continue;
        }
        n = snprintf(path, sizeof(path), "%s/.build-id/%02x/", root,
                     w->id[0]);
        for (i = 1; i < w->id_len && n > 0 && (size_t)n < sizeof(path);
             i++) {
            n += snprintf(path + n, sizeof(path) - (size_t)n, "%02x",
                          w->id[i]);
        }
        if (n > 0 && (size_t)n + sizeof(".debug") <= sizeof(path)) {
            strcpy(path + n, ".debug");
            fd = try_candidate(path, w, found);
        }
    }
    return fd;
}

/*
 * The debuglink name beside the file ("" in the search), in a folder
 * relative to it (".debug"), or under a root with the file's own folder
 * ("/usr/lib/debug" + "/usr/bin" + "/ls.debug").
 */
static int try_debuglink(char *search, const char *dir, const char *link,
                         const struct want *w, char **found)
{
    char path[4096];
    char *entry;
    int fd = -1, n;

    while (fd < 0 && (entry = strsep(&search, ":")) != NULL) {
        if (entry[0] == '\0') {
            n = snprintf(path, sizeof(path), "%s/%s", dir, link);
        } else if (entry[0] != '/') {
            n = snprintf(path, sizeof(path), "%s/%s/%s", dir, entry, link);
        } else if (dir[0] == '/') {
            n = snprintf(path, sizeof(path), "%s%s/%s", entry, dir, link);
        } else {
            continue;   /* a root needs the file's absolute folder */
        }
        if (n > 0 && (size_t)n < sizeof(path)) {
            fd = try_candidate(path, w, found);
        }
    }
    return fd;
}

/* The search path, from the environment or elfutils' default. */
static char *search_path(void)
{
    const char *env = getenv(DEBUG_FILE_PATH_ENV);
    const char *s = env && env[0] ? env : DEFAULT_SEARCH;

    if (s[0] == '-' || s[0] == '+') {
        s++;
    }
    return strdup(s);
}

/* libdwfl's find_debuginfo callback: the fd of the debug file, or -1. */
static int find_debug_file(Dwfl_Module *mod, void **userdata,
                           const char *modname, Dwarf_Addr base,
                           const char *file_name, const char *debuglink,
                           GElf_Word debuglink_crc, char **found)
{
    struct want w = { NULL, 0, 0, 0 };
    const char *slash = file_name ? strrchr(file_name, '/') : NULL;
    char *dir, *link = NULL, *search;
    GElf_Addr id_addr;
    struct stat st;
    int fd = -1;

    (void)userdata, (void)modname, (void)base, (void)debuglink_crc;
    if (!file_name || stat(file_name, &st) < 0) {
        return -1;
    }
    w.dev = st.st_dev;
    w.ino = st.st_ino;
    w.id_len = dwfl_module_build_id(mod, &w.id, &id_addr);
    if (w.id_len <= 0) {
        w.id = NULL;
    }
    dir = slash ? strndup(file_name, (size_t)(slash - file_name))
                : strdup(".");
    search = search_path();
    if (dir && search && w.id) {
        fd = try_build_id(search, &w, found);
        free(search);
        search = search_path();
    }
    /* Without a .gnu_debuglink, libdwfl's search tries NAME.debug. */
    if (!debuglink && asprintf(&link, "%s.debug",
                               slash ? slash + 1 : file_name) < 0) {
        link = NULL;
    }
    if (fd < 0 && dir && search && (debuglink || link)) {
        fd = try_debuglink(search, dir, debuglink ? debuglink : link, &w,
                           found);
    }
    free(link);
    free(search);
    free(dir);
    return fd;
}

char *debug_file_find(const char *path)
{
    const Dwfl_Callbacks callbacks = {
        .find_elf = dwfl_build_id_find_elf,
        .find_debuginfo = find_debug_file,
        .section_address = dwfl_offline_section_address,
    };
    const char *debug_name = NULL;
    struct qtrace_err ignored;
    char *found = NULL;
    Dwfl_Module *mod;
    Dwfl *dwfl;
    int fd = open_regular_file(path, &ignored);

    if (fd < 0) {
        return NULL;
    }
    dwfl = dwfl_begin(&callbacks);
    if (!dwfl) {
        close(fd);
        return NULL;
    }
    /* libdwfl owns fd from here (it closes it, also on failure). */
    mod = dwfl_report_offline(dwfl, "", path, fd);
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

char *qtrace_symbols_debug_file(const char *path)
{
    return debug_file_find(path);
}
