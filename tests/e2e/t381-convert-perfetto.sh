#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# `qtrace convert --to perfetto` on the calls guest of ARCH, decoded by
# protoc: --decode_raw takes the whole file as protobuf, and --decode
# with perfetto-min.proto (Perfetto's field numbers) gives the packets
# to timeline-check.py, which checks the sequences (first packet clears
# the incremental state, the others need it), the interning (every iid
# defined on its sequence before use, one string per iid, no string
# twice on a sequence), that every event's track was described, and the
# slice nesting per track; then the timeline holds what the chrome
# conversion of the same trace holds, and the guest's call tree, calls,
# system calls and streams as in t380. Perfetto's own trace_processor is
# not packaged for Debian, so protoc is the reader here.
ARCH=$1
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/calls.sh"
. "$(dirname "$0")/convert-lib.sh"
use_guest calls "$ARCH"
command -v python3 > /dev/null 2>&1 ||
    skip "python3 not installed (Debian package python3)"
command -v protoc > /dev/null 2>&1 ||
    skip "protoc not installed (Debian package protobuf-compiler)"

T="$WORK/t.qtr"
convert_record "$T"
"$QTRACE" convert --to perfetto "$T" "$WORK/t.pftrace" 2> "$WORK/err"
check_eq "convert status" 0 "$?"
check_eq "convert messages" "" "$(cat "$WORK/err")"

protoc --decode_raw < "$WORK/t.pftrace" > "$WORK/raw" 2> "$WORK/raw.err"
check_eq "protoc --decode_raw status" 0 "$?"
protoc --proto_path="$E2E_DIR" --decode=qtrace_test.Trace \
    perfetto-min.proto < "$WORK/t.pftrace" > "$WORK/dec" 2> "$WORK/dec.err"
check_eq "protoc --decode status" 0 "$?"
n_raw=$(grep -c '^1 {' "$WORK/raw")
check_eq "packets: the same for --decode_raw and --decode" "$n_raw" \
    "$(grep -c '^packet {' "$WORK/dec")"
# One packet per track descriptor, slice begin and end, and instant.
"$QTRACE" convert --to chrome "$T" "$WORK/t.json"
check_eq "packets: one per track and per event of the chrome file" \
    "$n_raw" "$(python3 -c 'import json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
print(sum(1 for e in ev if e["ph"] != "M" or e["name"] in
          ("process_name", "thread_name")))' "$WORK/t.json")"

python3 "$E2E_DIR/timeline-check.py" perfetto "$WORK/dec" "$CALLS_FUNCS" \
    'syscall#0' > "$WORK/sum" 2>&1
check_eq "timeline-check status" 0 "$?"
check_summary perfetto "$WORK/sum" "$T"
python3 "$E2E_DIR/timeline-check.py" chrome "$WORK/t.json" "$CALLS_FUNCS" \
    'syscall#0' > "$WORK/sum-chrome"
if cmp -s "$WORK/sum" "$WORK/sum-chrome"; then
    pass "perfetto and chrome give the same timeline, arguments included"
else
    fail "perfetto and chrome timelines differ:"
    diff "$WORK/sum-chrome" "$WORK/sum" | head -10
fi

# Interning: each name once per sequence (checked above), so the names
# of the 15 guest functions and the other events come once per track.
check_eq "each event name interned once per sequence it is used on" \
    "$(python3 -c 'import re, sys
seqs = {}
seq = None
for line in open(sys.argv[1]):
    m = re.match(r"  trusted_packet_sequence_id: (\d+)", line)
    if m:
        seq = m.group(1)
    if re.match(r"    event_names \{", line):
        seqs[seq] = seqs.get(seq, 0) + 1
print(sum(seqs.values()))' "$WORK/dec")" \
    "$(python3 -c 'import json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
print(len({(e.get("tid"), e["name"]) for e in ev
           if e["ph"] in "Bi"}))' "$WORK/t.json")"
finish
