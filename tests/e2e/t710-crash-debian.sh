#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# A real Debian program, /usr/bin/sleep 30 of the host's ARCH, blocked in
# its clock_nanosleep: SIGTERM to qtrace record, SIGSEGV and SIGKILL to
# QEMU each leave a trace that reads, says how it ended and holds the
# last moments: the last system call is clock_nanosleep (its number from
# the C library's headers) and the last instruction a system call
# instruction (capstone's disassembly in qtrace dump).
ARCH=$1
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/crash-lib.sh"
need_qemu "$ARCH"
SLEEP=/usr/bin/sleep
[ -x "$SLEEP" ] || skip "no $SLEEP"
ulimit -c 0
cd "$WORK" || exit 1

NR=$(printf '#include <sys/syscall.h>\nSYS_clock_nanosleep\n' |
     cc -E -P - 2> /dev/null | tail -n 1)
case $NR in
    ''|*[!0-9]*) skip "no number for clock_nanosleep from <sys/syscall.h>" ;;
esac
case $ARCH in
    x86_64) INSN=syscall ;;
    aarch64) INSN=svc ;;
    *) skip "no system call instruction known for $ARCH" ;;
esac

EVENTS='tb_trans,exec_tb,exec_insn,syscall,syscall_ret,image_map'

# start TRACE: qtrace record of sleep 30, once sleep sleeps; sets rec.
start() {
    "$QTRACE" record -e "$EVENTS" -o "$1" -- "$SLEEP" 30 \
        > /dev/null 2>&1 &
    rec=$!
    # sleep's start-up takes well under a second even traced.
    sleep 1.5
}

# check_trace WHAT TRACE END_REGEX
check_trace() {
    "$QTRACE" info "$2" > "$2.info" 2> "$2.err"
    st=$?
    case $3 in
    missing*) check_eq "$1: qtrace info status (no END chunk)" 3 "$st" ;;
    *) check_eq "$1: qtrace info status" 0 "$st" ;;
    esac
    check_grep "$1: end: $3" "^end: $3" "$2.info"
    "$QTRACE" dump -e 'syscall,exec_insn' "$2" > "$2.dump" 2> /dev/null
    check_eq "$1: last system call is clock_nanosleep ($NR)" "$NR" \
        "$(awk '$3 == "syscall" { n = $5 } END { print n }' "$2.dump")"
    check_eq "$1: last instruction" "$INSN" \
        "$(awk '$3 == "exec_insn" { i = $11 } END { print i }' "$2.dump")"
}

start term.qtr
kill -TERM "$rec"
wait_rec "$rec"
check_eq "sigterm: exit status" 143 "$?"
check_trace sigterm term.qtr 'complete \(guest signal 15, SIGTERM\)'

start segv.qtr
kill -SEGV "$(qemu_of "$rec")"
wait_rec "$rec"
check_eq "sigsegv: exit status" 139 "$?"
check_trace sigsegv segv.qtr 'complete \(guest signal 11, SIGSEGV\)'

start kill.qtr
kill -KILL "$(qemu_of "$rec")"
wait_rec "$rec"
check_eq "sigkill: exit status" 137 "$?"
check_trace sigkill kill.qtr 'missing \(killed'

finish
