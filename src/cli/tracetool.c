/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * qtrace tracetool: the same as qtrace-tracetool, which is installed
 * beside qtrace (in the build tree, in ../tracetool/). Replaces the
 * process, so its status and messages are the tool's own.
 */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

#define TOOL "qtrace-tracetool"

/* dir of /proc/self/exe + rel + TOOL into buf; false if too long. */
static bool beside_self(const char *rel, char *buf, size_t size)
{
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
    char *slash;

    if (n <= 0) {
        return false;
    }
    self[n] = '\0';
    slash = strrchr(self, '/');
    if (!slash) {
        return false;
    }
    *slash = '\0';
    return (size_t)snprintf(buf, size, "%s/%s%s", self, rel, TOOL) < size;
}

int cmd_tracetool(int argc, char **argv)
{
    static const char *const rels[] = { "", "../tracetool/" };
    char path[PATH_MAX];
    size_t i;

    (void)argc;
    argv[0] = (char *)TOOL;
    for (i = 0; i < sizeof(rels) / sizeof(rels[0]); i++) {
        if (beside_self(rels[i], path, sizeof(path)) &&
            access(path, X_OK) == 0) {
            execv(path, argv);
        }
    }
    execvp(TOOL, argv);
    cli_error("tracetool", "%s: %s", TOOL, strerror(errno));
    return CLI_FAIL;
}
