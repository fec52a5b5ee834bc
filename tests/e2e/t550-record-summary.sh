#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The line qtrace record prints on stderr at the end: the guest's
# instructions (the asm guest's count known by construction, with a block
# callback and with inline counters alone), the records (as qtrace info
# counts them reading the whole trace), the file's size (from stat) and
# the records lost; -q leaves it out. The threaded guest's total, summed
# over its five streams, against its exec_insn records: a block QEMU
# abandons and starts again (x86 atomics while other vCPUs run) counts
# its instructions at each start, so the total may exceed the executed
# instructions by a few, never fall short.
ARCH=$1
. "$(dirname "$0")/lib.sh"
use_guest asm "$ARCH"

# size_text BYTES: the size as the line writes it (powers of 1000).
size_text() {
    awk -v b="$1" 'BEGIN {
        if (b < 1000) { printf "%d B\n", b; exit }
        split("kB MB GB TB", u, " "); v = b / 1000; i = 1
        while (v >= 999.95 && i < 4) { v /= 1000; i++ }
        printf "%.1f %s\n", v, u[i] }'
}

# want_line TRACE INSNS: the expected line, records from qtrace info.
want_line() {
    records=$("$QTRACE" info "$1" | awk '$1 == "records:" { print $2 }')
    echo "qtrace record: $2 instructions, $records records," \
         "$(size_text "$(stat -c %s "$1")"), 0 lost -> $1"
}

T="$WORK/t.qtr"
insns=$(expect_get insns)
"$QTRACE" record -e exec_tb -o "$T" -- "$GUEST" > "$WORK/out" 2> "$WORK/err"
check_eq "exec_tb: exit status" "$(expect_get exit)" "$?"
check_eq "exec_tb: summary line" "$(want_line "$T" "$insns")" \
    "$(tail -1 "$WORK/err")"

"$QTRACE" record -e tb_count -o "$T" -- "$GUEST" > "$WORK/out" 2> "$WORK/err"
check_eq "tb_count alone: summary line" "$(want_line "$T" "$insns")" \
    "$(tail -1 "$WORK/err")"

"$QTRACE" record -q -e exec_tb -o "$T" -- "$GUEST" > "$WORK/out" 2> "$WORK/err"
check_eq "-q: stderr empty" 0 "$(wc -c < "$WORK/err")"

# Five vCPU streams: each one's count goes into the total.
THREADS="$GUESTS/threads-$ARCH"
if [ -x "$THREADS" ]; then
    "$QTRACE" record -e exec_insn -o "$T" -- "$THREADS" \
        > "$WORK/out" 2> "$WORK/err"
    check_eq "threads: exit status" 0 "$?"
    executed=$(info_count "$T" exec_insn)
    total=$(tail -1 "$WORK/err" | sed -n 's/^qtrace record: \([0-9]*\) instructions, .*/\1/p')
    check_eq "threads: total within [executed, executed + 0.1%]" yes \
        "$(awk -v t="$total" -v e="$executed" \
           'BEGIN { print (t != "" && t >= e && t - e <= e / 1000) ? "yes" : "no" }')"
fi
finish
