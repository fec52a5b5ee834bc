/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The example instrumentation library of QEMU's proposed trace
 * instrumentation interface ("qemu-instr", docs/instrumentation.txt of
 * that proposal), written against that API: qemu-instr/events.h and
 * qemu-instr/control.h, here include/qemu-instr/. Below this comment
 * every token is the proposal's; only line breaks and indentation are
 * laid out again. It builds against qtrace's headers as is and runs
 * inside libqtrace.so: instr=PATH,instr-arg=foo,instr-arg=bar.
 *
 * What it does: prints its arguments at init; traces every translated
 * memory access and asks for the execution-time event of stores only,
 * which it traces too; traces the first guest_cpu_enter and, from the
 * second on, turns that event's callback and tracing off; prints "fini!"
 * on stderr at exit. Its records are user_event records
 * (docs/instrument.md, "The qemu-instr layer").
 */
#include <stdio.h>
#include <assert.h>

#include <qemu-instr/events.h> /* get event declarations */
#include <qemu-instr/control.h> /* manipulate events */

/* as documented in QEMU's event description */
struct mem_info {
    uint8_t size_shift : 2;
    bool sign_extend: 1;
    uint8_t endianness : 1;
    bool store : 1;
};

/* the address for the memory access is not known at translation time */
void guest_mem_before_trans(QICPU *cpu, QITCGv_cpu tcg_cpu,
                            QITCGv vaddr, uint8_t info)
{
    struct mem_info *mi = (struct mem_info*)&info;
    qi_event_guest_mem_before_trans_trace(cpu, tcg_cpu, vaddr, info);
    if (mi->store) {
        /* generate at execution time only for memory writes */
        qi_event_guest_mem_before_trans_gen_exec(cpu, tcg_cpu, vaddr, info);
    }
}

/* called when QEMU executes a memory access */
void guest_mem_before_exec(QICPU *cpu, uint64_t vaddr, uint8_t info)
{
    struct mem_info *mi = (struct mem_info*)&info;
    if (mi->store) {
        /* if called by TCG code, we'll only get writes (see above) */
        qi_event_guest_mem_before_exec_trace(cpu, vaddr, info);
    }
}

/* called every time QEMU hotplugs a CPU */
void guest_cpu_enter(QICPU *cpu)
{
    /* call the original tracing routine */
    qi_event_guest_cpu_enter_trace(cpu);

    /* disable instrumentation and tracing after the first call */
    static bool found = false;
    if (found) {
        QIEvent *ev = QI_EVENT_GUEST_CPU_ENTER;
        qi_ctrl_event_set(ev, NULL);
        qi_trace_event_set_state_dynamic(ev, false);
    } else {
        found = true;
    }
}


/* mandatory initialization callback */
void qi_init(int argc, const char **argv)
{
    int i;
    printf("init!\n");
    printf(" argc :: %d\n", argc);
    for (i = 0; i < argc; i++) {
        printf(" -> %s\n", argv[i]);
    }

    /* instrument and trace events */
    QIEvent *ev;

    ev = QI_EVENT_GUEST_CPU_ENTER;
    qi_ctrl_event_set(ev, guest_cpu_enter);
    qi_trace_event_set_state_dynamic(ev, true);

    ev = QI_EVENT_GUEST_MEM_BEFORE_TRANS;
    qi_ctrl_event_set(ev, guest_mem_before_trans);
    qi_trace_event_set_state_dynamic(ev, true);

    ev = QI_EVENT_GUEST_MEM_BEFORE_EXEC;
    qi_ctrl_event_set(ev, guest_mem_before_exec);
    qi_trace_event_set_state_dynamic(ev, true);
}

/* mandatory finalization callback */
void qi_fini(void)
{
    fprintf(stderr, "fini!\n");

    /* ensure all tracing is disabled */
    qi_trace_event_set_state_dynamic(QI_EVENT_GUEST_CPU_ENTER, false);
    qi_trace_event_set_state_dynamic(QI_EVENT_GUEST_MEM_BEFORE_TRANS, false);
    qi_trace_event_set_state_dynamic(QI_EVENT_GUEST_MEM_BEFORE_EXEC, false);

    /* instrumentation callbacks are automatically reset by QEMU */
}
