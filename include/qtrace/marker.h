/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Marker instructions: no-operations of a chosen encoding that a guest
 * program puts in its own code for qtrace to act on when the recording
 * names them (start-at=marker, stop-at=marker, snapshot-at=marker;
 * docs/cli.md, "Markers"). Elsewhere (a CPU, QEMU without qtrace, a
 * recording that does not name them) they do nothing but take a few
 * bytes and a cycle, so a program may keep them in its release build:
 *
 *     #include <qtrace/marker.h>
 *
 *     qtrace_marker_start();      window opens (start-at=marker)
 *     parse(input);
 *     qtrace_marker_stop();       window closes
 *     ...
 *     if (broken) {
 *         qtrace_marker_snapshot();   flight recorder written (ring=)
 *     }
 *
 * A marker acts at the start of the translated block that holds it, as
 * every trigger does. The encodings, with K the kind (1 start, 2 stop,
 * 3 snapshot); no compiler emits them on its own:
 *
 *   x86_64, i386   nopl 0xK5451(%rax)           (0f 1f 80 51 54 0K 00)
 *   aarch64        movk xzr, #0x510K, lsl #32   (0xf2ca201f + K << 5)
 *   arm (A32)      hint #0x5K                   (0xe320f050 + K)
 *   arm (Thumb-2)  hint.w #0x5K                 (0xf3af 0x8050 + K)
 *   riscv32/64     slti zero, zero, 0x51K       ((0x510 + K) << 20 | 0x2013)
 *
 * Each writes nothing but the zero register (or nothing at all): no
 * register, flag or memory changes. The macros are compiler barriers
 * too, so that the compiler moves no memory access across a marker.
 */
#ifndef QTRACE_MARKER_H
#define QTRACE_MARKER_H

#define QTRACE_MARKER_KIND_START 1
#define QTRACE_MARKER_KIND_STOP 2
#define QTRACE_MARKER_KIND_SNAPSHOT 3

#if defined(__x86_64__) || defined(__i386__)
#define QTRACE_MARKER_(k) \
    __asm__ __volatile__(".byte 0x0f, 0x1f, 0x80, 0x51, 0x54, " #k ", 0x00" ::: "memory")
#elif defined(__aarch64__)
#define QTRACE_MARKER_(k) \
    __asm__ __volatile__("movk xzr, #(0x5100 + " #k "), lsl #32" ::: "memory")
#elif defined(__arm__) && defined(__thumb2__)
#define QTRACE_MARKER_(k) \
    __asm__ __volatile__(".inst.w 0xf3af8050 + " #k ::: "memory")
#elif defined(__arm__)
#define QTRACE_MARKER_(k) \
    __asm__ __volatile__(".inst 0xe320f050 + " #k ::: "memory")
#elif defined(__riscv)
#define QTRACE_MARKER_(k) \
    __asm__ __volatile__("slti zero, zero, 0x510 + " #k ::: "memory")
#else
#error "qtrace/marker.h: no marker instruction for this architecture"
#endif

/* The window opens here (start-at=marker), again after each stop. */
#define qtrace_marker_start() QTRACE_MARKER_(1)
/* The window closes here (stop-at=marker, or start-at=marker). */
#define qtrace_marker_stop() QTRACE_MARKER_(2)
/* The flight recorder's rings are written here (snapshot-at=marker). */
#define qtrace_marker_snapshot() QTRACE_MARKER_(3)

#endif /* QTRACE_MARKER_H */
