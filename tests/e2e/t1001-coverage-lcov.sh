#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# qtrace coverage --format lcov against gcov: the coverage guest
# (tests/guests/coverage.c) built here for the host with gcc --coverage
# -O0 -g, run natively (gcov's counters, read by lcov) and recorded
# under qemu-ARCH (ARCH: the host's) with exec_tb, then with tb_count;
# the lines of coverage.c hit by the trace must be gcov's, hold every
# line the guest marks RUN and none marked NEVER, and the functions'
# entry counts are the guest's construction. genhtml renders the
# tracefile (also with the C library's lines, when its debug file is
# installed: libc6-dbg) and lcov --summary reads it.
ARCH=$1
. "$(dirname "$0")/lib.sh"
[ "$ARCH" = "$(uname -m)" ] || skip "gcov data comes from a native run"
need_qemu "$ARCH"
for tool in gcc lcov genhtml; do
    command -v "$tool" > /dev/null 2>&1 ||
        skip "$tool not installed (Debian packages gcc, lcov)"
done
SRC=$(cd "$(dirname "$0")/../guests" && pwd)/coverage.c

cd "$WORK" || exit 1
gcc --coverage -O0 -g -o cover "$SRC" 2> build.err
check_eq "guest built with --coverage" 0 "$?"
./cover > native.out
check_eq "native run" "coverage: 2480" "$(cat native.out)"
lcov -q --capture --directory . --output-file native.info > lcov.out 2>&1
check_eq "lcov reads gcov's data" 0 "$?"
rm -f ./*.gcda
"$QTRACE" record -q -e exec_tb,tb_trans,image_map -o t.qtr -- ./cover \
    > qemu.out 2> qemu.err
check_eq "recorded under QEMU" "coverage: 2480" "$(cat qemu.out)"
rm -f ./*.gcda
"$QTRACE" record -q -e tb_count,tb_trans,image_map -o c.qtr -- ./cover \
    > /dev/null 2>&1
"$QTRACE" coverage --format lcov -o t.info t.qtr 2> cov.err
check_eq "qtrace coverage --format lcov" 0 "$?"
"$QTRACE" coverage --format lcov -o c.info c.qtr 2> /dev/null
check_eq "from tb_count" 0 "$?"

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
hit_lines t.info > trace.lines
n=$(wc -l < native.lines)
[ "$n" -ge 15 ] && pass "gcov hits $n lines" || fail "gcov hits $n lines"
check_eq "lines hit: gcov's count" "$n" "$(wc -l < trace.lines)"
check_eq "the same lines as gcov's" "" \
    "$(diff native.lines trace.lines | grep '^[<>]' | tr '\n' ' ')"
check_eq "RUN lines hit" "" \
    "$(marked RUN | grep -vxF -f trace.lines | tr '\n' ' ')"
check_eq "NEVER lines hit" "" \
    "$(marked NEVER | grep -xF -f trace.lines | tr '\n' ' ')"
check_eq "tb_count gives the same lines" "$(tr '\n' ' ' < trace.lines)" \
    "$(hit_lines c.info | tr '\n' ' ')"
# DA:LINE,COUNT: how often the body of square() ran (20 calls).
sq=$(grep -n 'return x \* x' "$SRC" | cut -d: -f1)
check_eq "square's line ran 20 times" "20" \
    "$(awk -F'[:,]' -v l="$sq" '/^SF:/ { f = $2 }
        /^DA:/ && f ~ /\/coverage\.c$/ && $2 == l { print $3 }' t.info)"
# FNDA:COUNT,NAME: how often each function was entered.
for f in main:1 square:20 classify:20 never_called:0; do
    check_eq "entries of ${f%:*}" "${f#*:}" \
        "$(sed -n "s/^FNDA:\([0-9]*\),${f%:*}\$/\1/p" t.info | head -1)"
done

# The C library's lines when its debug file is there.
if [ -n "$(sed -n 's/^SF:.*csu.*/x/p' t.info | head -1)" ]; then
    pass "the C library's lines are there (debug file found)"
else
    echo "(no libc debug file: only the program's lines)"
fi
genhtml -q --ignore-errors source -o html t.info > genhtml.out 2>&1
check_eq "genhtml renders it" 0 "$?"
[ -f html/index.html ] && pass "genhtml wrote its report" ||
    fail "no html/index.html"
# The program's own file, with its source at hand: no error at all.
lcov -q --extract t.info '*/coverage.c' -o own.info > extract.out 2>&1
genhtml -q -o own own.info > own.out 2>&1
check_eq "genhtml on coverage.c alone, no error" "0 " "$? $(cat own.out)"
grep -q 'coverage.c' own/index.html 2>/dev/null ||
    find own -name 'coverage.c.gcov.html' | grep -q . &&
    pass "coverage.c has its page" || fail "no page for coverage.c"
lcov --summary t.info > summary.out 2>&1
check_grep "lcov --summary reads it" 'lines\.*: [0-9.]+%' summary.out
finish
