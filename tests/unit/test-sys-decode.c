/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for system mode's instruction facts (sys-decode.h): where a
 * block's last instruction goes, thunks, landings, function entries and
 * aarch64 frame saves. The bytes are what GNU as encodes for the
 * mnemonic in the comment (x86_64 and aarch64, checked with objdump).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "sys-decode.h"

#define PC 0x1000u

static struct calls_insn insn_at(uint64_t pc, const uint8_t *bytes,
                                 uint8_t size)
{
    struct calls_insn in;

    memset(&in, 0, sizeof(in));
    in.pc = pc;
    in.size = size;
    memcpy(in.bytes, bytes, size);
    return in;
}

#define INSN(...) \
    insn_at(PC, (const uint8_t[]){ __VA_ARGS__ }, \
            sizeof((const uint8_t[]){ __VA_ARGS__ }))

static struct sysdec_flow flow_of(enum calls_isa isa, struct calls_insn in)
{
    struct sysdec_flow f;

    memset(&f, 0, sizeof(f));
    sysdec_flow(isa, &in, &f);
    return f;
}

static void test_sys_decode_x86_flow(void **state)
{
    struct sysdec_flow f;

    (void)state;
    f = flow_of(CALLS_ISA_X86_64, INSN(0xe9, 0x00, 0x01, 0x00, 0x00));
    assert_int_equal(f.end, SYSDEC_BRANCH);         /* jmp .+0x105 */
    assert_false(f.may_fall);
    assert_int_equal(f.target, PC + 0x105);
    f = flow_of(CALLS_ISA_X86_64, INSN(0x75, 0x0e));  /* jne .+0x10 */
    assert_int_equal(f.end, SYSDEC_BRANCH);
    assert_true(f.may_fall);
    assert_int_equal(f.target, PC + 0x10);
    f = flow_of(CALLS_ISA_X86_64, INSN(0xe8, 0x07, 0x00, 0x00, 0x00));
    assert_int_equal(f.end, SYSDEC_BRANCH);         /* call .+12 */
    assert_int_equal(f.target, PC + 12);
    assert_int_equal(flow_of(CALLS_ISA_X86_64, INSN(0xc3)).end,
                     SYSDEC_DYNAMIC);               /* ret */
    assert_int_equal(flow_of(CALLS_ISA_X86_64, INSN(0xff, 0xe0)).end,
                     SYSDEC_DYNAMIC);               /* jmp *%rax */
    assert_int_equal(flow_of(CALLS_ISA_X86_64, INSN(0x48, 0xcf)).end,
                     SYSDEC_TRAP_RETURN);           /* iretq */
    assert_int_equal(flow_of(CALLS_ISA_X86_64, INSN(0x0f, 0x05)).end,
                     SYSDEC_SYSCALL);               /* syscall */
    assert_int_equal(flow_of(CALLS_ISA_X86_64, INSN(0x48, 0x0f, 0x07)).end,
                     SYSDEC_SYSCALL_RETURN);        /* sysretq */
    f = flow_of(CALLS_ISA_X86_64, INSN(0xcc));      /* int3 */
    assert_int_equal(f.end, SYSDEC_TRAP);
    assert_int_equal(f.vector, 3);
    f = flow_of(CALLS_ISA_X86_64, INSN(0xcd, 0x80)); /* int $0x80 */
    assert_int_equal(f.end, SYSDEC_TRAP);
    assert_int_equal(f.vector, 0x80);
    f = flow_of(CALLS_ISA_X86_64, INSN(0x0f, 0x0b)); /* ud2 */
    assert_int_equal(f.end, SYSDEC_TRAP);
    assert_int_equal(f.vector, 6);
    assert_int_equal(flow_of(CALLS_ISA_X86_64,
                             INSN(0x48, 0x83, 0xc4, 0x08)).end,
                     SYSDEC_NEXT);                  /* add $8,%rsp */
}

static void test_sys_decode_x86_thunks(void **state)
{
    /* __x86_indirect_thunk_REG, retpoline: call .Ldo_rop (7 ahead). */
    struct calls_insn call = INSN(0xe8, 0x07, 0x00, 0x00, 0x00);
    /* ... disabled: lfence; jmp *%rax. */
    struct calls_insn lf[2] = {
        INSN(0x0f, 0xae, 0xe8), insn_at(PC + 3, (const uint8_t[]){
                                            0xff, 0xe0 }, 2),
    };
    /* A return thunk: lea 8(%rsp),%rsp; ret. */
    struct calls_insn rt[2] = {
        INSN(0x48, 0x8d, 0x64, 0x24, 0x08),
        insn_at(PC + 5, (const uint8_t[]){ 0xc3 }, 1),
    };
    struct calls_insn far = INSN(0xe8, 0x00, 0x10, 0x00, 0x00);
    struct calls_insn mov = INSN(0x48, 0x89, 0x04, 0x24);
    struct calls_insn add = INSN(0x48, 0x83, 0xc4, 0x08);

    (void)state;
    assert_int_equal(sysdec_thunk(CALLS_ISA_X86_64, &call, 1),
                     SYSDEC_THUNK_JUMP);
    assert_int_equal(sysdec_thunk(CALLS_ISA_X86_64, lf, 2),
                     SYSDEC_THUNK_JUMP);
    assert_int_equal(sysdec_thunk(CALLS_ISA_X86_64, rt, 2),
                     SYSDEC_THUNK_RETURN);
    /* call .+0x1005: a function, not a speculation trap. */
    assert_int_equal(sysdec_thunk(CALLS_ISA_X86_64, &far, 1),
                     SYSDEC_THUNK_NONE);
    assert_true(sysdec_is_short_call(CALLS_ISA_X86_64, &call, PC + 12));
    assert_false(sysdec_is_short_call(CALLS_ISA_X86_64, &far, PC + 0x1005));
    /* The retpoline's landing overwrites the return address the short
     * call pushed (mov %rax,(%rsp)); a filling's drops it. */
    assert_true(sysdec_is_landing(CALLS_ISA_X86_64, &mov));
    assert_true(sysdec_is_landing(CALLS_ISA_X86_64, &add));
    assert_false(sysdec_is_landing(CALLS_ISA_X86_64, &far));
}

static void test_sys_decode_entries(void **state)
{
    struct calls_insn nop5 = INSN(0x0f, 0x1f, 0x44, 0x00, 0x00);
    struct calls_insn endbr = INSN(0xf3, 0x0f, 0x1e, 0xfa);
    struct calls_insn call = INSN(0xe8, 0x00, 0x10, 0x00, 0x00);
    struct calls_insn add = INSN(0x48, 0x83, 0xc4, 0x08);
    struct calls_insn jmp = INSN(0xe9, 0x00, 0x01, 0x00, 0x00);
    struct calls_insn jne = INSN(0x75, 0x0e);
    struct calls_insn lidt = INSN(0x0f, 0x01, 0x18);
    uint64_t target = 0;

    (void)state;
    assert_int_equal(sysdec_entry_like(CALLS_ISA_X86_64, &nop5, &target),
                     SYSDEC_ENTRY_NOP);
    assert_int_equal(sysdec_entry_like(CALLS_ISA_X86_64, &endbr, &target),
                     SYSDEC_ENTRY_YES);
    assert_int_equal(sysdec_entry_like(CALLS_ISA_X86_64, &call, &target),
                     SYSDEC_ENTRY_IF_FENTRY);
    assert_int_equal(target, PC + 0x1005);
    assert_int_equal(sysdec_entry_like(CALLS_ISA_X86_64, &add, &target),
                     SYSDEC_ENTRY_NO);
    assert_true(sysdec_is_direct_jump(CALLS_ISA_X86_64, &jmp));
    assert_false(sysdec_is_direct_jump(CALLS_ISA_X86_64, &jne));
    assert_false(sysdec_is_direct_jump(CALLS_ISA_X86_64, &call));
    assert_true(sysdec_is_lidt(CALLS_ISA_X86_64, &lidt));
    assert_false(sysdec_is_lidt(CALLS_ISA_X86_64, &add));
}

/* One aarch64 instruction, little-endian. */
static struct calls_insn a64(uint32_t w)
{
    uint8_t b[4] = { (uint8_t)w, (uint8_t)(w >> 8), (uint8_t)(w >> 16),
                     (uint8_t)(w >> 24) };

    return insn_at(PC, b, 4);
}

static void test_sys_decode_aarch64(void **state)
{
    struct sysdec_flow f;
    struct calls_insn in;
    uint64_t target = 0;

    (void)state;
    f = flow_of(CALLS_ISA_AARCH64, a64(0x14000040));    /* b .+0x100 */
    assert_int_equal(f.end, SYSDEC_BRANCH);
    assert_int_equal(f.target, PC + 0x100);
    f = flow_of(CALLS_ISA_AARCH64, a64(0x54000041));    /* b.ne .+8 */
    assert_int_equal(f.end, SYSDEC_BRANCH);
    assert_true(f.may_fall);
    assert_int_equal(flow_of(CALLS_ISA_AARCH64, a64(0xd65f03c0)).end,
                     SYSDEC_DYNAMIC);                   /* ret */
    assert_int_equal(flow_of(CALLS_ISA_AARCH64, a64(0xd61f0200)).end,
                     SYSDEC_DYNAMIC);                   /* br x16 */
    assert_int_equal(flow_of(CALLS_ISA_AARCH64, a64(0xd69f03e0)).end,
                     SYSDEC_TRAP_RETURN);               /* eret */
    assert_int_equal(flow_of(CALLS_ISA_AARCH64, a64(0xd4000001)).end,
                     SYSDEC_SYSCALL);                   /* svc #0 */
    assert_int_equal(flow_of(CALLS_ISA_AARCH64, a64(0xd4210000)).end,
                     SYSDEC_TRAP);                      /* brk #0x800 */
    in = a64(0xa9bf7bfd);               /* stp x29, x30, [sp, #-16]! */
    assert_int_equal(sysdec_frame_access(CALLS_ISA_AARCH64, &in),
                     SYSDEC_FRAME_SAVE);
    in = a64(0xa8c17bfd);               /* ldp x29, x30, [sp], #16 */
    assert_int_equal(sysdec_frame_access(CALLS_ISA_AARCH64, &in),
                     SYSDEC_FRAME_RESTORE);
    in = a64(0xd503201f);                               /* nop */
    assert_int_equal(sysdec_frame_access(CALLS_ISA_AARCH64, &in),
                     SYSDEC_FRAME_NONE);
    assert_int_equal(sysdec_entry_like(CALLS_ISA_AARCH64, &in, &target),
                     SYSDEC_ENTRY_NOP);
    in = a64(0xd503233f);                               /* paciasp */
    assert_int_equal(sysdec_entry_like(CALLS_ISA_AARCH64, &in, &target),
                     SYSDEC_ENTRY_YES);
    in = a64(0xd503245f);                               /* bti c */
    assert_int_equal(sysdec_entry_like(CALLS_ISA_AARCH64, &in, &target),
                     SYSDEC_ENTRY_YES);
    in = a64(0x14000040);
    assert_true(sysdec_is_direct_jump(CALLS_ISA_AARCH64, &in));
    in = a64(0x94000010);                               /* bl .+0x40 */
    assert_false(sysdec_is_direct_jump(CALLS_ISA_AARCH64, &in));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sys_decode_x86_flow),
        cmocka_unit_test(test_sys_decode_x86_thunks),
        cmocka_unit_test(test_sys_decode_entries),
        cmocka_unit_test(test_sys_decode_aarch64),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
