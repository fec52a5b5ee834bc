# SPDX-License-Identifier: GPL-2.0-or-later
# Helpers of the flight recorder tests (t998-ring-*), sourced after
# lib.sh: the records of a trace as dump lines, a ring's records against
# the tail of a full trace of the same run, and END's keys.

# records_of TRACE EVENTS: the vCPU records of EVENTS, one dump line each
# (the restart records a ring puts at its chunks' starts left out).
records_of() {
    "$QTRACE" dump -e "$2" "$1"
}

# check_tail WHAT RING FULL: per vCPU, RING's records are the last ones
# of FULL's (dump lines: vCPU, time, event, fields), and there are some.
check_tail() {
    for v in $(cut -d' ' -f1 "$2" | sort -u); do
        awk -v v="$v" '$1 == v' "$2" > "$2.$v"
        awk -v v="$v" '$1 == v' "$3" > "$3.$v"
        n=$(wc -l < "$2.$v")
        if [ "$n" -gt 0 ] && tail -n "$n" "$3.$v" | cmp -s - "$2.$v"; then
            pass "$1: vCPU $v: the ring's $n records are the full trace's last"
        else
            fail "$1: vCPU $v: the ring's $n records are not the last:"
            tail -n "$n" "$3.$v" | diff - "$2.$v" | head -5 | sed 's/^/    /'
        fi
    done
    [ -s "$2" ] || fail "$1: the ring holds no record"
}

# end_key TRACE KEY: KEY's value in the END chunk (text at the file's end).
end_key() {
    tail -c 1024 "$1" | tr -c '[:print:]\n' '\n' | sed -n "s/^$2=//p"
}

# check_reads WHAT TRACE: qtrace info reads all of TRACE, END included.
check_reads() {
    "$QTRACE" info "$2" > "$2.info" 2> "$2.err"
    check_eq "$1: qtrace info status" 0 $?
    check_grep "$1: END present" "^end: complete" "$2.info"
    check_eq "$1: lost" 0 "$(sed -n 's/^lost: //p' "$2.info")"
}
