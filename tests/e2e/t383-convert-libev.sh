#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# An instrumentation library's own events through convert --to chrome,
# perfetto and ctf, on the assembly guest of ARCH with the sampler
# example (every=1: one sampler:sample per block, one sampler:syscall):
# each record is an instant of category "sampler" in the viewers'
# formats, and an event with its named fields in the CTF directory, with
# the values qtrace dump prints (pc, insns, blocks of every sample).
ARCH=$1
. "$(dirname "$0")/lib.sh"
use_guest asm "$ARCH"
[ -n "${INSTR_EXAMPLES:-}" ] || skip "INSTR_EXAMPLES not set"
command -v python3 > /dev/null 2>&1 || skip "python3 not installed"
HERE=$(dirname "$0")
SAMPLER="$INSTR_EXAMPLES/libqtrace-instr-sampler.so"

T="$WORK/t.qtr"
"$QTRACE" record -q -o "$T" --instr "$SAMPLER" --instr-arg every=1 \
    -- "$GUEST" > /dev/null 2>&1
"$QTRACE" dump "$T" > "$WORK/dump"
SAMPLES=$(info_count "$T" sampler:sample)
[ "$SAMPLES" -gt 0 ] && pass "$SAMPLES samples recorded" ||
    fail "no sampler:sample record"
# "pc=0x.. insns=N blocks=N" of each sample, from dump.
awk '$3 == "sampler:sample" { print "pc=" $5, "insns=" $7, "blocks=" $9 }' \
    "$WORK/dump" > "$WORK/want"

# summary FORMAT FILE: timeline-check.py's view, the samples' arguments
# one line each (the function of pc, also given, is left aside).
summary() {
    python3 "$HERE/timeline-check.py" "$1" "$2" "" 'sampler:sample#*' \
        > "$WORK/$1.sum"
    check_eq "$1: structure, category sampler" ok \
        "$(sed -n 1p "$WORK/$1.sum")"
    check_eq "$1: one instant per library record" \
        "sampler:sample=$SAMPLES sampler:syscall=1" \
        "$(grep '^instants ' "$WORK/$1.sum" | tr ' ' '\n' |
           grep '^sampler:' | tr '\n' ' ' | sed 's/ $//')"
    awk '$1 == "arg" && $3 ~ /^(pc|insns|blocks)=/ {
             split($2, a, "#"); line[a[2]] = line[a[2]] \
             (line[a[2]] == "" ? "" : " ") $3 }
         END { for (i = 0; i in line; i++) print line[i] }' \
        "$WORK/$1.sum" > "$WORK/$1.got"
    if cmp -s "$WORK/want" "$WORK/$1.got"; then
        pass "$1: every sample's pc, insns and blocks as dump prints them"
    else
        fail "$1: sample arguments differ from dump's"
        diff "$WORK/want" "$WORK/$1.got" | head -5
    fi
}

"$QTRACE" convert --to chrome "$T" "$WORK/t.json" 2> "$WORK/err"
check_eq "chrome: status" 0 "$?"
summary chrome "$WORK/t.json"

if command -v protoc > /dev/null 2>&1; then
    "$QTRACE" convert --to perfetto "$T" "$WORK/t.pftrace" 2> "$WORK/err"
    check_eq "perfetto: status" 0 "$?"
    protoc --proto_path="$HERE" --decode=qtrace_test.Trace \
        perfetto-min.proto < "$WORK/t.pftrace" > "$WORK/dec"
    check_eq "perfetto: protoc --decode status" 0 "$?"
    summary perfetto "$WORK/dec"
else
    echo "protoc not installed (Debian package protobuf-compiler):" \
        "perfetto part not run"
fi

if command -v babeltrace2 > /dev/null 2>&1; then
    "$QTRACE" convert --to ctf "$T" "$WORK/ctf" 2> "$WORK/err"
    check_eq "ctf: status" 0 "$?"
    babeltrace2 --clock-cycles "$WORK/ctf" > "$WORK/bt" 2> "$WORK/bt.err"
    check_eq "ctf: babeltrace2 status" 0 "$?"
    check_eq "ctf: babeltrace2 messages" "" "$(cat "$WORK/bt.err")"
    "$QTRACE" info --per-cpu "$T" > "$WORK/percpu"
    python3 "$HERE/ctf-compare.py" "$WORK/bt" "$WORK/dump" \
        "$WORK/percpu" > "$WORK/cmp"
    check_eq "ctf: babeltrace2 and dump agree field by field" \
        "differences 0" "$(tail -1 "$WORK/cmp")"
    check_eq "ctf: the library's events counted" \
        "sampler:sample=$SAMPLES sampler:syscall=1" \
        "$(grep '^count ' "$WORK/cmp" | tr ' ' '\n' | grep '^sampler:' |
           tr '\n' ' ' | sed 's/ $//')"
    check_grep "ctf: fields named as the library declared them" \
        'sampler:sample: \{ cpu_id = 0, qtrace_stream = [0-9]+ \}, \{ pc = 0x[0-9A-F]+, insns = [0-9]+, blocks = [0-9]+ \}' \
        "$WORK/bt"
else
    echo "babeltrace2 not installed: ctf part not run"
fi
finish
