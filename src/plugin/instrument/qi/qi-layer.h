/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The qemu-instr layer as the loader (instr-load.c) sees it: a library
 * that exports qi_init is hosted through this layer, which registers with
 * the qtrace host like a qtrace-API library and turns QEMU's events into
 * the qemu-instr events the library set callbacks for. Install thread.
 */
#ifndef QTRACE_PLUGIN_QI_LAYER_H
#define QTRACE_PLUGIN_QI_LAYER_H

#include "qtrace/err.h"
#include "../instr.h"
#include "../instr-lib.h"

/*
 * Make libqtrace.so's qi_* symbols visible to the libraries dlopen'ed
 * after it (QEMU loads the plugin RTLD_LOCAL). Returns 0 or -1 with err.
 */
int qi_layer_export_api(struct qtrace_err *err);

/*
 * Prepare lib (loaded, exporting qi_init, its host table filled) to be
 * initialised with spec's arguments: registers the layer's hooks through
 * lib->host, so the caller has lib->registering set. Returns 0, or -1
 * with err (a second qemu-instr library).
 */
int qi_layer_attach(struct instr_lib *lib, const struct instr_spec *spec,
                    const struct instr_env *env, struct qtrace_err *err);

/* Call the attached library's qi_init (ctx: unused; for a guard). */
void qi_layer_call_init(void *ctx);

/* The library's fini: its qi_fini, then every callback reset. */
void qi_layer_fini(void);

/* Forget the attached library (init refused or crashed). */
void qi_layer_detach(void);

#endif /* QTRACE_PLUGIN_QI_LAYER_H */
