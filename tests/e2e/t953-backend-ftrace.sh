#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# backend=ftrace: with a writable tracefs, each record lands in the
# kernel's trace as a trace_marker write "name format-output" from
# QEMU's writer thread; the asm guest's blocks must be there as many
# times as its construction says. Without tracefs (containers, no root)
# the plugin must refuse to start, in one line naming trace_marker,
# rather than trace to nowhere; the test then skips, saying why.
ARCH=$1
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/backends-lib.sh"
use_guest asm "$ARCH"

tracefs=
for d in /sys/kernel/tracing /sys/kernel/debug/tracing; do
    if [ -w "$d/trace_marker" ]; then
        tracefs=$d
        break
    fi
done

if [ -z "$tracefs" ]; then
    run_plugin "out=t.qtr,events=exec_tb,backend=ftrace" "$GUEST"
    if [ "$RC" -ne 0 ] &&
       [ "$(grep -c '^qtrace: backend=ftrace: .*trace_marker' "$WORK/err")" -eq 1 ] &&
       [ ! -e "$WORK/t.qtr" ]; then
        pass "refused without tracefs: $(grep '^qtrace:' "$WORK/err")"
    else
        fail "backend=ftrace without tracefs: status $RC, stderr: $(cat "$WORK/err")"
        finish
    fi
    skip "no writable trace_marker under /sys/kernel/tracing or /sys/kernel/debug/tracing (needs root and tracefs); only the refusal was checked"
fi

echo > "$tracefs/trace" || skip "cannot clear $tracefs/trace"
run_plugin "out=t.qtr,events=exec_tb,backend=ftrace" "$GUEST"
check_eq "guest exit status" "$(expect_get exit)" "$RC"
check_eq "nothing on stderr" "" "$(cat "$WORK/err")"
# "TASK-PID [CPU] FLAGS TIME: tracing_mark_write: name args"
grep "tracing_mark_write: " "$tracefs/trace" |
    sed 's/.*tracing_mark_write: //' > "$WORK/lines"
check_eq "exec_tb per block = the guest's construction" \
    "$(expect_blocks)" "$(count_blocks < "$WORK/lines")"
finish
