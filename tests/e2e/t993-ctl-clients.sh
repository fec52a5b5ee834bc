#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Bad peers of the control socket, on a running x86_64 guest: garbage,
# a 1 MB line, a client that never reads its replies, one that says
# nothing, 20 clients at once. Each gets one clear reply (or is dropped
# when it lets replies pile up); the guest keeps running and its trace
# ends complete with nothing lost. Also ctl= on a path that is not a
# socket (refused, the file untouched) and on a stale socket (replaced).
# Usage: t993-ctl-clients.sh ARCH.
ARCH=${1:?usage: t993-ctl-clients.sh ARCH}
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=tests/e2e/ctl-lib.sh
. "$(dirname "$0")/ctl-lib.sh"

use_guest ctl-wait "$ARCH"
command -v python3 > /dev/null || skip "python3 not installed"
PEERS="python3 $(dirname "$0")/ctl-peers.py"
SOCK=$WORK/c.sock
T=$WORK/t.qtr

# ctl= on a regular file: refused, file untouched, no trace.
echo keep > "$WORK/file"
"qemu-$ARCH" -plugin "$QTRACE_PLUGIN,ctl=$WORK/file,out=$WORK/r.qtr" \
    "$GUEST" spin "$WORK/none" > /dev/null 2> "$WORK/refused.err"
check_eq "ctl= on a regular file: QEMU fails" 1 $?
check_grep "ctl= on a regular file: reason" \
    "^qtrace: ctl=$WORK/file: exists and is not a socket$" \
    "$WORK/refused.err"
check_eq "the file is untouched" keep "$(cat "$WORK/file")"
[ ! -e "$WORK/r.qtr" ] && pass "no trace file left" || fail "trace file left"

# A stale socket (its process gone) is replaced.
python3 -c "import socket,sys; s=socket.socket(socket.AF_UNIX); s.bind(sys.argv[1])" \
    "$SOCK"
[ -S "$SOCK" ] || fail "could not make a stale socket"
ctl_start_guest "$SOCK" "$T" "" spin "$WORK/stop"
i=0
until "$QTRACE" ctl "$SOCK" help > /dev/null 2>&1 || [ $i -ge 200 ]; do
    sleep 0.1
    i=$((i + 1))
done
"$QTRACE" ctl "$SOCK" help > /dev/null 2>&1
check_eq "stale socket replaced: help works" 0 $?

check_eq "garbage: one error, then help" "error: empty command (try 'help')
ok" "$($PEERS "$SOCK" garbage)"
check_eq "1 MB line: one error, then help" \
    "error: line longer than 4096 bytes
ok" "$($PEERS "$SOCK" long-line)"
check_eq "never reads: dropped" "closed after some replies" \
    "$($PEERS "$SOCK" no-read)"
$PEERS "$SOCK" silent > "$WORK/silent" &
silent=$!
sleep 0.3       # connected before the 20 others: it holds one of 16 slots
$PEERS "$SOCK" many > "$WORK/many"
wait "$silent"
check_eq "silent client: answered after its pause" ok "$(cat "$WORK/silent")"
check_eq "20 clients: 20 replies" 20 "$(wc -l < "$WORK/many")"
n_ok=$(grep -cx ok "$WORK/many")
n_full=$(grep -cx 'error: too many clients (at most 16 at once)' "$WORK/many")
check_eq "20 clients: ok or too many" 20 $((n_ok + n_full))
if [ "$n_ok" -ge 15 ] && [ "$n_full" -ge 4 ]; then
    pass "20 clients: $n_ok served, $n_full refused"
else
    fail "20 clients: $n_ok served, $n_full refused"
fi

"$QTRACE" ctl "$SOCK" stats > "$WORK/s1"
check_eq "still serving after the bad peers" 0 $?
sleep 0.3
"$QTRACE" ctl "$SOCK" stats > "$WORK/s2"
if [ "$(stat_get "$WORK/s2" insns)" -gt "$(stat_get "$WORK/s1" insns)" ]; then
    pass "the guest keeps running"
else
    fail "the guest made no progress"
fi
ctl_stop_guest "$WORK/stop"
check_eq "guest exit status" 0 "$QEMU_STATUS"
"$QTRACE" info "$T" > "$WORK/info" 2>&1
check_eq "qtrace info status" 0 $?
check_eq "end" "complete (exit 0)" "$(info_get "$WORK/info" end)"
check_eq "lost" 0 "$(info_get "$WORK/info" lost)"
finish
