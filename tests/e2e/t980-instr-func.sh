#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Function entry and exit callbacks (on_func_entry / on_func_exit) on the
# calls guest of ARCH, through the example libqtrace-instr-calls.so, with
# no func_* event recorded: the calls, returns, exits by kind and depths
# of the guest's functions must be those of the call tree in the header
# of tests/guests/calls.c. The call tracker must run only when a library
# asks for it: the END totals (status=) carry its counters then, and not
# with a library that registers no function callback.
ARCH=$1
. "$(dirname "$0")/lib.sh"
use_guest calls "$ARCH"
[ -n "${INSTR_EXAMPLES:-}" ] || skip "INSTR_EXAMPLES not set"
CALLS="$INSTR_EXAMPLES/libqtrace-instr-calls.so"
COUNTER="$INSTR_EXAMPLES/libqtrace-instr-counter.so"

"qemu-$ARCH" -plugin "$QTRACE_PLUGIN,out=$WORK/t.qtr,events=exec_tb,status=$WORK/status,instr=$CALLS,instr-arg=out=$WORK/funcs" \
    "$GUEST" > "$WORK/out" 2> "$WORK/err"
check_eq "guest exit status" 0 "$?"
check_grep "guest output" '^calls: ok$' "$WORK/out"
check_grep "the call tracker ran for the library" '^calls_unmatched=' \
    "$WORK/status"
check_eq "no func_entry recorded" 0 "$(info_count "$WORK/t.qtr" func_entry)"

# field FUNC KEY: the value after KEY on FUNC's line.
field() {
    awk -v f="$1" -v k="$2" '$1 == "func" && $2 == f {
        for (i = 3; i < NF; i += 2) if ($i == k) print $(i + 1) }' \
        "$WORK/funcs"
}
# FUNC CALLS RETURNS UNWOUND SIGNAL, from the guest's call tree. Entries
# by call or tail call: aarch64's start code reaches main by a plain
# branch (see t280-calls).
while read -r f calls returns unwound signal; do
    c=$(field "$f" calls) t=$(field "$f" tail)
    check_eq "$f: calls" "$calls" "$((${c:-0} + ${t:-0}))"
    check_eq "$f: returns" "$returns" "$(field "$f" returns)"
    check_eq "$f: unwound by the longjmp" "$unwound" "$(field "$f" unwound)"
    check_eq "$f: entered as a signal handler" "$signal" \
        "$(field "$f" signal)"
done <<'TREE'
main 1 1 0 0
fact 5 5 0 0
apply 2 2 0 0
add_one 1 1 0 0
twice 1 1 0 0
jump_outer 1 1 0 0
jump_middle 1 0 1 0
jump_inner 1 0 1 0
after_jump 1 1 0 0
raise_signal 1 1 0 0
on_signal 0 1 0 1
in_handler 1 1 0 0
run_threads 1 1 0 0
worker 2 2 0 0
work_item 2 2 0 0
TREE

# Depths: fact recurses 5 deep below main; the callees one below.
m=$(field main depth | cut -d- -f1)
check_eq "fact depths" "$((m + 1))-$((m + 5))" "$(field fact depth)"
for f in apply jump_outer raise_signal run_threads; do
    check_eq "$f depth" "$((m + 1))-$((m + 1))" "$(field "$f" depth)"
done
for f in add_one twice jump_middle after_jump; do
    check_eq "$f depth" "$((m + 2))-$((m + 2))" "$(field "$f" depth)"
done
check_eq "jump_inner depth" "$((m + 3))-$((m + 3))" "$(field jump_inner depth)"
s=$(field on_signal depth | cut -d- -f1)
check_eq "in_handler one below on_signal" "$((s + 1))-$((s + 1))" \
    "$(field in_handler depth)"
w=$(field worker depth | cut -d- -f1)
check_eq "work_item one below worker" "$((w + 1))-$((w + 1))" \
    "$(field work_item depth)"

# A library without function callbacks leaves the tracker off.
"qemu-$ARCH" -plugin "$QTRACE_PLUGIN,out=$WORK/t.qtr,events=exec_tb,status=$WORK/status2,instr=$COUNTER,instr-arg=out=$WORK/blocks" \
    "$GUEST" > "$WORK/out" 2> "$WORK/err"
check_eq "guest exit status (counter)" 0 "$?"
check_grep "END totals written" '^records=' "$WORK/status2"
check_eq "no call tracker without a library asking" 0 \
    "$(grep -c '^calls_' "$WORK/status2")"
finish
