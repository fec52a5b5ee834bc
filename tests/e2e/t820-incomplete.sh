#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# A trace without its END chunk is named as one by every command that
# reads it: one warning line saying how far the trace goes, status 3
# (docs/cli.md, Exit status). With ARCH's calls guest, cut at the end of
# a DATA chunk and inside one, and ARCH's crash guest whose QEMU gets
# SIGKILL. Chunk boundaries come from a walk over the chunk headers
# written here from docs/format.md, not from the reader.
ARCH=$1
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/crash-lib.sh"
use_guest calls "$ARCH"
CALLS=$GUEST
use_guest crash "$ARCH"
CRASH=$GUEST
ulimit -c 0
cd "$WORK" || exit 1
EVENTS='vcpu_*,tb_trans,exec_tb,func_*,syscall*'

# chunks TRACE: "offset kind length seq" per whole chunk, in file order
# (file header: magic[8] version size; chunk header: magic kind flags vcpu
# stream len crc seq, little-endian, 32 bytes).
chunks() {
    python3 -c 'import struct, sys
d = open(sys.argv[1], "rb").read()
off = struct.unpack_from("<I", d, 12)[0]
while off + 32 <= len(d):
    _, kind, _, _, _, n, _, seq = struct.unpack_from("<IHHIIIIQ", d, off)
    if off + 32 + n > len(d):
        break
    print(off, kind, n, seq)
    off += 32 + n' "$1"
}

# run CMD TRACE OUT: one reading command (CMD as in CMDS) on TRACE;
# OUT.st gets its status, OUT.err its standard error.
CMDS='dump info report report-syscalls report-functions report-folded
      replay convert-etrace convert-uftrace flamegraph'
run() {
    case $1 in
    report-*) "$QTRACE" report "--${1#report-}" "$2" ;;
    flamegraph) rm -f "$3.svg"
                "$QTRACE" flamegraph -o "$3.svg" "$2" ;;
    convert-*) rm -rf "$3.conv"
               "$QTRACE" convert --to "${1#convert-}" "$2" "$3.conv" ;;
    *) "$QTRACE" "$1" "$2" ;;
    esac > "$3.out" 2> "$3.err"
    echo $? > "$3.st"
}

# check_incomplete WHAT TRACE SEQ OFFSET: every command reads TRACE,
# says in one line that it lacks END, with as many records as dump
# printed lines, up to chunk SEQ ending at OFFSET, and exits 3.
check_incomplete() {
    run dump "$2" "$1.dump"
    for c in $CMDS; do
        [ "$c" = dump ] || run "$c" "$2" "$1.$c"
        check_eq "$1: $c status" 3 "$(cat "$1.$c.st")"
        check_eq "$1: $c warning" "qtrace ${c%%-*}: $2: no END chunk, \
the trace is incomplete (the recording did not finish): \
$(wc -l < "$1.dump.out") records up to chunk $3 ending at offset \
0x$(printf '%x' "$4")" "$(cat "$1.$c.err")"
    done
}

# wait_for_data TRACE: a first flush (every 200 ms) has reached the file.
wait_for_data() {
    i=0
    while [ ! -s "$1" ] && [ $i -lt 50 ]; do
        sleep 0.1
        i=$((i + 1))
    done
    sleep 0.6
}

# 1. The whole trace: every command ends 0, silently.
"$QTRACE" record -e "$EVENTS" -o good.qtr -- "$CALLS" > /dev/null 2>&1
check_eq "record status" 0 "$?"
for c in $CMDS; do
    run "$c" good.qtr "good.$c"
    check_eq "good: $c status" 0 "$(cat "good.$c.st")"
    check_eq "good: $c stderr" "" "$(cat "good.$c.err")"
done

# 2. A copy cut after the middle DATA chunk (kind 2).
chunks good.qtr > good.chunks
set -- $(awk '$2 == 2' good.chunks | awk '{ a[NR] = $0 }
    END { print a[int((NR + 1) / 2)] }')
[ $# -eq 4 ] || fail "no DATA chunk in good.qtr"
cut=$(($1 + 32 + $3))
head -c "$cut" good.qtr > cut.qtr
check_incomplete cut cut.qtr "$4" "$cut"

# 3. A copy cut inside the next chunk: a damaged trace, status 1, named.
next_off=$cut
next_seq=$(awk -v o="$next_off" '$1 == o { print $4 }' good.chunks)
head -c $((cut + 40)) good.qtr > mid.qtr
for c in $CMDS; do
    run "$c" mid.qtr "mid.$c"
    check_eq "mid: $c status" 1 "$(cat "mid.$c.st")"
    check_grep "mid: $c names the cut chunk" \
        "^qtrace ${c%%-*}: mid\\.qtr: chunk $next_seq at offset 0x$(printf '%x' "$next_off"): truncated" \
        "mid.$c.err"
done

# 4. QEMU killed: the file stops after its last whole chunk.
# DATA chunks reach the file every flush= interval.
"$QTRACE" record -e "$EVENTS" -o kill.qtr -- "$CRASH" spin \
    > /dev/null 2>&1 &
rec=$!
wait_for_data kill.qtr
qemu=$(qemu_of "$rec")
[ -n "$qemu" ] && kill -KILL "$qemu"
wait_rec "$rec"
check_eq "sigkill: record status" 137 "$?"
chunks kill.qtr > kill.chunks
check_grep "sigkill: DATA chunks reached the file" '^[0-9]+ 2 ' kill.chunks
set -- $(tail -n 1 kill.chunks)
check_eq "sigkill: the file ends with a whole chunk" "$(wc -c < kill.qtr)" \
    $(($1 + 32 + $3))
check_incomplete kill kill.qtr "$4" "$(wc -c < kill.qtr)"

finish
