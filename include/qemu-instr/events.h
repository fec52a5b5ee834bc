/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The qemu-instr event API (QEMU's proposed trace instrumentation
 * interface) as libqtrace.so provides it: event identifiers for
 * qi_ctrl_event_set() (control.h), the handle types the event callbacks
 * receive, the memory-access info word, and the predefined callbacks
 * qi_event_<event>_nop / _trace / _gen_exec / _trace_and_gen_exec.
 *
 * A library written against this header is loaded with the plugin option
 * instr=PATH like a qtrace-API library; see docs/instrument.md, section
 * "The qemu-instr layer", for what each event maps to and what it costs.
 * The predefined callbacks and qi_* calls are symbols of libqtrace.so: the
 * library is linked with nothing and finds them when the plugin loads it.
 */
#ifndef QEMU_INSTR_EVENTS_H
#define QEMU_INSTR_EVENTS_H

#include <stdbool.h>
#include <stdint.h>

#ifndef QI_API
#define QI_API __attribute__((visibility("default")))
#endif

/*
 * A vCPU. At execution time it names the vCPU running the event
 * (qi_cpu_index() in control.h gives its index); at translation time
 * QEMU's plugin interface does not say which vCPU translates, and the
 * handle is QI_CPU_TRANSLATOR.
 */
typedef struct QICPU QICPU;

/*
 * Values of the generated code at translation time: the vCPU and an
 * access's virtual address, not known before execution. Opaque: pass
 * them on to the predefined _gen_exec callbacks, read nothing from them.
 */
typedef struct QITCGv_d *QITCGv;
typedef struct QITCGv_cpu_d *QITCGv_cpu;

/* An event, for control.h. */
typedef struct QIEvent QIEvent;

/* The translation-time vCPU handle (see QICPU). */
#define QI_CPU_TRANSLATOR ((QICPU *)(uintptr_t)-1)

/*
 * Event numbers: the user_event record's id when qtrace traces the event
 * (docs/format.md, user_event), and QI_EVENT_*'s value.
 */
enum qi_event_id {
    QI_EVENT_ID_GUEST_CPU_ENTER = 1,
    QI_EVENT_ID_GUEST_CPU_EXIT = 2,
    QI_EVENT_ID_GUEST_MEM_BEFORE_TRANS = 3,
    QI_EVENT_ID_GUEST_MEM_BEFORE_EXEC = 4,
    QI_EVENT_ID_GUEST_USER_SYSCALL = 5,
    QI_EVENT_ID_GUEST_USER_SYSCALL_RET = 6,
    QI_EVENT_ID_COUNT = 7,                      /* one past the last */
};

#define QI_EVENT_OF_ID(id) ((QIEvent *)(uintptr_t)(id))

/* A vCPU starts (user mode: a guest thread starts). */
#define QI_EVENT_GUEST_CPU_ENTER \
    QI_EVENT_OF_ID(QI_EVENT_ID_GUEST_CPU_ENTER)
/* A vCPU stops (user mode: a guest thread ends). */
#define QI_EVENT_GUEST_CPU_EXIT \
    QI_EVENT_OF_ID(QI_EVENT_ID_GUEST_CPU_EXIT)
/* A memory access is translated (once per access and translation). */
#define QI_EVENT_GUEST_MEM_BEFORE_TRANS \
    QI_EVENT_OF_ID(QI_EVENT_ID_GUEST_MEM_BEFORE_TRANS)
/* A memory access asked for by _gen_exec is executed. */
#define QI_EVENT_GUEST_MEM_BEFORE_EXEC \
    QI_EVENT_OF_ID(QI_EVENT_ID_GUEST_MEM_BEFORE_EXEC)
/* The guest enters a system call (user mode only). */
#define QI_EVENT_GUEST_USER_SYSCALL \
    QI_EVENT_OF_ID(QI_EVENT_ID_GUEST_USER_SYSCALL)
/* A system call returns to the guest (user mode only). */
#define QI_EVENT_GUEST_USER_SYSCALL_RET \
    QI_EVENT_OF_ID(QI_EVENT_ID_GUEST_USER_SYSCALL_RET)

/*
 * The memory info word of guest_mem_before_*, one byte:
 *
 *   bits 0-1  log2 of the access size, low two bits (1, 2, 4, 8 bytes)
 *   bit 2     sign-extended load
 *   bit 3     big-endian access (0: little-endian)
 *   bit 4     store (0: load)
 *   bit 5     third bit of the size's log2 (set for 16-byte accesses)
 *   bits 6-7  zero
 *
 * Bits 0-4 lay out like QEMU's TraceMemInfo bit-field (size_shift:2,
 * sign_extend:1, endianness:1, store:1) as GCC and Clang allocate it on
 * little-endian hosts, so a library that reads the word through such a
 * struct sees the same fields. Decode with the helpers below.
 */
#define QI_MEM_INFO_SIZE_SHIFT_LOW 0x03u
#define QI_MEM_INFO_SIGN_EXTEND 0x04u
#define QI_MEM_INFO_BIG_ENDIAN 0x08u
#define QI_MEM_INFO_STORE 0x10u
#define QI_MEM_INFO_SIZE_SHIFT_HIGH 0x20u

/* log2 of the access size in bytes (0 to 4). */
static inline unsigned int qi_mem_info_size_shift(uint8_t info)
{
    return (info & QI_MEM_INFO_SIZE_SHIFT_LOW) |
           ((info & QI_MEM_INFO_SIZE_SHIFT_HIGH) >> 3);
}

/* The access size in bytes (1, 2, 4, 8 or 16). */
static inline unsigned int qi_mem_info_size(uint8_t info)
{
    return 1u << qi_mem_info_size_shift(info);
}

static inline bool qi_mem_info_is_store(uint8_t info)
{
    return (info & QI_MEM_INFO_STORE) != 0;
}

static inline bool qi_mem_info_is_sign_extended(uint8_t info)
{
    return (info & QI_MEM_INFO_SIGN_EXTEND) != 0;
}

static inline bool qi_mem_info_is_big_endian(uint8_t info)
{
    return (info & QI_MEM_INFO_BIG_ENDIAN) != 0;
}

/* The info word of an access (size_shift 0 to 4). */
static inline uint8_t qi_mem_info_make(unsigned int size_shift, bool store,
                                       bool sign_extend, bool big_endian)
{
    return (uint8_t)((size_shift & QI_MEM_INFO_SIZE_SHIFT_LOW) |
                     ((size_shift << 3) & QI_MEM_INFO_SIZE_SHIFT_HIGH) |
                     (sign_extend ? QI_MEM_INFO_SIGN_EXTEND : 0) |
                     (big_endian ? QI_MEM_INFO_BIG_ENDIAN : 0) |
                     (store ? QI_MEM_INFO_STORE : 0));
}

/*
 * Predefined callbacks. An event's callback (control.h) has the prototype
 * of its _nop. Each is also a function a library's own callback may call:
 *   _nop                 does nothing;
 *   _trace               writes the event into the qtrace trace as a
 *                        user_event record (docs/format.md) if the
 *                        event's trace state is on
 *                        (qi_trace_event_set_state_dynamic);
 *   _gen_exec            (translation-time events) makes the execution
 *                        of this access raise guest_mem_before_exec: QEMU
 *                        gets a callback for this access only;
 *   _trace_and_gen_exec  both.
 * _gen_exec is meant for the translation-time callback of the same
 * access: called elsewhere (another access's handles, or at execution
 * time) it does nothing.
 */
QI_API void qi_event_guest_cpu_enter_nop(QICPU *cpu);
QI_API void qi_event_guest_cpu_enter_trace(QICPU *cpu);

QI_API void qi_event_guest_cpu_exit_nop(QICPU *cpu);
QI_API void qi_event_guest_cpu_exit_trace(QICPU *cpu);

QI_API void qi_event_guest_mem_before_trans_nop(QICPU *cpu,
                                                QITCGv_cpu tcg_cpu,
                                                QITCGv vaddr, uint8_t info);
QI_API void qi_event_guest_mem_before_trans_trace(QICPU *cpu,
                                                  QITCGv_cpu tcg_cpu,
                                                  QITCGv vaddr, uint8_t info);
QI_API void qi_event_guest_mem_before_trans_gen_exec(QICPU *cpu,
                                                     QITCGv_cpu tcg_cpu,
                                                     QITCGv vaddr,
                                                     uint8_t info);
QI_API void qi_event_guest_mem_before_trans_trace_and_gen_exec(
    QICPU *cpu, QITCGv_cpu tcg_cpu, QITCGv vaddr, uint8_t info);

QI_API void qi_event_guest_mem_before_exec_nop(QICPU *cpu, uint64_t vaddr,
                                               uint8_t info);
QI_API void qi_event_guest_mem_before_exec_trace(QICPU *cpu, uint64_t vaddr,
                                                 uint8_t info);

QI_API void qi_event_guest_user_syscall_nop(QICPU *cpu, uint64_t num,
                                            uint64_t arg1, uint64_t arg2,
                                            uint64_t arg3, uint64_t arg4,
                                            uint64_t arg5, uint64_t arg6,
                                            uint64_t arg7, uint64_t arg8);
QI_API void qi_event_guest_user_syscall_trace(QICPU *cpu, uint64_t num,
                                              uint64_t arg1, uint64_t arg2,
                                              uint64_t arg3, uint64_t arg4,
                                              uint64_t arg5, uint64_t arg6,
                                              uint64_t arg7, uint64_t arg8);

QI_API void qi_event_guest_user_syscall_ret_nop(QICPU *cpu, uint64_t num,
                                                uint64_t ret);
QI_API void qi_event_guest_user_syscall_ret_trace(QICPU *cpu, uint64_t num,
                                                  uint64_t ret);

#endif /* QEMU_INSTR_EVENTS_H */
