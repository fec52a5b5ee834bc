/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Tracing windows at install and translation time (window.h): the spec
 * in force, the symbols of its triggers, and which triggers a block
 * holds (its tb_info flags), decided once per translation so that the
 * block callbacks test a flag and nothing more.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qtrace/symbols.h"
#include "../../qemu/qemu-compat.h"
#include "../core/tbtab.h"
#include "window-int.h"

/* A copy of a trigger with its own symbol name. */
static void copy_when(struct window_when *to, const struct window_when *from)
{
    *to = *from;
    to->sym = from->sym ? strdup(from->sym) : NULL;
    if (from->sym && !to->sym) {
        /* No memory for a name at install: the trigger cannot fire. */
        to->how = WHEN_NONE;
    }
}

void window_setup(const struct window_spec *spec, const char *target,
                  bool system_mode, const struct window_hooks *hooks)
{
    win.hooks = *hooks;
    win.system_mode = system_mode;
    win.decode = marker_decoder(target);
    win.active = window_is_set(spec);
    if (!win.active) {
        window_set_mode(WINDOW_MODE_NONE);
        return;
    }
    copy_when(&win.spec.start, &spec->start);
    copy_when(&win.spec.stop, &spec->stop);
    copy_when(&win.spec.snap, &spec->snap);
    win.spec.has_stop_after = spec->has_stop_after;
    win.spec.stop_after = spec->stop_after;
    /*
     * Counting alone until a trigger is near; a count trigger this close
     * to the start, or no start trigger at all, needs everything at once.
     */
    if (spec->start.how == WHEN_NONE ||
        (spec->start.how == WHEN_COUNT &&
         spec->start.count < WINDOW_NEAR_INSNS)) {
        window_set_mode(WINDOW_MODE_FULL);
    } else {
        window_set_mode(WINDOW_MODE_PENDING);
    }
}

/* The run-time address of the program's symbol name, or false. */
static bool find_in_images(struct qtrace_symbols *syms, const char *name,
                           uint64_t *addr)
{
    size_t i, j, n = qtrace_symbols_n_images(syms);

    for (i = 0; i < n; i++) {
        struct qtrace_image im;

        qtrace_symbols_image(syms, i, &im);
        for (j = 0; im.loaded && j < im.n_syms; j++) {
            if (strcmp(im.syms[j].name, name) == 0) {
                *addr = im.syms[j].addr + im.bias;
                return true;
            }
        }
    }
    return false;
}

/*
 * The guest program, known on a vCPU thread only (QEMU answers from the
 * running vCPU): taken at the first translation, for the control thread
 * too.
 */
static struct {
    char *path;                 /* NULL until known */
    uint64_t start_code;
} program;

int window_find_symbol(const char *name, uint64_t *addr,
                       struct qtrace_err *err)
{
    const char *path = program.path;
    struct qtrace_symbols *syms;
    int ret = -1;

    if (win.system_mode) {
        qtrace_err_set(err, "symbols are known in user mode only (give "
                       "0xADDRESS)");
        return -1;
    }
    if (!path) {
        qtrace_err_set(err, "the guest program is not known yet");
        return -1;
    }
    syms = qtrace_symbols_new();
    if (!syms) {
        qtrace_err_set(err, "%s", strerror(ENOMEM));
    } else if (qtrace_symbols_add_program(syms, path, program.start_code,
                                          err) < 0) {
        /* err says why */
    } else if (!find_in_images(syms, name, addr)) {
        qtrace_err_set(err, "no such symbol in %s", path);
    } else {
        ret = 0;
    }
    qtrace_symbols_free(syms);
    return ret;
}

/* A symbol trigger becomes an address, or is said once to be missing. */
static void resolve_when(struct window_when *w, const char *option)
{
    struct qtrace_err err = { "" };
    uint64_t addr;

    if (w->how != WHEN_SYMBOL) {
        return;
    }
    if (window_find_symbol(w->sym, &addr, &err) == 0) {
        w->addr = addr;
        w->how = WHEN_ADDR;
        return;
    }
    w->unresolved = true;
    fprintf(stderr, "qtrace: %s=%s: %s; %s\n", option, w->sym, err.msg,
            w == &win.spec.start ? "nothing is recorded" :
            "the trigger never fires");
}

void window_resolve(void)
{
    if (win.resolved) {
        return;
    }
    win.resolved = true;
    if (!win.system_mode) {
        /* glib-allocated; g_free is free. Kept for the run. */
        program.path = (char *)qemu_plugin_path_to_binary();
        program.start_code = qemu_plugin_start_code();
    }
    resolve_when(&win.spec.start, "start-at");
    resolve_when(&win.spec.stop, "stop-at");
    resolve_when(&win.spec.snap, "snapshot-at");
}

/* flag when w is an address in the block [pc, pc + size). */
static uint16_t address_flag(const struct window_when *w,
                             const struct tb_info *ti, uint16_t flag)
{
    return w->how == WHEN_ADDR && w->addr - ti->pc < ti->size ? flag : 0;
}

/* Bits 1 << kind of the marker instructions the block holds. */
static unsigned int scan_markers(struct qemu_plugin_tb *tb,
                                 const struct tb_info *ti)
{
    unsigned int i, kinds = 0;

    for (i = 0; i < ti->n_insns; i++) {
        const struct insn_info *in = &ti->insns[i];
        uint8_t code[MARKER_MAX_BYTES];

        if (in->size > MARKER_MAX_BYTES) {
            continue;
        }
        if (in->size <= sizeof(in->opcode)) {
            memcpy(code, &in->opcode, in->size);    /* little-endian */
        } else if (qc_insn_bytes(qemu_plugin_tb_get_insn(tb, i), code,
                                 in->size) != in->size) {
            continue;
        }
        kinds |= 1u << win.decode(code, in->size);
    }
    return kinds & ~1u;     /* MARKER_NONE is no marker */
}

static bool uses_markers(void)
{
    return win.decode && (win.spec.start.how == WHEN_MARKER ||
                          win.spec.stop.how == WHEN_MARKER ||
                          win.spec.snap.how == WHEN_MARKER);
}

/* The flags of the markers found, as the spec in force uses them. */
static uint16_t marker_flags(unsigned int kinds)
{
    uint16_t f = 0;
    bool stop_marks = win.spec.stop.how == WHEN_MARKER ||
                      win.spec.start.how == WHEN_MARKER;

    if (win.spec.start.how == WHEN_MARKER && (kinds & 1u << MARKER_START)) {
        f |= TB_F_WIN_START;
    }
    if (stop_marks && (kinds & 1u << MARKER_STOP)) {
        f |= TB_F_WIN_STOP;
    }
    if (win.spec.snap.how == WHEN_MARKER &&
        (kinds & 1u << MARKER_SNAPSHOT)) {
        f |= TB_F_WIN_SNAP;
    }
    return f;
}

bool window_tb_mark(struct qemu_plugin_tb *tb, struct tb_info *ti)
{
    uint16_t f;

    if (!win.active) {
        return false;
    }
    f = address_flag(&win.spec.start, ti, TB_F_WIN_START) |
        address_flag(&win.spec.stop, ti, TB_F_WIN_STOP) |
        address_flag(&win.spec.snap, ti, TB_F_WIN_SNAP);
    if (uses_markers()) {
        f |= marker_flags(scan_markers(tb, ti));
    }
    ti->flags |= f;
    return f != 0;
}
