#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# backend=log: the plugin's events as QEMU's log backend prints them,
# "PID@SEC.USEC:name format-output". Checked against what the guests do
# by construction (the asm guest's block counts, the syscalls guest's
# getpid/getppid calls and the pid getpid returns, which is QEMU's), and
# line for line against qtrace dump of the native trace of the same run.
# Also: backend names the plugin does not know are refused in one line.
ARCH=$1
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/backends-lib.sh"
use_guest asm "$ARCH"

run_plugin "out=t.qtr,events=exec_tb;syscall,backend=log,backend-log=log" \
    "$GUEST"
check_eq "asm guest exit status" "$(expect_get exit)" "$RC"
check_eq "nothing on stderr" "" "$(grep "^qtrace:" "$WORK/err")"
n=$(wc -l < "$WORK/log")
check_eq "every line QEMU's PID@SEC.USEC:name args" "$n" \
    "$(grep -Ec "^$QEMU_PID@[0-9]+\.[0-9]{6}:[a-z_]+ " "$WORK/log")"
sed 's/^[^:]*://' "$WORK/log" > "$WORK/lines"
check_eq "exec_tb per block = the guest's construction" \
    "$(expect_blocks)" "$(count_blocks < "$WORK/lines")"
# dump: "VCPU TIME name args[ | symbol]"; log: "PREFIX:name args".
"$QTRACE" dump "$WORK/t.qtr" | cut -d' ' -f3- | sed 's/ | .*//' \
    > "$WORK/dump"
check_same "log lines = native dump lines" "$WORK/dump" "$WORK/lines"
check_grep "tb_trans came along (implied by exec_tb)" \
    "^tb_trans pc 0x[0-9a-f]+ tb [0-9]+ size [0-9]+ insns [0-9]+$" \
    "$WORK/lines"

# System calls known by construction, and getpid's answer.
use_guest syscalls "$ARCH"
syscall_numbers
run_plugin "out=t.qtr,events=syscall*,backend=log,backend-log=log" "$GUEST"
check_eq "syscalls guest exit status" 3 "$RC"
sed 's/^[^:]*://' "$WORK/log" > "$WORK/lines"
check_eq "getpid calls" 7 "$(grep -c "^syscall num $GETPID " "$WORK/lines")"
check_eq "getppid calls" 3 \
    "$(grep -c "^syscall num $GETPPID " "$WORK/lines")"
check_eq "getpid returns QEMU's pid" 7 \
    "$(grep -c "^syscall_ret num $GETPID ret $QEMU_PID$" "$WORK/lines")"
check_eq "only the selected events" "" \
    "$(grep -Ev '^syscall(_ret)? ' "$WORK/lines")"
"$QTRACE" dump "$WORK/t.qtr" | cut -d' ' -f3- | sed 's/ | .*//' \
    > "$WORK/dump"
check_same "log lines = native dump lines" "$WORK/dump" "$WORK/lines"

# qtrace record --backend is -O backend=.
"$QTRACE" record -q -e syscall --backend log -O "backend-log=$WORK/rec.log" \
    -o "$WORK/rec.qtr" -- "$GUEST" > /dev/null 2>&1
check_eq "qtrace record --backend log: getpid calls" 7 \
    "$(grep -c ":syscall num $GETPID " "$WORK/rec.log")"

# What only another output needs stays out: log= adds exec_insn and
# mem_access to the native trace, not to the backends.
run_plugin "out=t.qtr,log=exec.log,events=syscall,backend=log,backend-log=log" \
    "$GUEST"
check_eq "log= adds nothing to the backends" "" \
    "$(sed 's/^[^:]*://' "$WORK/log" | grep -v '^syscall ')"
check_eq "  but does to the native trace" 1 \
    "$(info_count "$WORK/t.qtr" exec_insn | awk '{ print ($1 > 0) }')"

QTRACE_MSG=timestamp=off run_plugin \
    "out=t.qtr,events=syscall,backend=log,backend-log=log" "$GUEST"
check_eq "QTRACE_MSG=timestamp=off: no prefix" 7 \
    "$(grep -c "^syscall num $GETPID " "$WORK/log")"

# Standard error by default: QEMU's, beside the guest's own.
run_plugin "out=t.qtr,events=syscall,backend=log" "$GUEST"
check_eq "default destination stderr: getpid lines" 7 \
    "$(grep -c "^$QEMU_PID@.*:syscall num $GETPID " "$WORK/err")"

# Refused, one line each, QEMU not started.
for bad in "backend=lttng" \
           "backend=log;nop" "backend-file=x.st" "backend-log=x.log"; do
    run_plugin "out=t.qtr,$bad" "$GUEST"
    if [ "$RC" -ne 0 ] && [ "$(grep -c "^qtrace:" "$WORK/err")" -eq 1 ]; then
        pass "$bad refused: $(grep "^qtrace:" "$WORK/err")"
    else
        fail "$bad: status $RC, stderr: $(grep "^qtrace:" "$WORK/err")"
    fi
done
finish
