#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The coverage example (libqtrace-instr-coverage.so) against gcov: the
# coverage guest (tests/guests/coverage.c) built here for the host with
# gcc --coverage -O0 -g, run natively (gcov's counters, read by lcov)
# and under qemu-ARCH (ARCH: the host's) with the example writing an
# lcov tracefile from the DWARF line table. The lines hit must be the
# same set, hold every line the guest marks RUN and none marked NEVER;
# the functions' entry counts are the guest's construction; genhtml and
# lcov --summary accept the tracefile.
ARCH=$1
. "$(dirname "$0")/lib.sh"
[ "$ARCH" = "$(uname -m)" ] || skip "gcov data comes from a native run"
need_qemu "$ARCH"
for tool in gcc lcov genhtml; do
    command -v "$tool" > /dev/null 2>&1 ||
        skip "$tool not installed (Debian packages gcc, lcov)"
done
[ -n "${INSTR_EXAMPLES:-}" ] || skip "INSTR_EXAMPLES not set"
COVERAGE="$INSTR_EXAMPLES/libqtrace-instr-coverage.so"
SRC=$(cd "$(dirname "$0")/../guests" && pwd)/coverage.c

cd "$WORK" || exit 1
gcc --coverage -O0 -g -o cover "$SRC" 2> build.err
check_eq "guest built with --coverage" 0 "$?"
./cover > native.out
check_eq "native run" "coverage: 2480" "$(cat native.out)"
lcov -q --capture --directory . --output-file native.info > lcov.out 2>&1
check_eq "lcov reads gcov's data" 0 "$?"
rm -f ./*.gcda
"qemu-$ARCH" -plugin "$QTRACE_PLUGIN,out=$WORK/t.qtr,instr=$COVERAGE,instr-arg=lcov=$WORK/qemu.info" \
    ./cover > qemu.out 2> qemu.err
check_eq "run under QEMU" "coverage: 2480" "$(cat qemu.out)"

# hit_lines INFO: the lines of coverage.c with a count above 0.
hit_lines() {
    awk -F'[:,]' '/^SF:/ { f = $2 }
        /^DA:/ && f ~ /\/coverage\.c$/ && $3 > 0 { print $2 }' "$1" |
        sort -n
}
# marked WORD: the lines of coverage.c carrying the mark /* WORD.
marked() {
    grep -n "/\* $1" "$SRC" | cut -d: -f1
}
hit_lines native.info > native.lines
hit_lines qemu.info > qemu.lines
check_eq "lines hit by gcov's count" "$(wc -l < native.lines)" \
    "$(wc -l < qemu.lines)"
check_eq "the same lines as gcov's" "" \
    "$(diff native.lines qemu.lines | grep '^[<>]' | tr '\n' ' ')"
check_eq "RUN lines hit" "" \
    "$(marked RUN | grep -vxF -f qemu.lines | tr '\n' ' ')"
check_eq "NEVER lines hit" "" \
    "$(marked NEVER | grep -xF -f qemu.lines | tr '\n' ' ')"
# FNDA:COUNT,NAME: how often each function was entered.
for f in main:1 square:20 classify:20 never_called:0; do
    check_eq "entries of ${f%:*}" "${f#*:}" \
        "$(sed -n "s/^FNDA:\([0-9]*\),${f%:*}\$/\1/p" qemu.info)"
done

genhtml -q -o html qemu.info > genhtml.out 2>&1
check_eq "genhtml accepts the tracefile" 0 "$?"
[ -f html/index.html ]
check_eq "genhtml wrote its report" 0 "$?"
lcov --summary qemu.info > summary.out 2>&1
check_grep "lcov --summary reads it" 'lines\.*: [0-9.]+%' summary.out
finish
