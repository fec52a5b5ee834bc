#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The control socket's window command on a running guest of ARCH whose
# window opens far beyond its run (start-at=10^12): the options as
# given, translation counting only, vCPU 0 pending with a count that
# grows, still recording nothing after trace-file off and on; a window with no start-at is open from the first block, with
# its stop point, and the control's stop-after closes it. Nothing is
# recorded before the window, and an argument
# is refused.
ARCH=$1
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/ctl-lib.sh"
use_guest ctl-wait "$ARCH"
SOCK=$WORK/c.sock
T=$WORK/t.qtr

# key_line KEY FILE: the line of FILE starting with KEY and a blank.
key_line() {
    awk -v k="$1" '$1 == k { print; exit }' "$2"
}

ctl_start_guest "$SOCK" "$T" ",events=syscall,start-at=1000000000000" \
    spin "$WORK/stop"
ctl_wait_socket "$SOCK"
sleep 0.3
"$QTRACE" ctl "$SOCK" window > "$WORK/w1"
check_eq "window status" 0 "$?"
sleep 0.3
"$QTRACE" ctl "$SOCK" window > "$WORK/w2"
check_eq "start-at as given" "start-at 1000000000000" "$(key_line start-at "$WORK/w1")"
check_eq "no stop-after" "stop-after none" "$(key_line stop-after "$WORK/w1")"
check_eq "no stop-at" "stop-at none" "$(key_line stop-at "$WORK/w1")"
check_eq "translation counts only" "mode pending" "$(key_line mode "$WORK/w1")"
check_grep "vCPU 0 pending" "^vcpu0 pending icount [0-9]+\$" "$WORK/w1"
c1=$(awk '$1 == "vcpu0" { print $NF }' "$WORK/w1")
c2=$(awk '$1 == "vcpu0" { print $NF }' "$WORK/w2")
if [ "${c2:-0}" -gt "${c1:-0}" ]; then
    pass "vCPU 0's count grows ($c1, then $c2)"
else
    fail "vCPU 0's count does not grow ($c1, then $c2)"
fi
# trace-file off then on does not open a window that is not open.
"$QTRACE" ctl "$SOCK" trace-file off > /dev/null
"$QTRACE" ctl "$SOCK" trace-file on > /dev/null
sleep 0.3
"$QTRACE" ctl "$SOCK" window now > "$WORK/out" 2> "$WORK/err"
check_eq "window with an argument: status" 1 "$?"
check_eq "window with an argument: the line" \
    "qtrace ctl: window: takes no argument" "$(cat "$WORK/err")"
ctl_stop_guest "$WORK/stop"
check_eq "guest status" 0 "$QEMU_STATUS"
check_eq "blocks recorded before the window" 0 "$(info_count "$T" exec_tb)"
check_eq "system calls recorded before the window" 0 \
    "$(info_count "$T" syscall)"

rm -f "$WORK/stop" "$T"
ctl_start_guest "$SOCK" "$T" ",events=exec_tb,stop-after=1000000000000" \
    spin "$WORK/stop"
ctl_wait_socket "$SOCK"
"$QTRACE" ctl "$SOCK" window > "$WORK/w3"
check_eq "stop-after alone: mode" "mode full" "$(key_line mode "$WORK/w3")"
check_grep "stop-after alone: vCPU 0 open from 0" \
    "^vcpu0 open opened 0 stop 1000000000000 icount [0-9]+\$" "$WORK/w3"
# stop-after from now closes it, and translation then instruments
# nothing; a closed run takes no more.
"$QTRACE" ctl "$SOCK" stop-after 0 > /dev/null 2> "$WORK/err"
check_eq "stop-after 0: refused" \
    "qtrace ctl: stop-after: 0: expected a count of instructions (1 or more)" \
    "$(cat "$WORK/err")"
"$QTRACE" ctl "$SOCK" stop-after 1000
check_eq "stop-after 1000: status" 0 "$?"
sleep 0.5
"$QTRACE" ctl "$SOCK" window > "$WORK/w4"
check_eq "after stop-after 1000: mode" "mode done" "$(key_line mode "$WORK/w4")"
check_eq "after stop-after 1000: stop-after" "stop-after 1000" \
    "$(key_line stop-after "$WORK/w4")"
check_grep "after stop-after 1000: vCPU 0 closed" "^vcpu0 closed opened 0 " \
    "$WORK/w4"
"$QTRACE" ctl "$SOCK" stop-after 5 > /dev/null 2> "$WORK/err"
check_eq "stop-after once closed: refused" \
    "qtrace ctl: stop-after: every window has closed" "$(cat "$WORK/err")"
ctl_stop_guest "$WORK/stop"
check_eq "stop-after alone: guest status" 0 "$QEMU_STATUS"
"$QTRACE" dump "$T" > "$WORK/d"
stop=$(awk '$1 == "vcpu0" { for (i = 1; i < NF; i++) if ($i == "stop") print $(i + 1) }' "$WORK/w4")
last=$(awk '$3 == "exec_tb" { t = $2 } END { print t + 0 }' "$WORK/d")
off=$(awk '$3 == "trace_switch" && $NF == 0 && $2 > 0 { print $2 }' "$WORK/d")
# At the first block starting there or later: within a block (512 at most).
if [ -n "$off" ] && [ "$off" -ge "$stop" ] && [ "$off" -lt $((stop + 512)) ]; then
    pass "the window closed at $off, the first block from $stop"
else
    fail "the window closed at '$off', not at the first block from $stop"
fi
if [ "$last" -lt "$stop" ]; then
    pass "no block recorded from $stop on (last at $last)"
else
    fail "a block recorded at $last, after the window closed at $stop"
fi
finish
