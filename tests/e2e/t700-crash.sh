#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# A guest that dies leaves a trace that reads to its end and holds its last
# moments. With ARCH's crash guest (tests/guests/crash.c): a NULL store
# after a marker function (the faulting block, in crash_store, is the last
# exec_tb), abort() after the marker, a spinning guest whose QEMU gets
# SIGKILL (nothing can run in QEMU then: the flush interval bounds the
# loss) and one whose qtrace record gets SIGTERM or SIGINT (QEMU ends the
# trace). Function addresses come from nm, not from qtrace.
ARCH=$1
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/crash-lib.sh"
use_guest crash "$ARCH"
# QEMU writes the guest's core file into the current directory otherwise.
ulimit -c 0
cd "$WORK" || exit 1

NM=$(command -v "$ARCH-linux-gnu-nm" || command -v nm)
[ -n "$NM" ] || skip "no nm (Debian package binutils)"

# in_func FUNC PC: PC lies in FUNC, by the guest's symbol table (an arm
# Thumb function's symbol has its low bit set).
"$NM" -S "$GUEST" > syms 2> /dev/null
in_func() {
    range=$(awk -v f="$1" '$4 == f { print $1, $2 }' syms)
    [ -n "$range" ] && [ -n "$2" ] || return 1
    # shellcheck disable=SC2086
    set -- $range "$2"
    [ $(($3)) -ge $((0x$1 & ~1)) ] && [ $(($3)) -lt $((0x$1 + 0x$2)) ]
}

# any_in_func FUNC FILE: one of the pcs in FILE (one a line) is in FUNC.
any_in_func() {
    while read -r pc; do
        in_func "$1" "$pc" && return 0
    done < "$2"
    return 1
}

# last_tb TRACE: the pc of the last exec_tb record.
last_tb() {
    "$QTRACE" dump -e exec_tb "$1" 2> /dev/null |
        awk '$3 == "exec_tb" { pc = $5 } END { print pc }'
}

# check_last_tb WHAT TRACE FUNC: the last block ran in FUNC.
check_last_tb() {
    pc=$(last_tb "$2")
    if in_func "$3" "$pc"; then
        pass "$1: last exec_tb $pc is in $3"
    else
        fail "$1: last exec_tb '$pc' is not in $3"
    fi
}

# check_end WHAT TRACE REGEX: qtrace info reads it and says how it ended
# (status 3 for a trace without END).
check_end() {
    "$QTRACE" info "$2" > "$2.info" 2> "$2.err"
    st=$?
    case $3 in
    missing*) check_eq "$1: qtrace info status (no END chunk)" 3 "$st" ;;
    *) check_eq "$1: qtrace info status" 0 "$st" ;;
    esac
    check_grep "$1: $3" "^end: $3" "$2.info"
    check_grep "$1: has records" "^total: [1-9]" "$2.info"
}

# wait_for_data TRACE: the guest spins, and its records reach the file
# every flush= interval (200 ms), however little they weigh packed.
wait_for_data() {
    i=0
    while [ ! -s "$1" ] && [ $i -lt 50 ]; do
        sleep 0.1
        i=$((i + 1))
    done
    sleep 0.6
}

# 1. A NULL store: SIGSEGV, and the faulting block is in the trace.
"$QTRACE" record -o segv.qtr -- "$GUEST" segv > /dev/null 2>&1
check_eq "segv: exit status" 139 "$?"
check_end segv segv.qtr 'complete \(guest signal 11, SIGSEGV\)'
check_last_tb segv segv.qtr crash_store

# 2. abort(): SIGABRT; the marker ran just before it.
"$QTRACE" record -o abort.qtr -- "$GUEST" abort > /dev/null 2>&1
check_eq "abort: exit status" 134 "$?"
check_end abort abort.qtr 'complete \(guest signal 6, SIGABRT\)'
"$QTRACE" dump -e exec_tb abort.qtr 2> /dev/null | tail -n 200 |
    awk '{ print $5 }' > abort.pcs
if any_in_func crash_marker abort.pcs; then
    pass "abort: crash_marker is among the last blocks"
else
    fail "abort: crash_marker is not among the last 200 blocks"
fi

# 3. SIGKILL to QEMU: no END, but the chunks written up to then read.
"$QTRACE" record -o kill.qtr -- "$GUEST" spin > /dev/null 2>&1 &
rec=$!
wait_for_data kill.qtr
qemu=$(qemu_of "$rec")
[ -n "$qemu" ] && kill -KILL "$qemu"
wait_rec "$rec"
check_eq "sigkill: exit status" 137 "$?"
check_end sigkill kill.qtr 'missing \(killed'
check_last_tb sigkill kill.qtr crash_spin

# 4. SIGTERM, then SIGINT, to qtrace record: QEMU ends the trace.
for sig in TERM INT; do
    # A background job's SIGINT is ignored unless restored.
    env --default-signal=INT "$QTRACE" record -o "$sig.qtr" -- \
        "$GUEST" spin > /dev/null 2>&1 &
    rec=$!
    wait_for_data "$sig.qtr"
    kill -"$sig" "$rec"
    wait_rec "$rec"
    st=$?
    [ "$sig" = TERM ] && num=15
    [ "$sig" = INT ] && num=2
    check_eq "sig$sig: exit status" $((128 + num)) "$st"
    check_end "sig$sig" "$sig.qtr" \
        "complete \\(guest signal $num, SIG$sig\\)"
    check_last_tb "sig$sig" "$sig.qtr" crash_spin
done

finish
