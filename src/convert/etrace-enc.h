/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The etrace encoder: turns what a native trace holds (translations, block
 * executions, memory accesses, vCPU life, syscalls) into Xilinx etrace
 * records, one EXEC entry per block and in the order the run reached
 * them, the way the Xilinx QEMU writes them. One
 * encoder per output, used from one thread: the plugin's writer thread
 * (sink-etrace.c) or `qtrace convert --to etrace` (etrace.c).
 */
#ifndef QTRACE_CONVERT_ETRACE_ENC_H
#define QTRACE_CONVERT_ETRACE_ENC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "qtrace/err.h"

/*
 * Write len bytes (all of them) to the output. Returns 0 or -errno; after
 * an error the encoder writes nothing more and returns that error.
 */
typedef int (*etrace_write_fn)(void *ctx, const void *buf, size_t len);

struct etrace_enc_cfg {
    const char *arch;               /* guest: QEMU target name */
    uint32_t flags;                 /* ETRACE_F_* (src/format/etrace.h) */
    etrace_write_fn write;
    void *ctx;                      /* passed to write */
};

struct etrace_enc;

/* A new encoder; -EINVAL with err when the arch is unknown. */
int etrace_enc_new(struct etrace_enc **out, const struct etrace_enc_cfg *cfg,
                   struct qtrace_err *err);
void etrace_enc_free(struct etrace_enc *enc);   /* NULL is a no-op */

/* The INFO and ARCH records, written at once. */
int etrace_enc_begin(struct etrace_enc *enc);

/* A translated block: a TB record (flag disas). */
int etrace_enc_tb(struct etrace_enc *enc, uint64_t pc, const uint8_t *code,
                  size_t len);

/*
 * Unit (vCPU) started [start, end) at time, n_insns instructions (flag
 * exec). The entry is written once the block is over, i.e. at the unit's
 * next block or at the end, after the accesses the block made.
 */
int etrace_enc_block(struct etrace_enc *enc, uint16_t unit, uint64_t time,
                     uint64_t start, uint64_t end, uint32_t n_insns);

/*
 * A load or store (flag mem), with the native mem_access flags; an I/O
 * access with a device name is also an EVENT_U64 (flag gpio).
 */
int etrace_enc_access(struct etrace_enc *enc, uint16_t unit, uint64_t time,
                      uint64_t vaddr, uint64_t paddr, uint64_t value,
                      uint8_t size, uint8_t qflags, const char *dev,
                      size_t dev_len);

/* vCPU start or exit and system calls, as NOTE text (flag cpu). */
int etrace_enc_vcpu(struct etrace_enc *enc, uint16_t unit, uint64_t time,
                    bool start);
int etrace_enc_syscall(struct etrace_enc *enc, uint16_t unit, uint64_t time,
                       int64_t num, const uint64_t args[6]);
int etrace_enc_syscall_ret(struct etrace_enc *enc, uint16_t unit,
                           uint64_t time, int64_t num, int64_t ret);

/*
 * Any other event, as one line of text (flag cpu): what a NOTE holds,
 * e.g. an instrumentation library's own event, formatted by the reader.
 */
int etrace_enc_note(struct etrace_enc *enc, uint16_t unit, uint64_t time,
                    const char *text);

/*
 * Unit passed order point `point` of the run (the plugin's `order`
 * event: one counter for all vCPUs, taken where a vCPU starts, exits and
 * enters or leaves a system call; a unit's points increase). The unit's
 * records from here to its next point are written after every unit's
 * records from before points below this one: held while an earlier point
 * has not been seen, written at once when this is the next point (0, 1,
 * 2...). Records of a unit that has passed no point are written as they
 * come. A missing point is waited for until 64 MiB are held, or the end.
 */
int etrace_enc_order(struct etrace_enc *enc, uint16_t unit, uint64_t point);

/* Write the buffered bytes (held records and a waiting block stay). */
int etrace_enc_sync(struct etrace_enc *enc);

/*
 * Write everything still waiting: pending blocks, the EXEC record, held
 * records in the order of their points.
 */
int etrace_enc_end(struct etrace_enc *enc);

#endif /* QTRACE_CONVERT_ETRACE_ENC_H */
