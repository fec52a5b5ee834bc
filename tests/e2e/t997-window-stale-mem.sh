#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# A window closing in a threaded guest that records accesses, run again
# and again on the calls guest of ARCH: each worker thread's window
# (start-at=work_item,stop-after=50) closes, the translations are
# dropped and later ones record no access, and the worker then leaves
# through glibc's thread exit, whose atomic instructions reach memory
# through QEMU helpers. QEMU 7.2 left those helpers a stale list of
# access callbacks, freed by the flush (docs/cli.md, "Tracing windows"):
# the run died of SIGSEGV in about 1 run of 20. The host allocator fills
# what QEMU frees with a pattern (MALLOC_PERTURB_; glib's slices from
# malloc too), so that a stale list is garbage at once: before the guard
# most of these runs died (every one on riscv64). Each run must exit 0,
# and the windows must hold what they held: accesses of the workers
# only, none of main's (its window never opens).
ARCH=$1
. "$(dirname "$0")/lib.sh"
use_guest calls "$ARCH"

RUNS=${QTRACE_STALE_RUNS:-25}
EV='exec_tb;exec_insn;mem_access;tb_trans;vcpu_init'
bad=0 i=0
while [ "$i" -lt "$RUNS" ]; do
    i=$((i + 1))
    rm -f "$WORK/w.qtr"
    MALLOC_PERTURB_=165 G_SLICE=always-malloc "qemu-$ARCH" \
        -U MALLOC_PERTURB_ -U G_SLICE -plugin \
        "$QTRACE_PLUGIN,out=$WORK/w.qtr,events=$EV,start-at=work_item,stop-after=50" \
        "$GUEST" > "$WORK/out" 2> "$WORK/err"
    st=$?
    if [ "$st" -ne 0 ]; then
        bad=$((bad + 1))
        echo "run $i: status $st: $(head -c 300 "$WORK/err")"
    fi
done
check_eq "runs that did not exit 0, of $RUNS" 0 "$bad"

# The last run's trace: the guard adds no record.
"$QTRACE" dump "$WORK/w.qtr" > "$WORK/w"
check_eq "main's accesses" 0 \
    "$(awk '$1 == 0 && $3 == "mem_access"' "$WORK/w" | wc -l)"
for v in 1 2; do
    n=$(awk -v s=$v '$1 == s && $3 == "mem_access"' "$WORK/w" | wc -l)
    if [ "$n" -gt 0 ]; then
        pass "vCPU $v's window has accesses ($n)"
    else
        fail "vCPU $v's window has no access"
    fi
    # Every access of the window is at an instruction the window ran.
    stray=$(awk -v s=$v '
        $1 == s && $3 == "exec_insn" { ran[$5] = 1 }
        $1 == s && $3 == "mem_access" && !($5 in ran) { n++ }
        END { print n + 0 }' "$WORK/w")
    check_eq "vCPU $v: accesses at instructions not run" 0 "$stray"
done
finish
