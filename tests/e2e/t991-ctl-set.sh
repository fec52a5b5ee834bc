#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# trace-file set: the deterministic guest (ctl-wait fifo) recorded once
# into one file, and once switched to a second file while it waits on
# its fifo. Both files must be complete traces on their own, and their
# blocks, accesses and system calls, one after the other, must be the
# single run's (times included: the second file goes on counting); the
# second file has the program's image_map records too, made before the
# switch. A set to a path that cannot be written fails and the current
# file goes on.
# Usage: t991-ctl-set.sh ARCH.
ARCH=${1:?usage: t991-ctl-set.sh ARCH}
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=tests/e2e/ctl-lib.sh
. "$(dirname "$0")/ctl-lib.sh"

use_guest ctl-wait "$ARCH"
EVENTS="exec_tb;mem_access;syscall;syscall_ret;image_map"
DUMP_EVENTS="exec_tb,mem_access,syscall,syscall_ret"
FIFO=$WORK/fifo
mkfifo "$FIFO" || skip "mkfifo failed"

# run_once TAG [SET_TO]: the guest with ctl=; once it waits on the fifo,
# optionally trace-file set SET_TO (after a refused set), then release it.
run_once() {
    ctl_start_guest "$WORK/$1.sock" "$WORK/$1.qtr" ",events=$EVENTS" \
        fifo "$FIFO"
    ctl_wait_socket "$WORK/$1.sock"
    ctl_wait_file "$WORK/guest.out" ready
    if [ -n "${2:-}" ]; then
        "$QTRACE" ctl "$WORK/$1.sock" trace-file set \
            "$WORK/no/such/dir/x.qtr" 2> "$WORK/set-bad.err"
        check_eq "set to an unwritable path: status" 1 $?
        check_grep "set to an unwritable path: reason" \
            "no/such/dir/x.qtr: No such file or directory" "$WORK/set-bad.err"
        check_eq "current file goes on" "Trace file \"$WORK/$1.qtr\" on." \
            "$("$QTRACE" ctl "$WORK/$1.sock" trace-file)"
        # Relative: qtrace ctl makes it absolute from its own directory.
        (cd "${2%/*}" && "$QTRACE" ctl "$WORK/$1.sock" trace-file set \
            "${2##*/}") > "$WORK/set.out"
        check_eq "trace-file set status" 0 $?
        check_eq "trace-file set reply" "Trace file \"$2\" on." \
            "$(cat "$WORK/set.out")"
        check_eq "trace-file after set" "Trace file \"$2\" on." \
            "$("$QTRACE" ctl "$WORK/$1.sock" trace-file)"
    fi
    echo go > "$FIFO"
    wait "$QEMU_PID"
    check_eq "$1: guest exit status" 0 $?
}

# events_of TRACE: the blocks, accesses and system calls, one line each.
events_of() {
    "$QTRACE" dump -e "$DUMP_EVENTS" "$1" | cut -d' ' -f1-4
}

run_once one
run_once two "$WORK/second.qtr"

for f in one.qtr two.qtr second.qtr; do
    "$QTRACE" info "$WORK/$f" > "$WORK/$f.info" 2>&1
    check_eq "$f: qtrace info status" 0 $?
    check_grep "$f: END present" "^end: complete" "$WORK/$f.info"
    check_eq "$f: lost" 0 "$(info_get "$WORK/$f.info" lost)"
done
# END is text at the file's end (docs/format.md).
tail -c 1024 "$WORK/two.qtr" | tr -c '[:print:]\n' '\n' > "$WORK/two.end"
check_grep "first part's END says why it ended" '^exit=file-switch$' \
    "$WORK/two.end"

# end_key TRACE KEY: KEY=VALUE of the END chunk, text at the file's end.
end_key() {
    tail -c 1024 "$1" | tr -c '[:print:]\n' '\n' | sed -n "s/^$2=//p"
}
i1=$(end_key "$WORK/two.qtr" insns)
i2=$(end_key "$WORK/second.qtr" insns)
check_eq "END insns: both parts = one run" "$(end_key "$WORK/one.qtr" insns)" \
    $((${i1:-0} + ${i2:-0}))
if [ "${i1:-0}" -gt 0 ] && [ "${i2:-0}" -gt 0 ]; then
    pass "END insns of each part: $i1 + $i2"
else
    fail "END insns of the parts: '$i1', '$i2'"
fi

events_of "$WORK/one.qtr" > "$WORK/one.ev"
{ events_of "$WORK/two.qtr"; events_of "$WORK/second.qtr"; } > "$WORK/two.ev"
n1=$(grep -c ' exec_tb ' "$WORK/one.ev")
n2=$(grep -c ' exec_tb ' "$WORK/two.ev")
check_eq "exec_tb: both parts = one run" "$n1" "$n2"
check_eq "syscalls: both parts = one run" \
    "$(grep -c ' syscall ' "$WORK/one.ev")" \
    "$(grep -c ' syscall ' "$WORK/two.ev")"
# By construction: 2 * 50 getppid in all, some in each part.
getppid=$("$QTRACE" report --syscalls "$WORK/second.qtr" 2> /dev/null |
    awk '$3 == "getppid" { print $1 }')
check_eq "second part: the 50 getppid after the wait" 50 "${getppid:-0}"
if cmp -s "$WORK/one.ev" "$WORK/two.ev"; then
    pass "dumps (vcpu, time, event, pc): both parts = one run"
else
    fail "dumps differ:"
    diff "$WORK/one.ev" "$WORK/two.ev" | head -5 | sed 's/^/    /'
fi
"$QTRACE" dump -e image_map "$WORK/two.qtr" > "$WORK/maps.first"
"$QTRACE" dump -e image_map "$WORK/second.qtr" > "$WORK/maps.second"
check_grep "first part: the program's image_map" " image_map .*ctl-wait-$ARCH\$" \
    "$WORK/maps.first"
check_eq "second part: the same image_map records" \
    "$(cat "$WORK/maps.first")" "$(cat "$WORK/maps.second")"
finish
