/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * qtrace record's check of its -e patterns before QEMU runs (see
 * record-events.h), with the reading commands' event filter, whose
 * errors offer the closest event name.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../symbols/open-file.h"
#include "cli.h"
#include "event-filter.h"
#include "plugin-catalog.h"
#include "record-events.h"

/* -e patterns from an @FILE: one list per line, '#' starts a comment. */
static int check_event_file(const struct qtrace_catalog *cat,
                            const char *path)
{
    struct event_filter f;
    struct qtrace_err err;
    unsigned int lineno = 0;
    char line[1024];
    int ret = CLI_OK;
    FILE *fp;
    int fd;

    /*
     * An unreadable file, or one that is no regular file (a FIFO would
     * block here, /dev/zero never end), is the plugin's to report: it
     * refuses it at load with one line.
     */
    fd = open_regular_file(path, &err);
    if (fd < 0) {
        return CLI_OK;
    }
    fp = fdopen(fd, "r");
    if (!fp) {
        close(fd);
        return CLI_OK;
    }
    while (ret == CLI_OK && fgets(line, sizeof(line), fp)) {
        lineno++;
        line[strcspn(line, "#\r\n")] = '\0';
        if (line[strspn(line, ",; \t")] == '\0') {
            continue;
        }
        if (event_filter_parse(&f, cat, line, &err) < 0) {
            ret = cli_usage("record", "-e @%s: line %u: %s", path, lineno,
                            err.msg);
        }
    }
    fclose(fp);
    return ret;
}

int record_events_check(const char *events, const char *plugin)
{
    struct qtrace_catalog cat = { 0 };
    struct event_filter f;
    struct qtrace_err err;
    int ret = CLI_OK;

    if (!events || plugin_catalog_load(plugin, &cat, &err) < 0) {
        qtrace_catalog_fini(&cat);
        return CLI_OK;
    }
    if (events[0] == '@') {
        ret = check_event_file(&cat, events + 1);
    } else if (event_filter_parse(&f, &cat, events, &err) < 0) {
        ret = cli_usage("record", "-e %s", err.msg);
    }
    qtrace_catalog_fini(&cat);
    return ret;
}
