#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Two libraries' own events in one trace, on the x86_64 assembly guest:
# the sampler example (sampler:sample per block, sampler:syscall) and
# tests/instr/twin (twin:sample at each run of the loop head: seq 1..100
# and the head's address). Both have an event called "sample": each
# keeps its name under its library, its own ids (after the built-in
# events, in load order) and its own fields, by qtrace dump and by the
# reader written from docs/format.md. A second library registering under
# a name already taken is refused before the guest runs.
ARCH=x86_64
. "$(dirname "$0")/lib.sh"
use_guest asm "$ARCH"
[ -n "${INSTR_EXAMPLES:-}" ] || skip "INSTR_EXAMPLES not set"
[ -n "${INSTR_TEST_LIBS:-}" ] || skip "INSTR_TEST_LIBS not set"
command -v python3 > /dev/null 2>&1 || skip "python3 not installed"
HERE=$(dirname "$0")
SAMPLER="$INSTR_EXAMPLES/libqtrace-instr-sampler.so"
TWIN="$INSTR_TEST_LIBS/libinstr-twin.so"
LOOP=$(expect_get loop_pc)
LOOPS=$(expect_get loop_count)
BLOCKS=$(expect_get blocks | tr ',' '\n' | awk -F: '{ n += $2 } END { print n }')
N_BUILTIN=$(grep -cEv '^[[:space:]]*(#|$)' "$TRACE_EVENTS")

"$QTRACE" record -q -O encoding=raw -O compress=off -o "$WORK/t.qtr" \
    --instr "$SAMPLER" --instr-arg every=1 \
    --instr "$TWIN" --instr-arg "pc=$LOOP" -- "$GUEST" > /dev/null 2>&1
check_eq "exit status" "$(expect_get exit)" "$?"
"$QTRACE" dump "$WORK/t.qtr" > "$WORK/dump"
check_eq "dump: sampler:sample" "$BLOCKS" \
    "$(awk '$3 == "sampler:sample" && $4 == "pc"' "$WORK/dump" | wc -l)"
check_eq "dump: twin:sample, its own fields" "$LOOPS" \
    "$(awk -v pc="$LOOP" '$3 == "twin:sample" && $4 == "seq" &&
        $5 == ++n && $6 == "pc" && $7 == pc' "$WORK/dump" | wc -l)"
check_eq "info: both" "$BLOCKS $LOOPS" \
    "$(info_count "$WORK/t.qtr" sampler:sample) $(info_count "$WORK/t.qtr" twin:sample)"

python3 "$HERE/lib-events-read.py" "$WORK/t.qtr" > "$WORK/py" ||
    fail "lib-events-read.py failed"
# ids_of FILE: "ID NAME" of each event the reader met, by id.
ids_of() {
    sort -n -u -k1,1 "$1" | awk '{ printf "%s%s %s", s, $1, $2; s = "," }'
}
A=$((N_BUILTIN + 1)); B=$((N_BUILTIN + 2)); C=$((N_BUILTIN + 3))
check_eq "reader from the spec: ids in load order" \
    "$A sampler:sample,$B sampler:syscall,$C twin:sample" \
    "$(ids_of "$WORK/py")"
check_eq "reader from the spec: twin's seq 1..$LOOPS at the loop head" \
    "$LOOPS" \
    "$(awk -v pc="$(printf '%d' "$LOOP")" '$2 == "twin:sample" &&
        $4 == "seq=" ++n && $5 == "pc=" pc' "$WORK/py" | wc -l)"
# Each twin:sample comes right after the loop block's sample, whose
# blocks count is its seq + 1 (the set-up block ran first).
check_eq "reader from the spec: records interleave as executed" "$LOOPS" \
    "$(awk '$2 == "sampler:sample" { split($6, b, "="); last = b[2] }
        $2 == "twin:sample" { split($4, s, "="); if (s[2] + 1 == last) n++ }
        END { print n + 0 }' "$WORK/py")"

# The other load order: the ids follow it.
"$QTRACE" record -q -O encoding=raw -O compress=off -o "$WORK/r.qtr" \
    --instr "$TWIN" --instr-arg "pc=$LOOP" \
    --instr "$SAMPLER" --instr-arg every=1 -- "$GUEST" > /dev/null 2>&1
python3 "$HERE/lib-events-read.py" "$WORK/r.qtr" > "$WORK/py" ||
    fail "lib-events-read.py failed"
check_eq "reversed load order: ids" \
    "$A twin:sample,$B sampler:sample,$C sampler:syscall" \
    "$(ids_of "$WORK/py")"

# A library name taken: refused, naming both, before the guest runs.
"$QTRACE" record -q -o "$WORK/x.qtr" --instr "$SAMPLER" \
    --instr "$TWIN" --instr-arg "pc=$LOOP" --instr-arg name=sampler \
    -- "$GUEST" > /dev/null 2> "$WORK/err"
check_eq "name taken: record fails" 1 "$?"
WHY="register_events: sampler: library name already registered by"
check_grep "name taken: the host says why" \
    "instr=$TWIN: qtrace_instr_init failed \(1\): $WHY instr=$SAMPLER: no events \(-1\)" \
    "$WORK/err"
finish
