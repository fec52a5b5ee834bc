#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The control socket on a running user-mode guest: the socket's mode and
# PID link, `info trace-events` against the trace's own META events=,
# stats that grow and stay within the final END, a flush that `qtrace
# info` reads while the guest runs, the error replies, and the socket
# removed at exit. Usage: t990-ctl-basic.sh ARCH.
ARCH=${1:?usage: t990-ctl-basic.sh ARCH}
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=tests/e2e/ctl-lib.sh
. "$(dirname "$0")/ctl-lib.sh"

use_guest ctl-wait "$ARCH"
SOCK=$WORK/c.sock
T=$WORK/t.qtr
STOP=$WORK/stop

ctl_start_guest "$SOCK" "$T" ",events=exec_tb;sys*;vcpu_*" spin "$STOP"
ctl_wait_socket "$SOCK"

check_eq "socket mode" "600" "$(stat -c %a "$SOCK")"
if [ -n "${XDG_RUNTIME_DIR:-}" ]; then
    LINK=$XDG_RUNTIME_DIR/qtrace/$QEMU_PID
else
    LINK=/tmp/qtrace-$(id -u)/$QEMU_PID
fi
check_eq "PID link target" "$SOCK" "$(readlink "$LINK")"

# info trace-events: QEMU's "NAME : state N" for every catalog event.
"$QTRACE" ctl "$SOCK" info trace-events > "$WORK/events" 2> "$WORK/err"
check_eq "info trace-events status" 0 $?
check_eq "events listed = qtrace list" \
    "$("$QTRACE" list -b | awk 'NR > 1 { n++ } END { print n }')" \
    "$(wc -l < "$WORK/events")"
check_grep "QEMU's format" '^exec_tb : state 1$' "$WORK/events"
"$QTRACE" ctl "$SOCK" info trace-events 'sys*' > "$WORK/sys" 2>&1
check_eq "info trace-events sys*" "syscall : state 1
syscall_ret : state 1" "$(cat "$WORK/sys")"

# stats: grows while the guest runs.
"$QTRACE" ctl "$QEMU_PID" stats > "$WORK/s1" 2> "$WORK/err"
check_eq "stats by PID status" 0 $?
sleep 0.5
"$QTRACE" ctl "$SOCK" stats > "$WORK/s2"
r1=$(stat_get "$WORK/s1" records)
r2=$(stat_get "$WORK/s2" records)
i1=$(stat_get "$WORK/s1" insns)
i2=$(stat_get "$WORK/s2" insns)
if [ "${r1:-0}" -gt 0 ] && [ "${r2:-0}" -gt "$r1" ]; then
    pass "stats records grow: $r1 < $r2"
else
    fail "stats records: $r1 then $r2"
fi
if [ "${i1:-0}" -gt 0 ] && [ "${i2:-0}" -gt "$i1" ]; then
    pass "stats insns grow: $i1 < $i2"
else
    fail "stats insns: $i1 then $i2"
fi
check_eq "stats lost" 0 "$(stat_get "$WORK/s2" lost)"
check_eq "stats writing" on "$(stat_get "$WORK/s2" writing)"

# flush: the growing file reads up to the flush, with no END yet.
"$QTRACE" ctl "$SOCK" trace-file flush > "$WORK/flush"
check_eq "trace-file flush status" 0 $?
"$QTRACE" info "$T" > "$WORK/info-live" 2> "$WORK/err"
check_eq "qtrace info while running: status 3 (no END)" 3 $?
live_tb=$(awk '$1 == "exec_tb" { print $2 }' "$WORK/info-live")
flushed=$(stat_get "$WORK/flush" records)
if [ "${live_tb:-0}" -gt 0 ] && [ "$(info_get "$WORK/info-live" records)" \
        -ge "${flushed:-1}" ]; then
    pass "flushed file holds $live_tb blocks, >= the $flushed records flushed"
else
    fail "flushed file: exec_tb ${live_tb:-none}, records" \
         "$(info_get "$WORK/info-live" records) < $flushed"
fi

# Errors: one line each, status 1; usage and connection errors 2.
"$QTRACE" ctl "$SOCK" stast > /dev/null 2> "$WORK/err"
check_eq "unknown command status" 1 $?
check_eq "unknown command message" \
    "qtrace ctl: unknown command 'stast' (did you mean 'stats'?)" \
    "$(cat "$WORK/err")"
"$QTRACE" ctl "$SOCK" trace-event 'nomatch*' on 2> "$WORK/err"
check_eq "pattern matching nothing status" 1 $?
check_eq "pattern matching nothing" "qtrace ctl: nomatch*: no event matches" \
    "$(cat "$WORK/err")"
"$QTRACE" ctl "$SOCK" trace-event func_entry on 2> "$WORK/err"
check_eq "func_entry on status" 1 $?
check_grep "func_entry cannot be switched" \
    "func_entry cannot be switched while the guest runs" "$WORK/err"
"$QTRACE" ctl "$SOCK" instr-load /nonexistent.so 2> "$WORK/err"
check_eq "instr-load status" 1 $?
check_grep "instr-load of a missing file: refused" \
    "^qtrace ctl: instr-load: instr=/nonexistent.so: .*No such file" \
    "$WORK/err"
"$QTRACE" ctl "$SOCK" 2> /dev/null
check_eq "no command: usage status" 2 $?
"$QTRACE" ctl "$WORK/none.sock" help 2> "$WORK/err"
check_eq "no such socket status" 2 $?
check_eq "no such socket message" \
    "qtrace ctl: $WORK/none.sock: No such file or directory" \
    "$(cat "$WORK/err")"

# trace-event on a run-time event: syscall off, then counted no more.
"$QTRACE" ctl "$SOCK" trace-event syscall off
check_eq "trace-event syscall off status" 0 $?
check_eq "syscall state after off" "syscall : state 0" \
    "$("$QTRACE" ctl "$SOCK" info trace-events syscall)"

ctl_stop_guest "$STOP"
check_eq "guest exit status" 0 "$QEMU_STATUS"
[ ! -e "$SOCK" ] && pass "socket removed at exit" || fail "socket left"
[ ! -e "$LINK" ] && [ ! -L "$LINK" ] && pass "PID link removed at exit" ||
    fail "PID link left"

"$QTRACE" info "$T" > "$WORK/info" 2>&1
check_eq "final trace: qtrace info status" 0 $?
check_eq "final trace: end" "complete (exit 0)" "$(info_get "$WORK/info" end)"
check_eq "final trace: lost" 0 "$(info_get "$WORK/info" lost)"
end_records=$(info_get "$WORK/info" records)
if [ "$r2" -le "$end_records" ] && [ "$live_tb" -le "$end_records" ]; then
    pass "stats and flush counts within END's records=$end_records"
else
    fail "stats $r2 or flush $live_tb over END's records=$end_records"
fi
# Every event META says was recorded is "state 1" in the reply, and no
# other (trace_switch is written whatever events= says).
meta=$(info_get "$WORK/info" events | tr ',' '\n' | sort)
on=$(awk '$3 == "state" && $4 == 1 && $1 != "trace_switch" { print $1 }' \
    "$WORK/events" | sort)
check_eq "states = META events" "$meta" "$on"
# syscall off took effect: fewer syscall than syscall_ret records.
n_sys=$(awk '$1 == "syscall" { print $2 }' "$WORK/info")
n_ret=$(awk '$1 == "syscall_ret" { print $2 }' "$WORK/info")
if [ "${n_sys:-0}" -lt "${n_ret:-0}" ]; then
    pass "syscall records stopped: $n_sys < $n_ret syscall_ret"
else
    fail "syscall off: $n_sys syscall, $n_ret syscall_ret"
fi

# qtrace record --ctl: the socket beside the output, said on stderr.
"$QTRACE" record -q --ctl -o "$WORK/r.qtr" -- "$GUEST" spin "$STOP.rec" \
    2> "$WORK/rec.err" &
REC_PID=$!
QEMU_PID=$REC_PID
ctl_wait_socket "$WORK/r.qtr.ctl"
check_eq "record --ctl: where the socket is" \
    "qtrace record: control socket $WORK/r.qtr.ctl (qtrace ctl $WORK/r.qtr.ctl help)" \
    "$(head -1 "$WORK/rec.err")"
check_eq "record --ctl: the socket answers" "Trace file \"$WORK/r.qtr\" on." \
    "$("$QTRACE" ctl "$WORK/r.qtr.ctl" trace-file)"
touch "$STOP.rec"
wait "$REC_PID"
check_eq "record --ctl: status" 0 $?

# A guest killed by a signal: the socket and the link go too.
ctl_start_guest "$SOCK" "$WORK/k.qtr" "" spin "$STOP.never"
ctl_wait_socket "$SOCK"
"$QTRACE" ctl "$SOCK" help > /dev/null
kill -TERM "$QEMU_PID"
wait "$QEMU_PID"
check_eq "killed guest: status" 143 $?
[ ! -e "$SOCK" ] && pass "killed guest: socket removed" ||
    fail "killed guest: socket left"
[ ! -L "${LINK%/*}/$QEMU_PID" ] && pass "killed guest: PID link removed" ||
    fail "killed guest: PID link left"
check_eq "killed guest: trace end" "complete (guest signal 15, SIGTERM)" \
    "$("$QTRACE" info "$WORK/k.qtr" | sed -n 's/^end: //p')"
finish
