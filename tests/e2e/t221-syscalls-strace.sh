#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# `qtrace report --syscalls` of the x86_64 syscalls guest under QEMU
# against `strace -c -f` of the same program run natively (an x86_64
# host). Compared: the calls of every system call both list, and the
# errors of the guest's own calls (openat and close fail once each).
# Not compared, because QEMU changes them: execve (strace sees the
# program's start, QEMU's guest never calls it); exit_group (strace -c
# leaves it out, it never returns); the errors of calls QEMU does not
# implement for the guest (rseq and set_robust_list fail with ENOSYS
# under QEMU 7.2, succeed natively).
. "$(dirname "$0")/lib.sh"
use_guest syscalls x86_64
command -v strace > /dev/null 2>&1 || skip "strace not installed"
[ "$(uname -m)" = x86_64 ] || skip "not an x86_64 host"

strace -c -f -o "$WORK/strace" "$GUEST" > /dev/null 2> "$WORK/strace.err"
st=$?
[ "$st" -eq 3 ] ||
    skip "strace cannot run here (status $st: $(head -1 "$WORK/strace.err"))"
"$QTRACE" record -o "$WORK/t.qtr" -- "$GUEST" > /dev/null
check_eq "exit status under QEMU" 3 "$?"
"$QTRACE" report --syscalls "$WORK/t.qtr" > "$WORK/report"

# "name calls errors", sorted, from each side.
awk '$NF != "total" && $NF != "syscall" && $1 ~ /^[0-9.]+$/ {
         print $NF, $4, (NF == 6 ? $5 : 0) }' "$WORK/strace" |
    sort > "$WORK/native"
awk 'NR > 2 && $3 != "total" && $1 ~ /^[0-9]+$/ { print $3, $1, $2 }' \
    "$WORK/report" | sort > "$WORK/qemu"
join "$WORK/native" "$WORK/qemu" > "$WORK/both"
n=$(wc -l < "$WORK/both")
echo "    $n system calls seen by both; strace only:" \
    "$(join -v1 "$WORK/native" "$WORK/qemu" | cut -d' ' -f1 | tr '\n' ' ')"
echo "    qtrace only:" \
    "$(join -v2 "$WORK/native" "$WORK/qemu" | cut -d' ' -f1 | tr '\n' ' ')"
if [ "$n" -ge 11 ]; then
    pass "$n calls in common"
else
    fail "only $n calls in common"
fi
while read -r name ncalls nerr qcalls qerr; do
    check_eq "$name calls (strace, qtrace)" "$ncalls" "$qcalls"
    case $name in
        openat|close)
            check_eq "$name errors (strace, qtrace)" "$nerr" "$qerr" ;;
    esac
done < "$WORK/both"
for name in getpid getppid getuid uname dup lseek openat read write close; do
    grep -q "^$name " "$WORK/both" || fail "$name: not seen by both"
done
finish
