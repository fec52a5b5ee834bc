#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# trace-event mem_access on, then off, on a running guest: the plugin
# drops its translations and each vCPU marks the switch with an
# event_switch record at the start of its first block after it. In vCPU
# 0's stream: no access before the "on" record, none after the "off"
# one, some between; the record after each switch is a block starting at
# the switch's time, translated anew (a translation id above every one
# used before). An event that shapes the trace from its start is
# refused; the trace ends complete with nothing lost.
# Usage: t996-ctl-trace-event.sh ARCH (user mode, the ctl-wait guest) or
# system-7.2|system-10.0 (the pc machine's BIOS).
WHAT=${1:?usage: t996-ctl-trace-event.sh ARCH|system-7.2|system-10.0}
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"
TEST_NAME=t996-ctl-trace-event-$WHAT
# shellcheck source=tests/e2e/ctl-lib.sh
. "$(dirname "$0")/ctl-lib.sh"
SOCK=$WORK/c.sock
T=$WORK/t.qtr

case $WHAT in
    system-*) ;;
    *) ARCH=$WHAT; use_guest ctl-wait "$ARCH" ;;
esac

if [ -z "${ARCH:-}" ]; then
    ctl_start_bios "${WHAT#system-}" "$SOCK" "$T"
else
    ctl_start_guest "$SOCK" "$T" "" spin "$WORK/stop"
fi
ctl_wait_socket "$SOCK"
sleep 0.5

"$QTRACE" ctl "$SOCK" trace-event mem_access on
check_eq "mem_access on: status" 0 $?
check_eq "mem_access asked on" "mem_access : state 1" \
    "$("$QTRACE" ctl "$SOCK" info trace-events mem_access)"
sleep 0.5
"$QTRACE" ctl "$SOCK" trace-event mem_access off
check_eq "mem_access off: status" 0 $?
check_eq "mem_access asked off" "mem_access : state 0" \
    "$("$QTRACE" ctl "$SOCK" info trace-events mem_access)"
"$QTRACE" ctl "$SOCK" trace-event func_entry on 2> "$WORK/err"
check_eq "func_entry on: status" 1 $?
check_grep "func_entry: refused" \
    "func_entry cannot be switched while the guest runs" "$WORK/err"
sleep 0.5

if [ -z "${ARCH:-}" ]; then
    kill -TERM "$QEMU_PID"
    wait "$QEMU_PID"
else
    ctl_stop_guest "$WORK/stop"
    check_eq "guest exit status" 0 "$QEMU_STATUS"
fi

"$QTRACE" info "$T" > "$WORK/info" 2>&1
check_grep "trace complete" '^end: *complete' "$WORK/info"
check_eq "lost" 0 "$(info_get "$WORK/info" lost)"

# vCPU 0's records, numbered: "N TIME EVENT FIELDS...".
"$QTRACE" dump -e 'exec_tb,mem_access,event_switch' "$T" |
    awk '$1 == "0" { $1 = ""; print NR $0 }' > "$WORK/v0"
on=$(awk '$3 == "event_switch" && $9 == 1 { print $1; exit }' "$WORK/v0")
off=$(awk '$3 == "event_switch" && $9 == 0 { print $1; exit }' "$WORK/v0")
check_eq "event_switch records of vCPU 0" 2 \
    "$(awk '$3 == "event_switch"' "$WORK/v0" | wc -l)"
check_eq "both switch the same event" 1 \
    "$(awk '$3 == "event_switch" { print $7 }' "$WORK/v0" | sort -u |
       wc -l)"
if [ -z "$on" ] || [ -z "$off" ]; then
    fail "no event_switch on and off in vCPU 0's stream"
    finish
fi
awk -v on="$on" -v off="$off" '$3 == "mem_access" {
        if ($1 < on) before++; else if ($1 > off) after++; else inside++
    } END { print before + 0, inside + 0, after + 0 }' "$WORK/v0" \
    > "$WORK/counts"
read -r before inside after < "$WORK/counts"
check_eq "accesses before the on record" 0 "$before"
check_eq "accesses after the off record" 0 "$after"
if [ "$inside" -gt 0 ]; then
    pass "$inside accesses between the switch records"
else
    fail "no access between the switch records"
fi

# after_switch LINE: "TIME_OF_SWITCH TIME_OF_NEXT EVENT_OF_NEXT TB_OF_NEXT
# HIGHEST_TB_BEFORE".
after_switch() {
    awk -v at="$1" '$1 < at && $3 == "exec_tb" && $7 + 0 > max { max = $7 + 0 }
        $1 == at { t = $2 }
        $1 == at + 1 { print t, $2, $3, $7, max + 0; exit }' "$WORK/v0"
}
for s in "on $on" "off $off"; do
    set -- $s
    set -- "$1" $(after_switch "$2")
    check_eq "$1: the next record is a block" exec_tb "$4"
    check_eq "$1: the block starts at the switch" "$2" "$3"
    if [ "${5:-0}" -gt "${6:-0}" ]; then
        pass "$1: the block is a new translation (tb $5 > $6)"
    else
        fail "$1: the block's translation ${5:-?} is not new (highest before: ${6:-?})"
    fi
done
finish
