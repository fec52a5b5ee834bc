/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The flame graph's SVG (see flame-svg.h). Frames are laid out depth
 * first: a frame's callees share its width from its left edge, in name
 * order, and its own instructions are the gap they leave on its right.
 * Each frame is written drawn for the whole graph, labels cut to fit,
 * so that a viewer that runs no script (an <img> on a web page) shows
 * the graph as it is; its first instruction and count (data-s, data-n)
 * let the script redraw it zoomed.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "flame-svg.h"
#include "flame-svg-js.h"

#define FRAME_H 16                  /* pixels per stack level */
#define TOP 64                      /* title, subtitle, buttons */
#define BOTTOM 28                   /* the details line */
#define FONT_PX 12
#define CHAR_W 7.2                  /* a monospace character at 12 px */

static const char style[] =
    "text { font-family: monospace; font-size: 12px; fill: #000; }\n"
    "#title { font-size: 17px; }\n"
    "#subtitle, #details, #matched { fill: #333; }\n"
    ".btn { cursor: pointer; fill: #225; text-decoration: underline; }\n"
    ".hidden { display: none; }\n"
    "g.f { cursor: pointer; }\n"
    "g.f:hover rect { stroke: #000; stroke-width: 0.6; }\n"
    "g.f.dim rect { opacity: 0.45; }\n"
    "g.f text { pointer-events: none; }\n";

/* text with &, <, >, " and ' as XML entities. */
static void put_xml(FILE *out, const char *text)
{
    for (; *text; text++) {
        switch (*text) {
        case '&': fputs("&amp;", out); break;
        case '<': fputs("&lt;", out); break;
        case '>': fputs("&gt;", out); break;
        case '"': fputs("&quot;", out); break;
        case '\'': fputs("&apos;", out); break;
        default: fputc(*text, out);
        }
    }
}

/*
 * The label of a frame w pixels wide: as many characters as fit with a
 * margin, cut with ".." (the rule flame-svg.js applies when it redraws).
 */
static void put_label(FILE *out, const char *name, double w)
{
    double fits_d = (w - 6) / CHAR_W;
    size_t fits = fits_d > 0 ? (size_t)fits_d : 0;
    size_t len = strlen(name);
    char *cut;

    if (fits < 3) {
        return;
    }
    if (len <= fits) {
        put_xml(out, name);
        return;
    }
    cut = g_strndup(name, fits - 2);
    put_xml(out, cut);
    fputs("..", out);
    g_free(cut);
}

/*
 * A warm colour from the name, the same for a function wherever it
 * appears: red to yellow, as flame graphs are read.
 */
static void put_fill(FILE *out, const char *name)
{
    uint32_t h = 2166136261u;

    for (; *name; name++) {
        h = (h ^ (uint8_t)*name) * 16777619u;
    }
    fprintf(out, "rgb(%u,%u,%u)", 205 + h % 51, 90 + (h >> 8) % 140,
            (h >> 16) % 56);
}

/* The layout of a walk: where each depth's next frame starts. */
struct walk {
    GArray *cursor;                 /* uint64_t per depth */
    uint32_t max_depth;
};

/* The first instruction of node n, given the walk got to it in order. */
static uint64_t place(struct walk *w, const struct flame_node *n)
{
    uint64_t start;

    if (w->cursor->len < n->depth + 2) {
        g_array_set_size(w->cursor, n->depth + 2);
    }
    start = g_array_index(w->cursor, uint64_t, n->depth);
    g_array_index(w->cursor, uint64_t, n->depth) = start + n->total;
    g_array_index(w->cursor, uint64_t, n->depth + 1) = start;
    return start;
}

/* The node after n depth first, not below n when skip_children. */
static uint32_t next_node(const struct flame_tree *t, uint32_t n,
                          bool skip_children)
{
    if (!skip_children && t->nodes[n].first_child != FLAME_NONE) {
        return t->nodes[n].first_child;
    }
    while (n != FLAME_NONE && t->nodes[n].next_sibling == FLAME_NONE) {
        n = t->nodes[n].parent;
    }
    return n == FLAME_NONE ? FLAME_NONE : t->nodes[n].next_sibling;
}

static double px_of(const struct flame_tree *t, uint64_t n)
{
    const double graph_w = FLAME_SVG_WIDTH - 2 * FLAME_SVG_MARGIN;

    return t->total ? (double)n / (double)t->total * graph_w : 0;
}

static void put_frame(FILE *out, const struct flame_tree *t, uint32_t i,
                      uint64_t start, uint32_t max_depth)
{
    const struct flame_node *n = &t->nodes[i];
    const char *name = flame_tree_name(t, i);
    double x = FLAME_SVG_MARGIN + px_of(t, start), w = px_of(t, n->total);
    unsigned int y = TOP + (max_depth - n->depth) * FRAME_H;

    fprintf(out, "<g class=\"f\" data-s=\"%" PRIu64 "\" data-n=\"%" PRIu64
            "\" data-d=\"%u\"><title>", start, n->total, n->depth);
    put_xml(out, name);
    fprintf(out, " (%" PRIu64 " instructions, %.2f%%)</title>", n->total,
            t->total ? 100.0 * (double)n->total / (double)t->total : 0.0);
    fprintf(out, "<rect x=\"%.2f\" y=\"%u\" width=\"%.2f\" height=\"%u\" "
            "rx=\"2\" fill=\"", x, y, w, FRAME_H - 1);
    put_fill(out, name);
    fprintf(out, "\"/><text x=\"%.2f\" y=\"%u\">", x + 3,
            y + FRAME_H - 4);
    put_label(out, name, w);
    fputs("</text></g>\n", out);
}

/* Walk the frames wide enough to draw; print them when out is given. */
static void walk_frames(const struct flame_tree *t, double min_w,
                        struct walk *w, FILE *out)
{
    uint32_t n = t->first_root;

    g_array_set_size(w->cursor, 0);
    while (n != FLAME_NONE) {
        const struct flame_node *node = &t->nodes[n];
        uint64_t start = place(w, node);
        bool drawn = node->total > 0 && px_of(t, node->total) >= min_w;

        if (drawn && node->depth > w->max_depth && !out) {
            w->max_depth = node->depth;
        }
        if (drawn && out) {
            put_frame(out, t, n, start, w->max_depth);
        }
        n = next_node(t, n, !drawn);
    }
}

int flame_svg_write(const struct flame_tree *t,
                    const struct flame_svg_opts *o, FILE *out)
{
    struct walk w = { g_array_new(FALSE, TRUE, sizeof(uint64_t)), 0 };
    unsigned int height;

    walk_frames(t, o->min_width_px, &w, NULL);
    height = TOP + (w.max_depth + 1) * FRAME_H + BOTTOM;
    fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" "
            "width=\"%u\" height=\"%u\" viewBox=\"0 0 %u %u\" "
            "data-total=\"%" PRIu64 "\" data-left=\"%u\" data-width=\"%u\" "
            "data-charw=\"%.1f\" data-minw=\"%g\">\n",
            FLAME_SVG_WIDTH, height, FLAME_SVG_WIDTH, height, t->total,
            FLAME_SVG_MARGIN, FLAME_SVG_WIDTH - 2 * FLAME_SVG_MARGIN,
            CHAR_W, o->min_width_px);
    fputs("<title>", out);
    put_xml(out, o->title);
    fprintf(out, "</title>\n<style>\n%s</style>\n"
            "<script type=\"text/ecmascript\"><![CDATA[\n%s]]></script>\n",
            style, flame_svg_js);
    fputs("<defs><linearGradient id=\"bg\" x1=\"0\" y1=\"0\" x2=\"0\" "
          "y2=\"1\"><stop offset=\"5%\" stop-color=\"#eeeeee\"/>"
          "<stop offset=\"95%\" stop-color=\"#eeeeb0\"/></linearGradient>"
          "</defs>\n", out);
    fprintf(out, "<rect x=\"0\" y=\"0\" width=\"%u\" height=\"%u\" "
            "fill=\"url(#bg)\"/>\n", FLAME_SVG_WIDTH, height);
    fprintf(out, "<text id=\"title\" x=\"%u\" y=\"24\" "
            "text-anchor=\"middle\">", FLAME_SVG_WIDTH / 2);
    put_xml(out, o->title);
    fprintf(out, "</text>\n<text id=\"subtitle\" x=\"%u\" y=\"44\" "
            "text-anchor=\"middle\">", FLAME_SVG_WIDTH / 2);
    put_xml(out, o->subtitle ? o->subtitle : "");
    fprintf(out, "</text>\n"
            "<text id=\"reset\" class=\"btn hidden\" x=\"%u\" y=\"24\">"
            "Reset Zoom</text>\n"
            "<text id=\"search\" class=\"btn\" x=\"%u\" y=\"24\" "
            "text-anchor=\"end\">Search</text>\n"
            "<text id=\"details\" x=\"%u\" y=\"%u\"> </text>\n"
            "<text id=\"matched\" x=\"%u\" y=\"%u\" text-anchor=\"end\">"
            "</text>\n<g id=\"frames\">\n",
            FLAME_SVG_MARGIN, FLAME_SVG_WIDTH - FLAME_SVG_MARGIN,
            FLAME_SVG_MARGIN, height - 10,
            FLAME_SVG_WIDTH - FLAME_SVG_MARGIN, height - 10);
    walk_frames(t, o->min_width_px, &w, out);
    fputs("</g>\n</svg>\n", out);
    g_array_free(w.cursor, TRUE);
    return ferror(out) ? -EIO : 0;
}
