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
 */
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
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

    ok &= fact(5) == 120;
    ok &= apply(add_one, 1) == 2;
    ok &= apply(twice, 2) == 4;
    ok &= jump_outer() == 20;
    ok &= raise_signal() == SIGUSR1 + 1000;
    ok &= run_threads() == 21;
    printf("calls: %s\n", ok ? "ok" : "WRONG");
    return ok ? 0 : 1;
}
