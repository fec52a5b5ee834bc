#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The progress bar of the long commands (dump, convert, report, diff,
# flamegraph, info), on ARCH's calls guest: with standard error on a
# pseudo-terminal (pty-run.py) and the size threshold lowered to 0 by
# QTRACE_TEST_PROGRESS_MIN (docs/testing.md), each draws a bar
# "qtrace CMD: [###   ] N%" and erases it before it ends; with the
# threshold one byte above the input, or the default (256 MB) on this
# small trace, or standard error in a file, nothing is written on
# standard error at all; and the results are the same bytes every time.
ARCH=$1
. "$(dirname "$0")/lib.sh"
use_guest calls "$ARCH"
command -v python3 > /dev/null 2>&1 || skip "python3 not installed"
PTY="$(cd "$(dirname "$0")" && pwd)/pty-run.py"
cd "$WORK" || exit 1

"$QTRACE" record -e 'vcpu_*,tb_trans,exec_tb,mem_access,func_*,syscall*' \
    -o a.qtr -- "$GUEST" > /dev/null 2>&1
cp a.qtr b.qtr
SIZE=$(wc -c < a.qtr)

# run NAME CMD...: the command as a terminal user runs it, and also with
# its standard error in a file; NAME.MODE.err and NAME.MODE.out for MODE
# bar (threshold 0), above (threshold above the input), default (no
# variable), file (threshold 0, stderr a file).
run() {
    name=$1
    shift
    rm -rf conv.out
    QTRACE_TEST_PROGRESS_MIN=0 python3 "$PTY" "$name.bar.err" \
        "$name.bar.out" "$QTRACE" "$@" > "$name.bar.st"
    rm -rf conv.out
    QTRACE_TEST_PROGRESS_MIN=$((SIZE * 2 + 1)) python3 "$PTY" \
        "$name.above.err" "$name.above.out" "$QTRACE" "$@" > /dev/null
    rm -rf conv.out
    python3 "$PTY" "$name.default.err" "$name.default.out" "$QTRACE" "$@" \
        > /dev/null
    rm -rf conv.out
    QTRACE_TEST_PROGRESS_MIN=0 "$QTRACE" "$@" > "$name.file.out" \
        2> "$name.file.err"
}

# check NAME WHO STATUS: what run NAME left, WHO the command's name.
check() {
    check_eq "$1: status" "$3" "$(cat "$1.bar.st")"
    check_grep "$1: a bar on the terminal" \
        "qtrace $2: \\[#* *\\] +[0-9]+%" "$1.bar.err"
    # Nothing may stay on the line once the command has ended: the
    # bytes after the last erase hold no bar.
    check_eq "$1: the bar erased at the end" "" \
        "$(python3 -c 'import sys
d = open(sys.argv[1], "rb").read()
sys.stdout.write(d[d.rfind(b"\r\033[K") + 4:].decode())' "$1.bar.err")"
    for mode in above default file; do
        check_eq "$1: nothing on stderr ($mode)" 0 \
            "$(wc -c < "$1.$mode.err")"
        if cmp -s "$1.bar.out" "$1.$mode.out"; then
            pass "$1: the same output ($mode)"
        else
            fail "$1: the output changed ($mode)"
        fi
    done
}

run dump dump a.qtr
check dump dump 0
run report report --functions --syscalls a.qtr
check report report 0
run convert convert --to etrace a.qtr conv.out
check convert convert 0
run flamegraph flamegraph a.qtr
check flamegraph flamegraph 0
run diff diff a.qtr b.qtr
check diff diff 0
run info info a.qtr
check info info 0
check_eq "dump: the lines all there" "$(wc -l < dump.file.out)" \
    "$("$QTRACE" info a.qtr | sed -n 's/^total: //p')"
finish
