#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The qtrace command's contract on help and bad input, without QEMU: help
# and version go to stdout with status 0, misuse gets status 2 and a
# pointer to --help, a bad file gets status 1 and one stderr line naming
# it ("qtrace CMD: FILE: REASON").
. "$(dirname "$0")/lib.sh"

if [ ! -x "$QTRACE" ]; then
    fail "QTRACE is not an executable: '$QTRACE'"
    finish
fi

# run STATUS ARGS...: run qtrace, keep stdout/stderr in $WORK/out, err.
run() {
    want=$1
    shift
    "$QTRACE" "$@" > "$WORK/out" 2> "$WORK/err"
    check_eq "qtrace${1+ $*} status" "$want" "$?"
}

# one_line WHAT PATTERN: stderr is one line, matching the extended regex.
one_line() {
    check_eq "$1: stderr lines" 1 "$(wc -l < "$WORK/err")"
    check_grep "$1: message" "$2" "$WORK/err"
}

# misuse CMD: stderr is a reason and "try 'qtrace CMD --help'".
misuse() {
    check_eq "$1 misuse: stderr lines" 2 "$(wc -l < "$WORK/err")"
    check_grep "$1 misuse: try line" "^try 'qtrace $1 --help'\$" "$WORK/err"
}

# Help and version.
run 0 --help
for cmd in record dump info list flamegraph diff; do
    check_grep "--help lists $cmd" "^  $cmd " "$WORK/out"
done
check_eq "--help: stderr empty" 0 "$(wc -c < "$WORK/err")"
run 0 --version
check_grep "--version" '^qtrace [0-9]+\.[0-9]+' "$WORK/out"
for cmd in record dump info list flamegraph diff; do
    run 0 "$cmd" --help
    check_grep "$cmd --help: usage line" "^usage: qtrace $cmd" "$WORK/out"
done

# Misuse: status 2.
run 2
check_grep "no command: try line" "^try 'qtrace --help'\$" "$WORK/err"
run 2 frobnicate
check_grep "unknown command named" "^qtrace: unknown command 'frobnicate'" \
    "$WORK/err"
run 2 record -Z
check_grep "record -Z named" "^qtrace record: unknown option '-Z'" "$WORK/err"
misuse record
run 2 record
misuse record
run 2 dump
misuse dump
run 2 dump --bogus x.qtr
check_grep "dump --bogus named" "^qtrace dump: unknown option '--bogus'" \
    "$WORK/err"
run 2 info -e
misuse info
run 2 flamegraph
misuse flamegraph
run 2 flamegraph --min-width=x t.qtr
misuse flamegraph
run 2 diff a.qtr
misuse diff
run 2 diff -C -1 a.qtr b.qtr
misuse diff
run 2 record -O novalue /bin/true
check_grep "record -O without '=' named" "^qtrace record: -O novalue: " \
    "$WORK/err"

# Bad trace files: status 1, one line naming the file.
missing="$WORK/no-such.qtr"
run 1 dump "$missing"
one_line "dump missing file" \
    "^qtrace dump: $missing: No such file or directory\$"
run 1 info "$missing"
one_line "info missing file" \
    "^qtrace info: $missing: No such file or directory\$"

printf 'a host name\n' > "$WORK/text"
run 1 dump "$WORK/text"
one_line "dump text file" "^qtrace dump: $WORK/text: .+"

: > "$WORK/empty"
run 1 dump "$WORK/empty"
one_line "dump empty file" "^qtrace dump: $WORK/empty: .+"
check_eq "dump empty file: stdout empty" 0 "$(wc -c < "$WORK/out")"

run 1 dump "$WORK"
one_line "dump directory" "^qtrace dump: $WORK: .+"

# Bad programs for record: status 1, one line naming the program.
run 1 record -o "$WORK/t.qtr" -- "$WORK/no-such-program"
one_line "record missing program" \
    "^qtrace record: $WORK/no-such-program: No such file or directory\$"
chmod +x "$WORK/text"
run 1 record -o "$WORK/t.qtr" -- "$WORK/text"
one_line "record non-ELF file" "^qtrace record: $WORK/text: not an ELF file\$"
check_eq "record failed before running: no trace" no \
    "$([ -e "$WORK/t.qtr" ] && echo yes || echo no)"

# An ELF for a machine qtrace does not know (e_machine at byte 18).
cp "$QTRACE" "$WORK/alien"
printf '\064\022' | dd of="$WORK/alien" bs=1 seek=18 conv=notrunc 2>/dev/null
run 1 record -o "$WORK/t.qtr" -- "$WORK/alien"
one_line "record unknown machine" \
    "^qtrace record: $WORK/alien: unsupported architecture \\(ELF machine 4660, 64-bit little-endian\\)$"

finish
