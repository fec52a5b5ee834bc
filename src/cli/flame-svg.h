/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A flame graph as an SVG file that a browser opens: one rectangle per
 * frame of a calling-context tree (flame-tree.h), its width its
 * instructions, callers below callees, siblings by name; the script of
 * flame-svg.js makes it zoom on click and search. Main thread only.
 */
#ifndef QTRACE_CLI_FLAME_SVG_H
#define QTRACE_CLI_FLAME_SVG_H

#include <stdio.h>

#include "flame-tree.h"

struct flame_svg_opts {
    const char *title;              /* top line, e.g. "Flame graph: prog" */
    const char *subtitle;           /* second line, or NULL */
    double min_width_px;            /* frames narrower at full view are
                                       left out (with their callees) */
};

/* The image's width in pixels, and its graph's margin on each side. */
#define FLAME_SVG_WIDTH 1200
#define FLAME_SVG_MARGIN 10

/*
 * Write t as an SVG document on out. Returns 0, or -EIO when writing
 * failed.
 */
int flame_svg_write(const struct flame_tree *t,
                    const struct flame_svg_opts *o, FILE *out);

#endif /* QTRACE_CLI_FLAME_SVG_H */
