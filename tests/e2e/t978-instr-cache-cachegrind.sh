#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The cache simulator example against valgrind's cachegrind with the same
# D1 geometry (32 KiB, 8 ways, 64-byte lines), on real Debian programs:
# gzip and xz compressing a file made here, natively under cachegrind and
# under qemu-ARCH (ARCH: the host's) with the example. D1 misses must
# agree within 1 %, data references (reads + writes) within 3 %: the
# same binary runs the same instructions, but QEMU 7.2 reports no access
# wider than 8 bytes (a 16- or 32-byte vector access reaches the
# simulator as 8-byte pieces, more references), and glibc picks its
# string functions by the CPU it sees, valgrind's or QEMU's. The pieces
# touch the same lines in the same order, so the misses stay.
ARCH=$1
. "$(dirname "$0")/lib.sh"
[ "$ARCH" = "$(uname -m)" ] || skip "valgrind runs programs of the host's architecture only"
need_qemu "$ARCH"
command -v valgrind > /dev/null 2>&1 ||
    skip "valgrind not installed (Debian package valgrind)"
[ -n "${INSTR_EXAMPLES:-}" ] || skip "INSTR_EXAMPLES not set"
CACHESIM="$INSTR_EXAMPLES/libqtrace-instr-cachesim.so"

# within A B PERCENT: |A - B| <= PERCENT % of B.
within() {
    d=$(($1 - $2))
    [ "$d" -lt 0 ] && d=$((-d))
    [ $((d * 100)) -le $(($2 * $3)) ]
}

# compare NAME PROGRAM ARGS...: both runs in one small environment.
compare() {
    name=$1
    shift
    prog=$(PATH=/usr/bin:/bin command -v "$1")
    [ -n "$prog" ] || { echo "SKIP $name: not installed"; return; }
    shift
    clean="env -i PATH=/usr/bin:/bin LC_ALL=C"
    $clean valgrind --tool=cachegrind --cache-sim=yes --D1=32768,8,64 \
        --cachegrind-out-file="$WORK/$name.cg" "$prog" "$@" \
        > /dev/null 2> "$WORK/$name.vg"
    check_eq "$name: status under cachegrind" 0 "$?"
    # "==PID== D   refs:   21,924,793  (15,045,235 rd + 6,879,558 wr)"
    cg_refs=$(sed -n 's/^==[0-9]*== D   refs: *\([0-9,]*\).*/\1/p' \
              "$WORK/$name.vg" | tr -d ,)
    cg_misses=$(sed -n 's/^==[0-9]*== D1  misses: *\([0-9,]*\).*/\1/p' \
                "$WORK/$name.vg" | tr -d ,)
    $clean "qemu-$ARCH" -plugin "$QTRACE_PLUGIN,out=$WORK/t.qtr,events=tb_count,instr=$CACHESIM,instr-arg=out=$WORK/$name.sim" \
        "$prog" "$@" > /dev/null 2> "$WORK/$name.err"
    check_eq "$name: status under QEMU" 0 "$?"
    refs=$(awk '$1 == "total" { print $3 }' "$WORK/$name.sim")
    misses=$(awk '$1 == "total" { print $9 }' "$WORK/$name.sim")
    echo "$name: cachegrind refs ${cg_refs:-?} misses ${cg_misses:-?}," \
         "qtrace refs ${refs:-?} misses ${misses:-?}"
    if [ -n "$cg_misses" ] && [ -n "$misses" ] &&
       within "$misses" "$cg_misses" 1; then
        pass "$name: D1 misses within 1 % of cachegrind's"
    else
        fail "$name: D1 misses ${misses:-none}, cachegrind ${cg_misses:-none}"
    fi
    if [ -n "$cg_refs" ] && [ -n "$refs" ] && within "$refs" "$cg_refs" 3
    then
        pass "$name: D1 references within 3 % of cachegrind's"
    else
        fail "$name: D1 references ${refs:-none}, cachegrind ${cg_refs:-none}"
    fi
}

seq 1 30000 > "$WORK/data.txt"
compare gzip gzip -c "$WORK/data.txt"
compare xz xz -1 -c "$WORK/data.txt"
finish
