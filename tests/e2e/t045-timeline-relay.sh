#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# One timeline across vCPUs (timeline=on) on the relay guest of ARCH:
# 3 threads hand a token round a ring of pipes 20 times, each holder
# marking the token k (lseek(-1, 0x51ec0000 + k)) and running spin()
# before passing it on, so the order of the marks and of the spin()
# runs across threads is known by construction (tests/guests/relay.c).
# qtrace dump --merge must print every record once, in times that never
# go back, the 60 marks in token order by alternating threads, and
# between mark k and mark k + 1 exactly one run of spin(), by mark k's
# thread. Chrome JSON (read by Python's json), CTF (read by babeltrace2)
# and report --vcpus use the same host clock; a trace recorded without
# the stamps gets one clear line from dump --merge.
ARCH=$1
. "$(dirname "$0")/lib.sh"
use_guest relay "$ARCH"
THREADS=3
ROUNDS=20
MARKS=$((THREADS * ROUNDS))

T="$WORK/t.qtr"
"$QTRACE" record --timeline -e 'syscall,syscall_ret,exec_tb,vcpu_*' \
    -o "$T" -- "$GUEST" $THREADS $ROUNDS > "$WORK/out" 2> "$WORK/err"
check_eq "guest exit status" 0 "$?"
check_eq "guest output" "relay: $MARKS hand-overs, ok" "$(cat "$WORK/out")"
"$QTRACE" info "$T" > "$WORK/info"
check_grep "META says the stamps' clock" '^timeline: monotonic$' \
    "$WORK/info"
check_grep "clock records were written" '^  clock +[1-9]' "$WORK/info"

# The expected marks, in token order: 0x51ec0000, 0x51ec0001, ...
seq 0 $((MARKS - 1)) | while read -r k; do printf '0x51ec%04x\n' "$k"; done \
    > "$WORK/marks.want"

# --- dump --merge
"$QTRACE" dump --merge "$T" > "$WORK/merged" 2> "$WORK/merged.err"
check_eq "dump --merge status" 0 "$?"
check_eq "dump --merge messages" "" "$(cat "$WORK/merged.err")"
"$QTRACE" dump "$T" > "$WORK/plain"
check_eq "every record once (lines of dump and dump --merge)" \
    "$(wc -l < "$WORK/plain")" "$(wc -l < "$WORK/merged")"
check_eq "the same records (sorted lines without the host time)" \
    "$(sort "$WORK/plain" | cksum)" \
    "$(cut -d' ' -f2- "$WORK/merged" | sort | cksum)"
check_eq "host times never go back" "0" \
    "$(awk '$1 != "-" { t = $1 + 0; if (t < last) bad++; last = t }
            END { print bad + 0 }' "$WORK/merged")"
grep ' syscall .* 0x51ec' "$WORK/merged" > "$WORK/marklines"
check_eq "the marks in token order" "$(cat "$WORK/marks.want")" \
    "$(grep -o '0x51ec[0-9a-f]*' "$WORK/marklines")"
check_eq "two marks in a row never by one vCPU" "0" \
    "$(awk 'NR > 1 && $2 == prev { bad++ } { prev = $2 }
            END { print bad + 0 }' "$WORK/marklines")"

# Between mark k and mark k + 1 (or the end), spin()'s blocks: all of
# mark k's thread, as many for every token, none of another thread.
"$QTRACE" dump --merge -e syscall,exec_tb "$T" |
    awk '/ syscall .* 0x51ec/ { n++; holder[n] = $2; next }
         / exec_tb .*\| spin\+/ {
             if (n == 0 || $2 != holder[n]) { other++ } else { own[n]++ }
         }
         END {
             for (i = 1; i <= n; i++) { print "token " own[i] + 0 }
             print "other " other + 0
         }' > "$WORK/spins"
per=$(head -1 "$WORK/spins" | cut -d' ' -f2)
[ "$per" -gt 0 ] && pass "spin() blocks after the first mark: $per" ||
    fail "no spin() block after the first mark"
check_eq "each token's spin() blocks, by its holder" \
    "$MARKS x token $per" \
    "$(grep '^token ' "$WORK/spins" | sort | uniq -c |
       awk '{ print $1 " x " $2 " " $3 }' | tr '\n' ';' | sed 's/;$//')"
check_eq "spin() blocks of another thread between two marks" "other 0" \
    "$(grep '^other ' "$WORK/spins")"

# --- Chrome JSON: the lseek slices, sorted by ts, are in token order.
"$QTRACE" convert --to chrome "$T" "$WORK/t.json" 2> "$WORK/chrome.err"
check_eq "convert --to chrome status" 0 "$?"
python3 - "$WORK/t.json" > "$WORK/chrome.marks" 2> "$WORK/py.err" <<'EOF'
import json
import sys

with open(sys.argv[1]) as f:
    doc = json.load(f)
if not doc["otherData"]["clock"].startswith("host time"):
    sys.exit("clock: " + doc["otherData"]["clock"])
marks = [e for e in doc["traceEvents"]
         if e.get("ph") == "B" and str(e.get("args", {}).get("a2", ""))
         .startswith("0x51ec")]
for e in sorted(marks, key=lambda e: float(e["ts"])):
    print(e["args"]["a2"])
EOF
check_eq "chrome: python3 json reads it, clock is host time" "0" "$?"
check_eq "chrome: marks by ts in token order" "$(cat "$WORK/marks.want")" \
    "$(cat "$WORK/chrome.marks")"

# --- CTF: babeltrace2 merges the streams by the host clock.
if command -v babeltrace2 > /dev/null 2>&1; then
    "$QTRACE" convert --to ctf -e 'syscall*,vcpu_*' "$T" "$WORK/ctf" \
        2> "$WORK/ctf.err"
    check_eq "convert --to ctf status" 0 "$?"
    check_grep "CTF clock is the host's" 'name = "host";' \
        "$WORK/ctf/metadata"
    babeltrace2 --clock-cycles "$WORK/ctf" > "$WORK/bt" 2> "$WORK/bt.err"
    check_eq "babeltrace2 status" 0 "$?"
    check_eq "babeltrace2: marks in token order" \
        "$(tr 'a-f' 'A-F' < "$WORK/marks.want" | sed 's/^0X/0x/')" \
        "$(grep -o 'a2 = 0x51EC[0-9A-F]*' "$WORK/bt" | cut -d' ' -f3)"
    check_eq "babeltrace2: times never go back" "0" \
        "$(sed -n 's/^\[\([0-9]*\)\].*/\1/p' "$WORK/bt" |
           awk '{ if ($1 + 0 < last) bad++; last = $1 + 0 }
                END { print bad + 0 }')"
else
    echo "INFO babeltrace2 not installed: CTF part not checked"
fi

# --- report --vcpus: each stream's span on the host clock.
"$QTRACE" report --vcpus --format=csv "$T" > "$WORK/vcpus"
check_eq "report --vcpus: main and $THREADS threads with host times" \
    "$((THREADS + 1))" \
    "$(awk -F, 'NR > 1 && $8 <= $9 && $9 > 0 { n++ } END { print n + 0 }' \
       "$WORK/vcpus")"
check_eq "report --vcpus: host-time columns" \
    "vcpu,stream,insns,blocks,accesses,syscalls,records,start_ns,end_ns,paused_ns" \
    "$(head -1 "$WORK/vcpus")"
# With a reading thread asked for, the host times are the same (the
# reader then decodes on the caller's thread: a chunk's clock goes with
# the records being counted).
"$QTRACE" report --vcpus --format=csv -j 2 "$T" > "$WORK/vcpus-j2"
check_eq "report --vcpus -j 2: the same rows as -j 1" "" \
    "$(diff "$WORK/vcpus" "$WORK/vcpus-j2")"

# --- a trace without stamps: --merge says what can be had instead.
"$QTRACE" record -q -e syscall -o "$WORK/plain.qtr" -- "$GUEST" 2 1 \
    > /dev/null 2>&1
"$QTRACE" dump --merge "$WORK/plain.qtr" > "$WORK/nm" 2> "$WORK/nm.err"
check_eq "dump --merge without stamps: status 1" 1 "$?"
check_eq "dump --merge without stamps: no output" "" "$(cat "$WORK/nm")"
check_grep "dump --merge without stamps: one line saying why" \
    '^qtrace dump: .*plain\.qtr: --merge needs host clock stamps, and the trace has none \(recorded without timeline=on' \
    "$WORK/nm.err"
check_eq "... one line" 1 "$(wc -l < "$WORK/nm.err")"
finish
