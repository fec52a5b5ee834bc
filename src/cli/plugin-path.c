/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Finding libqtrace.so (see plugin-path.h). The installed location comes
 * from meson's libdir, which must match the plugin's install_dir.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "plugin-path.h"

#ifndef QTRACE_LIBDIR
#define QTRACE_LIBDIR "lib"
#endif

static int from_env(const char *cmd, const char *env, char **plugin)
{
    if (access(env, R_OK) < 0) {
        cli_error(cmd, "QTRACE_PLUGIN=%s: %s", env, strerror(errno));
        return CLI_FAIL;
    }
    *plugin = realpath(env, NULL);
    if (!*plugin) {
        cli_error(cmd, "QTRACE_PLUGIN=%s: %s", env, strerror(errno));
        return CLI_FAIL;
    }
    return CLI_OK;
}

/*
 * In a build tree (build/src/cli/qtrace, build/src/plugin/libqtrace.so),
 * then installed (PREFIX/bin/qtrace, PREFIX/LIBDIR/qtrace/libqtrace.so).
 */
int plugin_path_find(const char *cmd, char **plugin)
{
    const char *env = getenv("QTRACE_PLUGIN");
    char exe[PATH_MAX];
    char cand[2][PATH_MAX + 64];
    ssize_t n;
    size_t i;

    if (env && *env) {
        return from_env(cmd, env, plugin);
    }
    n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    if (n < 0) {
        cli_error(cmd, "/proc/self/exe: %s (set QTRACE_PLUGIN to the "
                  "path of " PLUGIN_NAME ")", strerror(errno));
        return CLI_FAIL;
    }
    exe[n] = '\0';
    /*
     * The link is canonical (no "..", no symlinks), so cutting two
     * components gives the parent of qtrace's directory.
     */
    for (i = 0; i < 2; i++) {
        char *slash = strrchr(exe, '/');

        if (slash) {
            *slash = '\0';
        }
    }
    snprintf(cand[0], sizeof(cand[0]), "%s/plugin/" PLUGIN_NAME, exe);
    if (QTRACE_LIBDIR[0] == '/') {
        snprintf(cand[1], sizeof(cand[1]), QTRACE_LIBDIR "/qtrace/"
                 PLUGIN_NAME);
    } else {
        snprintf(cand[1], sizeof(cand[1]), "%s/" QTRACE_LIBDIR
                 "/qtrace/" PLUGIN_NAME, exe);
    }
    for (i = 0; i < 2; i++) {
        *plugin = realpath(cand[i], NULL);
        if (*plugin) {
            return CLI_OK;
        }
    }
    cli_error(cmd, PLUGIN_NAME ": not found (looked for %s and %s; set "
              "QTRACE_PLUGIN to its path)", cand[0], cand[1]);
    return CLI_FAIL;
}
