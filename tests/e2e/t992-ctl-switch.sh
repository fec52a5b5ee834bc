#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# trace-file off / on on a running guest: the vCPU's stream holds a
# trace_switch on 0, then nothing but a trace_switch on 1 later in guest
# time (the instructions run meanwhile), and blocks again from that time
# on; a repeated off changes nothing; the trace stays complete.
# Usage: t992-ctl-switch.sh ARCH.
ARCH=${1:?usage: t992-ctl-switch.sh ARCH}
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=tests/e2e/ctl-lib.sh
. "$(dirname "$0")/ctl-lib.sh"

use_guest ctl-wait "$ARCH"
SOCK=$WORK/c.sock
T=$WORK/t.qtr

ctl_start_guest "$SOCK" "$T" "" spin "$WORK/stop"
ctl_wait_socket "$SOCK"
sleep 0.2
"$QTRACE" ctl "$SOCK" trace-file off
check_eq "trace-file off status" 0 $?
"$QTRACE" ctl "$SOCK" trace-file off
check_eq "second trace-file off status" 0 $?
check_eq "trace-file while off" "Trace file \"$T\" off." \
    "$("$QTRACE" ctl "$SOCK" trace-file)"
# Once the vCPU has followed (it sleeps 10 ms a round) and what it held
# is written, the file grows no more.
sleep 0.2
"$QTRACE" ctl "$SOCK" trace-file flush > /dev/null
"$QTRACE" ctl "$SOCK" stats > "$WORK/s-off"
check_eq "stats while off: writing" off "$(stat_get "$WORK/s-off" writing)"
sleep 0.3
"$QTRACE" ctl "$SOCK" trace-file flush > /dev/null
"$QTRACE" ctl "$SOCK" stats > "$WORK/s-off2"
check_eq "no record written while off" "$(stat_get "$WORK/s-off" records)" \
    "$(stat_get "$WORK/s-off2" records)"
"$QTRACE" ctl "$SOCK" trace-file on
check_eq "trace-file on status" 0 $?
sleep 0.2
ctl_stop_guest "$WORK/stop"
check_eq "guest exit status" 0 "$QEMU_STATUS"

"$QTRACE" info "$T" > "$WORK/info" 2>&1
check_eq "qtrace info status" 0 $?
check_eq "end" "complete (exit 0)" "$(info_get "$WORK/info" end)"
check_eq "lost" 0 "$(info_get "$WORK/info" lost)"
check_eq "trace_switch records" 2 \
    "$(awk '$1 == "trace_switch" { print $2 }' "$WORK/info")"

# The vCPU's own records (translations belong to no vCPU).
"$QTRACE" dump "$T" | awk '$1 == "0"' | cut -d' ' -f1-7 > "$WORK/vcpu0"
off_line=$(grep -n 'trace_switch vcpu 0 on 0$' "$WORK/vcpu0" | cut -d: -f1)
on_line=$(grep -n 'trace_switch vcpu 0 on 1$' "$WORK/vcpu0" | cut -d: -f1)
check_eq "nothing between the switch records" $((${off_line:-0} + 1)) \
    "${on_line:-none}"
t_off=$(sed -n "${off_line}p" "$WORK/vcpu0" | cut -d' ' -f2)
t_on=$(sed -n "${on_line}p" "$WORK/vcpu0" | cut -d' ' -f2)
if [ "${t_on:-0}" -gt "${t_off:-0}" ]; then
    pass "the guest ran $((t_on - t_off)) instructions while off"
else
    fail "switch times: off $t_off, on $t_on"
fi
# The first block after the switch starts at the switch's time.
t_next=$(sed -n "$((on_line + 1)),\$p" "$WORK/vcpu0" |
    awk '$3 == "exec_tb" { print $2; exit }')
check_eq "first block after on starts at its time" "$t_on" "$t_next"
# Blocks before the switch end where the switch record says.
t_prev=$(sed -n "1,$((off_line - 1))p" "$WORK/vcpu0" |
    awk '$3 == "exec_tb" { t = $2 } END { print t }')
if [ "${t_prev:-0}" -lt "${t_off:-0}" ]; then
    pass "last block before off at $t_prev < $t_off"
else
    fail "last block before off at $t_prev, switch at $t_off"
fi

# With memory accesses in the stream, off, a new file while off, then
# on: a vCPU comes back at a block start (an access needs its block),
# and both files read to their END.
ctl_start_guest "$SOCK" "$WORK/m1.qtr" ",events=exec_tb;mem_access;func_*;sys*" spin \
    "$WORK/stop2"
ctl_wait_socket "$SOCK"
sleep 0.2
"$QTRACE" ctl "$SOCK" trace-file off
"$QTRACE" ctl "$SOCK" trace-file set "$WORK/m2.qtr" > /dev/null
check_eq "set while off: status" 0 $?
sleep 0.2
"$QTRACE" ctl "$SOCK" trace-file on
sleep 0.2
ctl_stop_guest "$WORK/stop2"
for f in m1 m2; do
    "$QTRACE" dump "$WORK/$f.qtr" > /dev/null 2> "$WORK/$f.err"
    check_eq "$f.qtr: qtrace dump status" 0 $?
    [ -s "$WORK/$f.err" ] && sed 's/^/    /' "$WORK/$f.err"
done
check_eq "m2.qtr: accesses after the switch" yes \
    "$(test "$(info_count "$WORK/m2.qtr" mem_access)" -gt 0 && echo yes)"
finish
