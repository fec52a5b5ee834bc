#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# System calls of the syscalls guest on ARCH, whose own calls are known by
# construction (tests/guests/syscalls.c): `qtrace dump` names each call
# and each failed return with the architecture's names, and `qtrace report
# --syscalls` counts calls and errors. The C library's start-up adds calls
# of its own (brk, set_tid_address...), which are not asserted here;
# t221 compares all of them with strace on x86_64.
ARCH=$1
. "$(dirname "$0")/lib.sh"
use_guest syscalls "$ARCH"

# The guest's calls (name:calls:errors); none of them is made by the
# C library's start-up on these four architectures.
KNOWN="getpid:7:0 getppid:3:0 getuid:2:0 uname:1:0 dup:1:0 lseek:1:0
openat:2:1 read:4:0 write:5:0 close:3:1 exit_group:1:0"

"$QTRACE" record -o "$WORK/t.qtr" -- "$GUEST" > /dev/null 2> "$WORK/err"
check_eq "exit status" 3 "$?"
"$QTRACE" dump -e 'syscall,syscall_ret' "$WORK/t.qtr" > "$WORK/dump"
check_eq "dump status" 0 "$?"
"$QTRACE" report --syscalls "$WORK/t.qtr" > "$WORK/report"
check_eq "report status" 0 "$?"
check_grep "report names the arch" "^syscalls \\($ARCH\\):" "$WORK/report"

for spec in $KNOWN; do
    name=${spec%%:*}; rest=${spec#*:}; calls=${rest%%:*}; errors=${rest#*:}
    check_eq "dump: syscall lines named $name" "$calls" \
        "$(grep -c "^[0-9]* [0-9]* syscall num .* | $name\$" "$WORK/dump")"
    check_eq "report: $name calls errors" "$calls $errors" \
        "$(awk -v n="$name" '$3 == n { print $1, $2 }' "$WORK/report")"
done
check_eq "dump: openat returns ENOENT once" 1 \
    "$(grep -c "syscall_ret .* | openat (ENOENT)\$" "$WORK/dump")"
check_eq "dump: close returns EBADF once" 1 \
    "$(grep -c "syscall_ret .* | close (EBADF)\$" "$WORK/dump")"
# exit_group never returns: one syscall_ret fewer than syscall.
check_eq "syscall_ret lines" \
    "$(($(grep -c ' syscall num ' "$WORK/dump") - 1))" \
    "$(grep -c ' syscall_ret num ' "$WORK/dump")"
check_eq "unnamed calls" 0 "$(grep -c ' | ?$' "$WORK/dump")"
total=$(awk '$3 == "total" { print $1 }' "$WORK/report")
check_eq "report total = syscall records" \
    "$(grep -c ' syscall num ' "$WORK/dump")" "$total"
finish
