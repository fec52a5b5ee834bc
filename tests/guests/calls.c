/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Guest with a known call tree for the function-call events: recursion,
 * calls through function pointers, a longjmp across three frames, a signal
 * handler that calls a function, and two threads. Built with
 * -fno-optimize-sibling-calls and noinline everywhere, so every call below
 * is a real call instruction and every return a real return.
 *
 * Known by construction: the call tree of the guest's own functions. libc
 * functions may sit between them (setjmp, raise, pthread_*), so depths are
 * relative: m is the depth of main, w the depth of worker in its thread.
 *
 *   main thread (one vCPU stream)        depth
 *     main                               m
 *       fact                             m+1     fact(5)
 *         fact                           m+2     fact(4)
 *           fact                         m+3     fact(3)
 *             fact                       m+4     fact(2)
 *               fact                     m+5     fact(1)
 *       apply                            m+1
 *         add_one                        m+2     through a pointer
 *       apply                            m+1
 *         twice                          m+2     through a pointer
 *       jump_outer                       m+1     setjmp here
 *         jump_middle                    m+2
 *           jump_inner                   m+3     longjmp to jump_outer
 *         after_jump                     m+2     after the longjmp
 *       raise_signal                     m+1     raise(SIGUSR1)
 *           on_signal                    > m+2   handler, libc frames above
 *             in_handler                 on_signal+1
 *       run_threads                      m+1     2 threads, joins them
 *   each of the 2 worker threads (its own vCPU stream)
 *     worker                             w
 *       work_item                        w+1
 *
 * jump_middle and jump_inner never return: the longjmp leaves them.
 * on_signal is entered without a call instruction (QEMU redirects the
 * vCPU to it). The workers meet at a barrier with main before either
 * returns, so they run on two distinct vCPUs.
 *
 *   output  "calls: ok"
 *   exit    0 (1 if a computed value is wrong)
 *
 * Run with the argument "deep", main instead calls deep(5), then
 * deep(1500), which recurses 1500 frames deep (depths m+1 .. m+1500),
 * prints "calls: deep ok" and returns 0. deep's innermost call jumps over
 * its recursive call to the instruction after it, the return site of its
 * caller's call (how glibc's msort is compiled): that jump is no return.
 *
 * Run with "hop", main instead runs the longjmp again with a setjmp and
 * longjmp of the guest's own (hop_setjmp, hop_longjmp, in assembly): the
 * block of hop_longjmp that jumps back is reached by a conditional
 * branch, not by the call, unlike glibc's longjmp whose jump is in the
 * block the call enters. Prints "calls: hop ok" (or "calls: hop
 * unsupported" where there is no assembly for the target) and returns 0.
 *
 *   main                                 m
 *     hop_outer                          m+1     hop_setjmp here
 *       hop_setjmp                       m+2     returns
 *       hop_middle                       m+2
 *         hop_inner                      m+3
 *           hop_longjmp                  m+4     back to hop_outer
 *       after_hop                        m+2     after the longjmp
 *
 * Run with "tail", main instead calls tail_jump(3), in assembly, whose
 * only instruction is a plain jump to the entry of tail_callee (x86_64
 * jmp, aarch64 b, riscv64 j, arm Thumb b.w): a tail call. tail_callee
 * calls tail_leaf and returns to main in tail_jump's place. Then main
 * calls tail_jump_reg(4, tail_callee), in assembly too, which jumps to
 * its second argument (jmp *%rsi, br x1, jr a1, bx r1). Prints "calls:
 * tail ok" (or "calls: tail unsupported" where there is no assembly for
 * the target) and returns 0.
 *
 *   main                                 m
 *     tail_jump                          m+1     replaced by tail_callee
 *     tail_callee                        m+1     entered by the jump
 *       tail_leaf                        m+2
 *     tail_jump_reg                      m+1     replaced by tail_callee
 *     tail_callee                        m+1     entered by the jump
 *       tail_leaf                        m+2
 */
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define NOINLINE __attribute__((noinline))
#define NWORKERS 2

static volatile int sink;           /* keeps results alive */
static jmp_buf jump_env;
static pthread_barrier_t workers_met;
static volatile sig_atomic_t handled;

static NOINLINE int fact(int n)
{
    if (n <= 1) {
        return 1;
    }
    return n * fact(n - 1);
}

static NOINLINE int add_one(int x)
{
    return x + 1;
}

static NOINLINE int twice(int x)
{
    return x * 2;
}

/* The pointer goes through a volatile so the call stays indirect. */
static NOINLINE int apply(int (*fn)(int), int x)
{
    int (*volatile call)(int) = fn;

    return call(x) + 0 * sink;
}

static NOINLINE void jump_inner(int value)
{
    sink = value;
    longjmp(jump_env, value);
}

static NOINLINE void jump_middle(int value)
{
    jump_inner(value + 1);
    sink = -1;                      /* not reached */
}

static NOINLINE int after_jump(int value)
{
    return value * 10;
}

static NOINLINE int jump_outer(void)
{
    int value = setjmp(jump_env);

    if (value == 0) {
        jump_middle(1);
        return -1;                  /* not reached */
    }
    return after_jump(value);
}

/*
 * hop_setjmp(buf) saves the callee-saved registers, the stack pointer
 * and its return address in buf and returns 0; hop_longjmp(buf, v)
 * restores them and jumps to that address with v (1 if v is 0), by a
 * register jump that is no return instruction. Its first block tests v,
 * so that the jump sits in a block of its own.
 */
struct hop_buf {
    uint64_t word[32];
} __attribute__((aligned(16)));

#if defined(__x86_64__)
#define HOP_ASM 1
__asm__(
    ".text\n"
    ".type hop_setjmp, @function\n"
    "hop_setjmp:\n"
    "    mov %rbx, 0(%rdi)\n"
    "    mov %rbp, 8(%rdi)\n"
    "    mov %r12, 16(%rdi)\n"
    "    mov %r13, 24(%rdi)\n"
    "    mov %r14, 32(%rdi)\n"
    "    mov %r15, 40(%rdi)\n"
    "    lea 8(%rsp), %rdx\n"
    "    mov %rdx, 48(%rdi)\n"
    "    mov (%rsp), %rdx\n"
    "    mov %rdx, 56(%rdi)\n"
    "    xor %eax, %eax\n"
    "    ret\n"
    ".size hop_setjmp, . - hop_setjmp\n"
    ".type hop_longjmp, @function\n"
    "hop_longjmp:\n"
    "    mov %esi, %eax\n"
    "    test %eax, %eax\n"
    "    jnz 1f\n"
    "    mov $1, %eax\n"
    "1:  mov 0(%rdi), %rbx\n"
    "    mov 8(%rdi), %rbp\n"
    "    mov 16(%rdi), %r12\n"
    "    mov 24(%rdi), %r13\n"
    "    mov 32(%rdi), %r14\n"
    "    mov 40(%rdi), %r15\n"
    "    mov 48(%rdi), %rsp\n"
    "    mov 56(%rdi), %rdx\n"
    "    jmp *%rdx\n"
    ".size hop_longjmp, . - hop_longjmp\n");
#elif defined(__aarch64__)
#define HOP_ASM 1
__asm__(
    ".text\n"
    ".type hop_setjmp, %function\n"
    "hop_setjmp:\n"
    "    stp x19, x20, [x0, #0]\n"
    "    stp x21, x22, [x0, #16]\n"
    "    stp x23, x24, [x0, #32]\n"
    "    stp x25, x26, [x0, #48]\n"
    "    stp x27, x28, [x0, #64]\n"
    "    stp x29, x30, [x0, #80]\n"
    "    mov x2, sp\n"
    "    str x2, [x0, #96]\n"
    "    stp d8, d9, [x0, #104]\n"
    "    stp d10, d11, [x0, #120]\n"
    "    stp d12, d13, [x0, #136]\n"
    "    stp d14, d15, [x0, #152]\n"
    "    mov w0, #0\n"
    "    ret\n"
    ".size hop_setjmp, . - hop_setjmp\n"
    ".type hop_longjmp, %function\n"
    "hop_longjmp:\n"
    "    mov w2, w1\n"
    "    cbnz w2, 1f\n"
    "    mov w2, #1\n"
    "1:  ldp x19, x20, [x0, #0]\n"
    "    ldp x21, x22, [x0, #16]\n"
    "    ldp x23, x24, [x0, #32]\n"
    "    ldp x25, x26, [x0, #48]\n"
    "    ldp x27, x28, [x0, #64]\n"
    "    ldp x29, x30, [x0, #80]\n"
    "    ldr x3, [x0, #96]\n"
    "    mov sp, x3\n"
    "    ldp d8, d9, [x0, #104]\n"
    "    ldp d10, d11, [x0, #120]\n"
    "    ldp d12, d13, [x0, #136]\n"
    "    ldp d14, d15, [x0, #152]\n"
    "    mov w0, w2\n"
    "    mov x4, x30\n"
    "    br x4\n"
    ".size hop_longjmp, . - hop_longjmp\n");
#elif defined(__riscv) && __riscv_xlen == 64 && defined(__riscv_float_abi_double)
#define HOP_ASM 1
__asm__(
    ".text\n"
    ".type hop_setjmp, @function\n"
    "hop_setjmp:\n"
    "    sd ra, 0(a0)\n"
    "    sd sp, 8(a0)\n"
    "    sd s0, 16(a0)\n"
    "    sd s1, 24(a0)\n"
    "    sd s2, 32(a0)\n"
    "    sd s3, 40(a0)\n"
    "    sd s4, 48(a0)\n"
    "    sd s5, 56(a0)\n"
    "    sd s6, 64(a0)\n"
    "    sd s7, 72(a0)\n"
    "    sd s8, 80(a0)\n"
    "    sd s9, 88(a0)\n"
    "    sd s10, 96(a0)\n"
    "    sd s11, 104(a0)\n"
    "    fsd fs0, 112(a0)\n"
    "    fsd fs1, 120(a0)\n"
    "    fsd fs2, 128(a0)\n"
    "    fsd fs3, 136(a0)\n"
    "    fsd fs4, 144(a0)\n"
    "    fsd fs5, 152(a0)\n"
    "    fsd fs6, 160(a0)\n"
    "    fsd fs7, 168(a0)\n"
    "    fsd fs8, 176(a0)\n"
    "    fsd fs9, 184(a0)\n"
    "    fsd fs10, 192(a0)\n"
    "    fsd fs11, 200(a0)\n"
    "    li a0, 0\n"
    "    ret\n"
    ".size hop_setjmp, . - hop_setjmp\n"
    ".type hop_longjmp, @function\n"
    "hop_longjmp:\n"
    "    mv a2, a1\n"
    "    bnez a2, 1f\n"
    "    li a2, 1\n"
    "1:  ld ra, 0(a0)\n"
    "    ld sp, 8(a0)\n"
    "    ld s0, 16(a0)\n"
    "    ld s1, 24(a0)\n"
    "    ld s2, 32(a0)\n"
    "    ld s3, 40(a0)\n"
    "    ld s4, 48(a0)\n"
    "    ld s5, 56(a0)\n"
    "    ld s6, 64(a0)\n"
    "    ld s7, 72(a0)\n"
    "    ld s8, 80(a0)\n"
    "    ld s9, 88(a0)\n"
    "    ld s10, 96(a0)\n"
    "    ld s11, 104(a0)\n"
    "    fld fs0, 112(a0)\n"
    "    fld fs1, 120(a0)\n"
    "    fld fs2, 128(a0)\n"
    "    fld fs3, 136(a0)\n"
    "    fld fs4, 144(a0)\n"
    "    fld fs5, 152(a0)\n"
    "    fld fs6, 160(a0)\n"
    "    fld fs7, 168(a0)\n"
    "    fld fs8, 176(a0)\n"
    "    fld fs9, 184(a0)\n"
    "    fld fs10, 192(a0)\n"
    "    fld fs11, 200(a0)\n"
    "    mv a0, a2\n"
    "    mv a3, ra\n"
    "    jr a3\n"
    ".size hop_longjmp, . - hop_longjmp\n");
#elif defined(__arm__) && defined(__ARM_PCS_VFP)
#define HOP_ASM 1
__asm__(
    ".text\n"
    ".syntax unified\n"
    ".arm\n"
    ".type hop_setjmp, %function\n"
    "hop_setjmp:\n"
    "    stmia r0!, {r4-r11}\n"
    "    str sp, [r0], #4\n"
    "    str lr, [r0], #4\n"
    "    vstmia r0, {d8-d15}\n"
    "    mov r0, #0\n"
    "    bx lr\n"
    ".size hop_setjmp, . - hop_setjmp\n"
    ".type hop_longjmp, %function\n"
    "hop_longjmp:\n"
    "    movs r2, r1\n"
    "    bne 1f\n"
    "    mov r2, #1\n"
    "1:  ldmia r0!, {r4-r11}\n"
    "    ldr sp, [r0], #4\n"
    "    ldr r3, [r0], #4\n"
    "    vldmia r0, {d8-d15}\n"
    "    mov r0, r2\n"
    "    bx r3\n"
    ".size hop_longjmp, . - hop_longjmp\n"
    ".text\n");
#endif

#ifdef HOP_ASM
int hop_setjmp(struct hop_buf *buf) __attribute__((returns_twice));
void hop_longjmp(struct hop_buf *buf, int value) __attribute__((noreturn));

static struct hop_buf hop_env;

static NOINLINE void hop_inner(int value)
{
    sink = value;
    hop_longjmp(&hop_env, value);
}

static NOINLINE void hop_middle(int value)
{
    hop_inner(value + 1);
    sink = -1;                      /* not reached */
}

static NOINLINE int after_hop(int value)
{
    return value * 10;
}

static NOINLINE int hop_outer(void)
{
    volatile int value = hop_setjmp(&hop_env);

    if (value == 0) {
        hop_middle(1);
        return -1;                  /* not reached */
    }
    return after_hop(value);
}
#endif

/*
 * The tail calls: tail_jump(v) and tail_jump_reg(v, tail_callee) are
 * tail_callee(v), entered by a direct jump and by a jump through the
 * register that holds fn.
 */
int tail_callee(int value);
int tail_jump(int value);
int tail_jump_reg(int value, int (*fn)(int));

#if defined(__x86_64__)
#define TAIL_ASM "jmp tail_callee"
#define TAIL_REG_ASM "jmp *%rsi"
#elif defined(__aarch64__)
#define TAIL_ASM "b tail_callee"
#define TAIL_REG_ASM "br x1"
#elif defined(__riscv)
#define TAIL_ASM "j tail_callee"
#define TAIL_REG_ASM "jr a1"
#elif defined(__arm__) && defined(__thumb2__)
#define TAIL_MODE ".syntax unified\n.thumb\n.thumb_func\n"
#define TAIL_ASM "b.w tail_callee"
#define TAIL_REG_ASM "bx r1"
#endif
#ifndef TAIL_MODE
#define TAIL_MODE ""
#endif

#ifdef TAIL_ASM
__asm__(
    ".text\n"
    ".globl tail_jump\n"
    ".type tail_jump, %function\n"
    ".p2align 2\n"
    TAIL_MODE
    "tail_jump:\n"
    "    " TAIL_ASM "\n"
    ".size tail_jump, . - tail_jump\n"
    ".globl tail_jump_reg\n"
    ".type tail_jump_reg, %function\n"
    ".p2align 2\n"
    TAIL_MODE
    "tail_jump_reg:\n"
    "    " TAIL_REG_ASM "\n"
    ".size tail_jump_reg, . - tail_jump_reg\n");
#endif

static NOINLINE int tail_leaf(int value)
{
    sink = value;
    return value + 1;
}

NOINLINE int tail_callee(int value)
{
    return tail_leaf(value) * 2;
}

static NOINLINE int in_handler(int sig)
{
    return sig + 1000;
}

static void on_signal(int sig)
{
    handled = in_handler(sig);
}

static NOINLINE int raise_signal(void)
{
    struct sigaction sa;

    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGUSR1, &sa, NULL) != 0) {
        return -1;
    }
    raise(SIGUSR1);
    return handled;
}

static volatile int deep_count;

/*
 * level lives on the stack on both paths, so both share one epilogue; the
 * recursive call is marked likely, so it is laid out in line and the
 * branch that skips it lands right after it.
 */
static NOINLINE void deep(int n)
{
    volatile int level = n;

    if (__builtin_expect(level > 1, 1)) {
        deep(level - 1);
    }
    deep_count++;
}

static NOINLINE int work_item(int index)
{
    return index * 7;
}

static void *worker(void *arg)
{
    int *slot = arg;

    *slot = work_item(*slot);
    pthread_barrier_wait(&workers_met);
    return NULL;
}

static NOINLINE int run_threads(void)
{
    pthread_t threads[NWORKERS];
    int slots[NWORKERS] = { 1, 2 };
    int i;

    if (pthread_barrier_init(&workers_met, NULL, NWORKERS + 1) != 0) {
        return -1;
    }
    for (i = 0; i < NWORKERS; i++) {
        if (pthread_create(&threads[i], NULL, worker, &slots[i]) != 0) {
            return -1;
        }
    }
    pthread_barrier_wait(&workers_met);
    for (i = 0; i < NWORKERS; i++) {
        pthread_join(threads[i], NULL);
    }
    pthread_barrier_destroy(&workers_met);
    return slots[0] + slots[1];
}

int main(int argc, char **argv)
{
    int ok = 1;

    if (argc > 1 && strcmp(argv[1], "deep") == 0) {
        deep(5);
        deep(1500);
        ok = deep_count == 1505;
        printf("calls: deep %s\n", ok ? "ok" : "WRONG");
        return ok ? 0 : 1;
    }

    if (argc > 1 && strcmp(argv[1], "hop") == 0) {
#ifdef HOP_ASM
        ok = hop_outer() == 20;
        printf("calls: hop %s\n", ok ? "ok" : "WRONG");
#else
        printf("calls: hop unsupported\n");
#endif
        return ok ? 0 : 1;
    }

    if (argc > 1 && strcmp(argv[1], "tail") == 0) {
#ifdef TAIL_ASM
        ok = tail_jump(3) == 8 && tail_jump_reg(4, tail_callee) == 10;
        printf("calls: tail %s\n", ok ? "ok" : "WRONG");
#else
        printf("calls: tail unsupported\n");
#endif
        return ok ? 0 : 1;
    }

    ok &= fact(5) == 120;
    ok &= apply(add_one, 1) == 2;
    ok &= apply(twice, 2) == 4;
    ok &= jump_outer() == 20;
    ok &= raise_signal() == SIGUSR1 + 1000;
    ok &= run_threads() == 21;
    printf("calls: %s\n", ok ? "ok" : "WRONG");
    return ok ? 0 : 1;
}
