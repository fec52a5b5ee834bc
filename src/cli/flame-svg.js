// SPDX-License-Identifier: GPL-2.0-or-later
// The behaviour of the flame graphs `qtrace flamegraph` writes (embedded
// in each SVG by flame-svg.c): zoom into a frame on click, reset the
// zoom, search frames by regular expression and say what share of the
// instructions the matches hold, details of the frame under the pointer.
// Each frame is a <g class="f"> with data-s (its first instruction, as
// an offset among all), data-n (its instructions) and data-d (its depth);
// positions are recomputed from those, so the drawing the writer made
// (and that a viewer without scripts shows) is the unzoomed one.
"use strict";

var qf = {
    svg: null,
    frames: [],
    total: 1,           // instructions of the whole graph
    left: 0,            // x of the graph's left edge
    width: 1,           // width of the graph in pixels
    charw: 7.2,         // width of one character of the labels
    minw: 0.1,          // frames narrower than this are hidden
    zoomed: null,       // the frame zoomed into, or null
    pattern: null,      // the search's text, or null
    matched: 0          // share of the instructions the matches hold
};

var QF_HIGHLIGHT = "rgb(230,0,230)";

// The label of a frame of width w: its name, cut to fit with "..".
function qfLabel(name, w) {
    var fits = Math.floor((w - 6) / qf.charw);

    if (fits < 3) {
        return "";
    }
    if (name.length <= fits) {
        return name;
    }
    return name.substring(0, fits - 2) + "..";
}

// Draw frame f from x (pixels from the graph's left edge), w wide.
function qfPlace(f, x, w, dim) {
    if (w < qf.minw) {
        f.g.style.display = "none";
        return;
    }
    f.g.style.display = "";
    f.rect.setAttribute("x", (qf.left + x).toFixed(2));
    f.rect.setAttribute("width", w.toFixed(2));
    f.text.setAttribute("x", (qf.left + x + 3).toFixed(2));
    f.text.textContent = qfLabel(f.name, w);
    if (dim) {
        f.g.classList.add("dim");
    } else {
        f.g.classList.remove("dim");
    }
}

// Zoom so that frame z fills the width: its callers are drawn full
// width and dimmed, its callees scaled, everything else hidden.
function qfZoom(z) {
    var i, f;

    qf.zoomed = z;
    for (i = 0; i < qf.frames.length; i++) {
        f = qf.frames[i];
        if (f.d < z.d && f.s <= z.s && f.s + f.n >= z.s + z.n) {
            qfPlace(f, 0, qf.width, true);
        } else if (f.d >= z.d && f.s >= z.s && f.s + f.n <= z.s + z.n) {
            qfPlace(f, (f.s - z.s) / z.n * qf.width,
                    f.n / z.n * qf.width, false);
        } else {
            f.g.style.display = "none";
        }
    }
    document.getElementById("reset").classList.remove("hidden");
}

function qfResetZoom() {
    var i, f;

    qf.zoomed = null;
    for (i = 0; i < qf.frames.length; i++) {
        f = qf.frames[i];
        qfPlace(f, f.s / qf.total * qf.width, f.n / qf.total * qf.width,
                false);
    }
    document.getElementById("reset").classList.add("hidden");
}

// The share of all instructions that frames in spans ([start, end)
// pairs) cover, each instruction once: a match inside a match (a
// recursive function) is not counted twice.
function qfCovered(spans) {
    var sum = 0, end = -1, i;

    spans.sort(function (a, b) { return a[0] - b[0]; });
    for (i = 0; i < spans.length; i++) {
        if (spans[i][0] >= end) {
            sum += spans[i][1] - spans[i][0];
            end = spans[i][1];
        } else if (spans[i][1] > end) {
            sum += spans[i][1] - end;
            end = spans[i][1];
        }
    }
    return sum / qf.total;
}

// Highlight the frames whose name matches the regular expression
// pattern; an empty or null pattern clears the search.
function qfSearch(pattern) {
    var spans = [], re, i, f;

    qfClearSearch();
    if (!pattern) {
        return;
    }
    try {
        re = new RegExp(pattern);
    } catch (e) {
        document.getElementById("matched").textContent =
            "Not a regular expression: " + pattern;
        return;
    }
    for (i = 0; i < qf.frames.length; i++) {
        f = qf.frames[i];
        if (re.test(f.name)) {
            f.g.classList.add("hl");
            f.rect.setAttribute("fill", QF_HIGHLIGHT);
            spans.push([f.s, f.s + f.n]);
        }
    }
    qf.pattern = pattern;
    qf.matched = qfCovered(spans);
    document.getElementById("matched").textContent =
        "Matched: " + (100 * qf.matched).toFixed(2) + "% (" +
        spans.length + " frames)";
    document.getElementById("search").textContent = "Reset Search";
}

function qfClearSearch() {
    var i, f;

    for (i = 0; i < qf.frames.length; i++) {
        f = qf.frames[i];
        f.g.classList.remove("hl");
        f.rect.setAttribute("fill", f.fill);
    }
    qf.pattern = null;
    qf.matched = 0;
    document.getElementById("matched").textContent = "";
    document.getElementById("search").textContent = "Search";
}

function qfAskSearch() {
    var pattern;

    if (qf.pattern !== null) {
        qfClearSearch();
        return;
    }
    pattern = window.prompt("Search frames (a regular expression):", "");
    if (pattern) {
        qfSearch(pattern);
    }
}

// The frame record of the <g class="f"> holding node, or null.
function qfFrameOf(node) {
    while (node && node !== qf.svg) {
        if (node.classList && node.classList.contains("f")) {
            return qf.frames[+node.getAttribute("data-i")];
        }
        node = node.parentNode;
    }
    return null;
}

function qfInit() {
    var svg = document.documentElement;
    var gs = svg.querySelectorAll("g.f");
    var i, g, title, info, f;

    qf.svg = svg;
    qf.total = +svg.getAttribute("data-total") || 1;
    qf.left = +svg.getAttribute("data-left");
    qf.width = +svg.getAttribute("data-width");
    qf.charw = +svg.getAttribute("data-charw") || qf.charw;
    qf.minw = +svg.getAttribute("data-minw");
    for (i = 0; i < gs.length; i++) {
        g = gs[i];
        info = g.querySelector("title").textContent;
        f = {
            g: g,
            rect: g.querySelector("rect"),
            text: g.querySelector("text"),
            s: +g.getAttribute("data-s"),
            n: +g.getAttribute("data-n"),
            d: +g.getAttribute("data-d"),
            info: info,
            name: info.substring(0, info.lastIndexOf(" (")),
            fill: g.querySelector("rect").getAttribute("fill")
        };
        g.setAttribute("data-i", String(i));
        qf.frames.push(f);
    }
    svg.addEventListener("click", function (e) {
        var f = qfFrameOf(e.target);

        if (f) {
            qfZoom(f);
        }
    });
    svg.addEventListener("mouseover", function (e) {
        var f = qfFrameOf(e.target);

        document.getElementById("details").textContent = f ? f.info : " ";
    });
    document.getElementById("reset").addEventListener("click", qfResetZoom);
    document.getElementById("search").addEventListener("click", qfAskSearch);
    window.addEventListener("keydown", function (e) {
        if ((e.ctrlKey || e.metaKey) && e.key === "f") {
            e.preventDefault();
            qfAskSearch();
        } else if (e.key === "Escape") {
            qfResetZoom();
        }
    });
    // A search given in the address: flame.svg?s=PATTERN.
    title = new URLSearchParams(window.location.search).get("s");
    if (title) {
        qfSearch(title);
    }
}

window.addEventListener("load", qfInit);
