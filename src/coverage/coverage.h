/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Code coverage of a trace: the blocks that ran (from tb_trans, and
 * exec_tb or tb_count records) with their executions, and the modules
 * they ran in (the files of image_map records, split by segment, and
 * ELF files the user names), written as drcov (Lighthouse, lightkeeper)
 * or lcov (genhtml) by the writers of this folder. Memory grows with the
 * translations and mappings of a trace, never with its executions.
 * Single-threaded: the CLI's main thread.
 */
#ifndef QTRACE_COVERAGE_H
#define QTRACE_COVERAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "qtrace/err.h"
#include "qtrace/reader.h"

/* One block that ran: one entry per distinct address and size. */
struct cov_block {
    uint64_t pc;                    /* guest address of its first byte */
    uint32_t size;                  /* bytes, from tb_trans */
    uint32_t n_insns;               /* instructions, from tb_trans */
    uint64_t execs;                 /* executions, all vCPUs together */
    const uint8_t *code;            /* size bytes (fewer: code_len) */
    uint32_t code_len;              /* bytes of code the record held */
};

/* One mapped piece of a module, [start, end) at run time. */
struct cov_segment {
    uint64_t start, end;
    uint64_t offset;                /* file offset mapped at start */
};

/* A file the guest mapped (or an ELF file given by the user). */
struct cov_module {
    char *path;                     /* as the trace or the user names it */
    struct cov_segment *segs;       /* sorted by start, disjoint */
    size_t n_segs;
    bool user;                      /* given by the user (--elf) */
    bool elf;                       /* read as an ELF file: bias, entry */
    uint64_t bias;                  /* run-time minus ELF address */
    uint64_t entry;                 /* run-time entry point, or the first
                                       segment's start when unknown */
};

struct cov {
    const char *arch;               /* META arch, or "unknown" */
    bool system;                    /* META mode is "system" */
    struct cov_block *blocks;       /* executed ones, sorted by pc, size */
    size_t n_blocks;
    struct cov_module *mods;        /* in the order first met */
    size_t n_mods;
    bool from_tb_count;             /* counts came from tb_count */
    uint64_t n_exec_tb;             /* exec_tb records read */
    uint64_t n_tb_count;            /* tb_count records read */
    uint64_t n_tb_trans;            /* tb_trans records read */
    uint64_t n_unknown;             /* executions of blocks without a
                                       tb_trans record (left out) */
    void *priv;                     /* the collector's tables */
};

/*
 * Read rd (from its start, only the chunks of tb_trans, exec_tb,
 * tb_count and image_map) into c (zeroed first). Block counts come from
 * exec_tb records, or from tb_count records when the trace has no
 * exec_tb (a trace with both would count each execution twice). Each
 * image_map record maps a piece of a file; a later mapping over an
 * earlier one replaces that part of it, as mmap(MAP_FIXED) does, so a
 * module's segments are its mappings as the guest last left them.
 * Returns 0, or -errno with err filled (a trace that stops early leaves
 * in c what was read before, and returns the reader's error).
 */
int cov_collect(struct cov *c, struct qtrace_reader *rd,
                struct qtrace_err *err);

/*
 * Add the ELF file path as a module of its own, its PT_LOAD segments at
 * their ELF addresses, or (at non-NULL) moved so that its anchor lies at
 * *at: its _text, else _stext, else its first executable segment (the
 * rule of --symbols FILE@ADDR). For a kernel or firmware in system mode,
 * where the trace maps no file. Returns 0, or -errno with err as
 * "PATH: REASON".
 */
int cov_add_elf(struct cov *c, const char *path, const uint64_t *at,
                struct qtrace_err *err);

/*
 * The module holding addr (and in *seg, may be NULL, the index of its
 * segment), or NULL. A file added with cov_add_elf() wins over the
 * trace's mappings.
 */
const struct cov_module *cov_module_of(const struct cov *c, uint64_t addr,
                                       size_t *seg);

/* Free what c holds (c itself is the caller's). */
void cov_fini(struct cov *c);

/*
 * drcov (DRCOV VERSION 2, module table version 4, docs/cli.md): every
 * module's segments, one line each; every executed block inside a
 * module once, its start relative to its module's lowest segment and
 * its segment's id, as a binary table (text false) or in text lines.
 * *n_out (may be NULL) gets the blocks left out: outside every module,
 * or 4 GiB or more above its base. Returns 0 or -errno (err filled).
 */
int cov_write_drcov(const struct cov *c, FILE *out, bool text,
                    uint64_t *n_out, struct qtrace_err *err);

/* Told once about each module whose lines cannot be had, and why. */
typedef void (*cov_warn_fn)(void *arg, const char *msg);

/*
 * lcov tracefile (genhtml, lcov --summary): for each ELF module with a
 * DWARF line table (its own, or its separate debug file's), each source
 * line the table gives code for with the executions of its most
 * executed instruction, and each function (DWARF subprogram) with the
 * executions of its entry. Modules without line tables are passed over
 * (warn is told about those that ran code). Returns the number of
 * modules written, or -errno (err filled).
 */
int cov_write_lcov(const struct cov *c, FILE *out, cov_warn_fn warn,
                   void *arg, struct qtrace_err *err);

#endif /* QTRACE_COVERAGE_H */
