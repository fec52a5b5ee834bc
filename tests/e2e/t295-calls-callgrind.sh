#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Calls and inclusive instruction counts of real Debian programs, from
# `qtrace report --functions` under qemu-ARCH, against callgrind's of the
# same programs run natively (`callgrind_annotate --inclusive=yes` and
# callgrind's call counts): gzip compressing a file made here, ls on a
# directory made here, and python3 running one line. Functions of the
# program and of libc.so.6 are matched by their address in their file
# (callgrind-compare.py); docs/calls.md ("Comparing with callgrind") gives
# the rules that leave some out or compare only their calls. gzip and ls
# must agree on every function compared; python3, whose dictionaries
# hash object addresses (which differ between the two runs), on 90%.
ARCH=$1
. "$(dirname "$0")/lib.sh"
[ "$ARCH" = "$(uname -m)" ] || skip "valgrind runs programs of the host's architecture only"
command -v "qemu-$ARCH" > /dev/null 2>&1 ||
    skip "qemu-$ARCH not installed (Debian package qemu-user)"
for tool in valgrind callgrind_annotate python3 readelf nm objdump; do
    command -v "$tool" > /dev/null 2>&1 ||
        skip "$tool not installed (Debian packages valgrind, python3, binutils)"
done
LIBC=$(readlink -f "/usr/lib/$ARCH-linux-gnu/libc.so.6")
[ -f "$LIBC" ] || skip "no $ARCH libc.so.6 in /usr/lib/$ARCH-linux-gnu"
COMPARE="$(dirname "$0")/callgrind-compare.py"

# compare NAME MIN_PERCENT PROGRAM ARGS...: both runs in one small fixed
# environment, then the comparison; at least MIN_PERCENT of the functions
# compared agree, and there are at least 20 of them.
compare() {
    name=$1 min=$2
    shift 2
    prog=$(readlink -f "$(PATH=/usr/bin:/bin command -v "$1")")
    shift
    set -- "$prog" "$@"
    # The same variables for the program in both runs (QTRACE_PLUGIN for
    # qtrace record itself; valgrind and QEMU pass it on unused).
    clean="env -i PATH=/usr/bin:/bin LC_ALL=C PYTHONHASHSEED=0"
    clean="$clean QTRACE_PLUGIN=$QTRACE_PLUGIN"
    $clean "$@" > "$WORK/$name.expect" 2>&1
    $clean valgrind --tool=callgrind --separate-recs=1 \
        --callgrind-out-file="$WORK/$name.cg" "$@" > "$WORK/$name.vg.out" \
        2> "$WORK/$name.vg.err"
    check_eq "$name: status under callgrind" 0 "$?"
    callgrind_annotate --inclusive=yes --threshold=100 "$WORK/$name.cg" \
        > "$WORK/$name.ann" 2>&1
    $clean "$QTRACE" record -e 'func_*,image_map' -o "$WORK/$name.qtr" \
        -- "$@" > "$WORK/$name.out" 2> "$WORK/$name.err"
    check_eq "$name: status under qtrace" 0 "$?"
    check_eq "$name: output under qtrace" "" \
        "$(cmp "$WORK/$name.expect" "$WORK/$name.out" 2>&1)"
    # callgrind keeps PLT code apart from the functions it reaches.
    "$QTRACE" report --functions --keep-plt "$WORK/$name.qtr" \
        > "$WORK/$name.rep" 2> /dev/null
    "$QTRACE" dump -e image_map "$WORK/$name.qtr" > "$WORK/$name.maps" \
        2> /dev/null
    "$QTRACE" dump -e func_exit "$WORK/$name.qtr" 2> /dev/null |
        awk '$11 == 2 || $11 == 3 { print $11, $13 }' | sort -u \
        > "$WORK/$name.exits"
    python3 "$COMPARE" "$WORK/$name.cg" "$WORK/$name.ann" "$WORK/$name.rep" \
        "$WORK/$name.maps" "$WORK/$name.exits" "$prog" "$LIBC" \
        > "$WORK/$name.cmp"
    summary=$(tail -n 1 "$WORK/$name.cmp")
    echo "$name: $summary"
    compared=$(echo "$summary" | sed -n 's/^functions: \([0-9]*\) compared.*/\1/p')
    agree=$(echo "$summary" | sed -n 's/.* compared, \([0-9]*\) agree.*/\1/p')
    if [ "${compared:-0}" -ge 20 ] &&
       [ $((agree * 100)) -ge $((compared * min)) ]; then
        pass "$name: $agree of $compared functions agree with callgrind"
    else
        fail "$name: $agree of ${compared:-0} functions agree with callgrind (want $min%):"
        grep '^differ' "$WORK/$name.cmp" | head -20 | sed 's/^/    /'
    fi
}

seq 1 30000 > "$WORK/data.txt"
mkdir "$WORK/dir"
touch "$WORK/dir/a" "$WORK/dir/bb" "$WORK/dir/c.txt"

compare gzip 100 gzip -c "$WORK/data.txt"
compare ls 100 ls -a "$WORK/dir"
compare python3 90 python3 -S -E -c 'print(sum(i * i for i in range(1000)))'
finish
