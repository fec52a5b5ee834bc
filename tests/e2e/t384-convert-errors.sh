#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Bad input to convert --to chrome, perfetto and ctf gets one line and
# the documented status, and OUT is left as it was: -e with a format
# that takes none, a pattern that matches no event, a file that is not a
# trace, nothing to convert, an OUT of another kind (a file, a
# directory of another tool); an OUT of the same format is replaced. A
# trace cut inside a chunk is converted up to the cut, then the cut is
# reported (status 1), and the output is still whole: valid JSON, a
# protobuf protoc decodes, a directory babeltrace2 reads.
. "$(dirname "$0")/lib.sh"
use_guest calls x86_64
HERE=$(dirname "$0")

T="$WORK/t.qtr"
"$QTRACE" record -e 'func_*,image_map,vcpu_*,syscall*,exec_tb' -O chunk=64k \
    -o "$T" -- "$GUEST" > /dev/null 2>&1
check_eq "guest exit status" 0 "$?"

# run NAME EXPECTED-STATUS ARGS...: status and the first message line.
run() {
    name=$1
    want=$2
    shift 2
    "$QTRACE" convert "$@" > "$WORK/$name.out" 2> "$WORK/$name.err"
    check_eq "$name: status" "$want" "$?"
}

run uftrace-e 2 -e exec_tb --to uftrace "$T" "$WORK/u"
check_eq "uftrace-e: message" \
    "qtrace convert: -e: --to uftrace converts what it needs, it takes no -e|try 'qtrace convert --help'" \
    "$(paste -sd'|' "$WORK/uftrace-e.err")"
for fmt in chrome perfetto ctf; do
    run "$fmt-nomatch" 2 -e 'exec_tbb' --to "$fmt" "$T" "$WORK/o-$fmt"
    check_eq "$fmt-nomatch: message" \
        "qtrace convert: -e exec_tbb: no event matches; did you mean 'exec_tb'?" \
        "$(head -1 "$WORK/$fmt-nomatch.err")"
    check_eq "$fmt-nomatch: no OUT" no \
        "$(if [ -e "$WORK/o-$fmt" ]; then echo yes; else echo no; fi)"

    run "$fmt-notrace" 1 --to "$fmt" "$HERE/lib.sh" "$WORK/o-$fmt"
    check_eq "$fmt-notrace: one line naming the file" 1 \
        "$(grep -c "^qtrace convert: $HERE/lib.sh: " "$WORK/$fmt-notrace.err")"

    # tb_count was not recorded: nothing to convert, nothing written.
    run "$fmt-empty" 1 -e tb_count --to "$fmt" "$T" "$WORK/o-$fmt"
    check_grep "$fmt-empty: message" \
        "^qtrace convert: $T: nothing to (show|convert) \\(no record of the events selected" \
        "$WORK/$fmt-empty.err"
    check_eq "$fmt-empty: no OUT" no \
        "$(if [ -e "$WORK/o-$fmt" ]; then echo yes; else echo no; fi)"
done

# An OUT file of another kind stays; one of ours is replaced.
for fmt in chrome perfetto; do
    echo "keep me" > "$WORK/other.$fmt"
    run "$fmt-other" 1 --to "$fmt" "$T" "$WORK/other.$fmt"
    check_grep "$fmt-other: message" \
        "^qtrace convert: $WORK/other.$fmt: exists and is not a .* \\(not overwritten; use --force to replace it\\)$" \
        "$WORK/$fmt-other.err"
    check_eq "$fmt-other: file untouched" "keep me" \
        "$(cat "$WORK/other.$fmt")"
    run "$fmt-first" 0 --to "$fmt" "$T" "$WORK/ours.$fmt"
    run "$fmt-again" 0 -e 'syscall*' --to "$fmt" "$T" "$WORK/ours.$fmt"
    run "$fmt-force" 0 --force --to "$fmt" "$T" "$WORK/other.$fmt"
done
check_eq "chrome-again: the second conversion is in the file" 0 \
    "$(grep -c '"cat":"call"' "$WORK/ours.chrome")"

# A directory of another tool is never replaced, even with --force.
mkdir "$WORK/dir" && echo x > "$WORK/dir/notes"
run ctf-other 1 --force --to ctf "$T" "$WORK/dir"
check_grep "ctf-other: message" \
    "^qtrace convert: $WORK/dir: exists and is not a CTF trace directory" \
    "$WORK/ctf-other.err"
check_eq "ctf-other: directory untouched" notes "$(ls "$WORK/dir")"
mkdir "$WORK/empty"
run ctf-empty-dir 0 --to ctf "$T" "$WORK/empty"
run ctf-again 0 -e vcpu_init --to ctf "$T" "$WORK/empty"

# A cut inside a chunk: what was read, converted and whole, then status 1.
# At 2/3 of the file, or further on while the chunks before the cut hold
# no call yet: how the chunks lie in the file is the flush timing's (on a
# loaded machine the calls may all be in the last chunk of records).
size=$(wc -c < "$T")
for pct in 67 75 83 90 95 97 98 99; do
    head -c $((size * pct / 100)) "$T" > "$WORK/cut.qtr"
    calls=$("$QTRACE" dump -e func_entry "$WORK/cut.qtr" 2> /dev/null |
            grep -c ' func_entry ')
    [ "$calls" -gt 0 ] && break
done
check_eq "cut: calls before the cut" yes \
    "$(if [ "$calls" -gt 0 ]; then echo yes; else echo no; fi)"
"$QTRACE" dump "$WORK/cut.qtr" > /dev/null 2> "$WORK/dump-cut.err"
cut_msg=$(sed 's/^qtrace dump: //' "$WORK/dump-cut.err")
for fmt in chrome perfetto ctf; do
    run "$fmt-cut" 1 --to "$fmt" "$WORK/cut.qtr" "$WORK/cut.$fmt"
    check_eq "$fmt-cut: the cut reported last, as dump reports it" \
        "qtrace convert: $cut_msg" "$(tail -1 "$WORK/$fmt-cut.err")"
done
if command -v python3 > /dev/null 2>&1; then
    python3 "$HERE/timeline-check.py" chrome "$WORK/cut.chrome" "" \
        > "$WORK/cut.sum"
    check_eq "chrome-cut: valid JSON, slices closed" ok \
        "$(head -1 "$WORK/cut.sum")"
fi
if command -v protoc > /dev/null 2>&1; then
    protoc --decode_raw < "$WORK/cut.perfetto" > /dev/null
    check_eq "perfetto-cut: protoc decodes it" 0 "$?"
fi
if command -v babeltrace2 > /dev/null 2>&1; then
    babeltrace2 "$WORK/cut.ctf" > /dev/null 2> "$WORK/bt.err"
    check_eq "ctf-cut: babeltrace2 reads it" "0:" \
        "$?:$(cat "$WORK/bt.err")"
fi

# --help names the formats and -e.
"$QTRACE" convert --help > "$WORK/help"
for fmt in chrome perfetto ctf; do
    check_grep "--help lists $fmt" "^  $fmt " "$WORK/help"
done
check_grep "--help explains -e" "^  -e, --events=PATTERNS" "$WORK/help"
finish
