#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# An instrumentation library's own events (docs/instrument.md, "The
# library's own events"), user mode, on the assembly guest of ARCH: the
# sampler example writes sampler:sample for every N-th block the vCPU
# enters and sampler:syscall per system call. By the guest's construction
# (asm-ARCH.expect) the blocks run in the order of 'blocks', with the
# instructions of 'block_ranges', and the one system call is exit_group
# with the exit status as first argument. Checked through qtrace dump,
# info, report, an independent reader of docs/format.md
# (lib-events-read.py), convert --to etrace read by etrace-peer.py,
# backend=log and backend=simple.
ARCH=$1
. "$(dirname "$0")/lib.sh"
use_guest asm "$ARCH"
[ -n "${INSTR_EXAMPLES:-}" ] || skip "INSTR_EXAMPLES not set"
command -v python3 > /dev/null 2>&1 || skip "python3 not installed"
HERE=$(dirname "$0")
SAMPLER="$INSTR_EXAMPLES/libqtrace-instr-sampler.so"
case $ARCH in
    x86_64) EXIT_GROUP=231 ;;   # the guest's mov $231, %eax
    aarch64) EXIT_GROUP=94 ;;   # the guest's mov x8, #94
    riscv64) EXIT_GROUP=94 ;;   # the guest's li a7, 94
    arm) EXIT_GROUP=248 ;;      # the guest's mov r7, #248 (EABI)
    *) skip "no exit_group number for $ARCH" ;;
esac
EXIT=$(expect_get exit)

# The blocks in execution order, one "pc insns" line per execution, from
# 'blocks' (start:count, in the order they run) and 'block_ranges'.
expect_get block_ranges | tr ',' '\n' |
    awk -F'[-:]' '{ print $1, $3 }' > "$WORK/insns"
expect_get blocks | tr ',' '\n' | awk -F: -v f="$WORK/insns" '
    BEGIN { while ((getline l < f) > 0) { split(l, a, " "); n[a[1]] = a[2] } }
    { for (i = 0; i < $2; i++) print $1, n[$1] }' > "$WORK/order"
BLOCKS=$(wc -l < "$WORK/order")
# Every block sampled (every=1): "pc insns blocks" for block k.
awk '{ print $1, $2, NR }' "$WORK/order" > "$WORK/want1"

"$QTRACE" record -q -o "$WORK/t.qtr" --instr "$SAMPLER" \
    --instr-arg every=1 -- "$GUEST" > /dev/null 2> "$WORK/err"
check_eq "exit status passed through" "$EXIT" "$?"
check_eq "no record refused" "" "$(cat "$WORK/err")"
"$QTRACE" dump "$WORK/t.qtr" > "$WORK/dump"
awk '$3 == "sampler:sample" { print $5, $7, $9 }' "$WORK/dump" \
    > "$WORK/got1"
if cmp -s "$WORK/want1" "$WORK/got1"; then
    pass "dump: one sampler:sample per block, pc insns blocks as built ($BLOCKS)"
else
    fail "dump: sampler:sample fields differ from the construction"
    diff "$WORK/want1" "$WORK/got1" | head -5
fi
check_eq "dump: sampler:syscall is exit_group($EXIT)" \
    "num $EXIT_GROUP arg0 $(printf '0x%x' "$EXIT")" \
    "$(awk '$3 == "sampler:syscall" { print $4, $5, $6, $7 }' "$WORK/dump")"
"$QTRACE" dump -e 'sampler:*' "$WORK/t.qtr" > "$WORK/dump-e"
check_eq "dump -e 'sampler:*': the library's events, nothing else" \
    "$((BLOCKS + 1)) $((BLOCKS + 1))" \
    "$(awk '$3 ~ /^sampler:/' "$WORK/dump-e" | wc -l) $(wc -l < "$WORK/dump-e")"
check_eq "info: sampler:sample" "$BLOCKS" \
    "$(info_count "$WORK/t.qtr" sampler:sample)"
check_eq "info: sampler:syscall" 1 \
    "$(info_count "$WORK/t.qtr" sampler:syscall)"
"$QTRACE" report --lib-events "$WORK/t.qtr" > "$WORK/report"
check_eq "report --lib-events: count per event" \
    "$BLOCKS sampler:sample,1 sampler:syscall" \
    "$(awk '$NF ~ /^sampler:/ { printf "%s%s %s", s, $1, $NF; s = "," }' \
        "$WORK/report")"

# The independent reader: raw records, layout from the embedded catalog.
"$QTRACE" record -q -O encoding=raw -O compress=off -o "$WORK/raw.qtr" \
    --instr "$SAMPLER" --instr-arg every=1 -- "$GUEST" > /dev/null 2>&1
python3 "$HERE/lib-events-read.py" "$WORK/raw.qtr" > "$WORK/py" ||
    fail "lib-events-read.py failed"
awk '{ printf "0x%x %s %s\n", $1, $2, $3 }' "$WORK/want1" > "$WORK/want1d"
awk '$2 == "sampler:sample" { split($4, p, "="); split($5, i, "=");
        split($6, b, "="); printf "0x%x %s %s\n", p[2], i[2], b[2] }' \
    "$WORK/py" > "$WORK/got1d"
if cmp -s "$WORK/want1d" "$WORK/got1d"; then
    pass "reader from the spec: the same $BLOCKS samples"
else
    fail "reader from the spec: samples differ from the construction"
    diff "$WORK/want1d" "$WORK/got1d" | head -5
fi
check_eq "reader from the spec: exit_group record" \
    "num=$EXIT_GROUP arg0=$EXIT" \
    "$(awk '$2 == "sampler:syscall" { print $4, $5 }' "$WORK/py")"
# Ids after the built-in catalog's events, in the library's order.
N_BUILTIN=$(grep -cEv '^[[:space:]]*(#|$)' "$TRACE_EVENTS")
check_eq "ids follow the built-in events" \
    "$((N_BUILTIN + 1)) $((N_BUILTIN + 2))" \
    "$(awk '!seen[$2]++ { printf "%s%s", s, $1; s = " " }' "$WORK/py")"

# every=10: blocks 10, 20... of the same order.
"$QTRACE" record -q -o "$WORK/t10.qtr" --instr "$SAMPLER" \
    --instr-arg every=10 -- "$GUEST" > /dev/null 2>&1
awk 'NR % 10 == 0' "$WORK/want1" > "$WORK/want10"
"$QTRACE" dump "$WORK/t10.qtr" |
    awk '$3 == "sampler:sample" { print $5, $7, $9 }' > "$WORK/got10"
if cmp -s "$WORK/want10" "$WORK/got10"; then
    pass "every=10: $(wc -l < "$WORK/want10") samples, blocks 10, 20..."
else
    fail "every=10: samples differ"
    diff "$WORK/want10" "$WORK/got10" | head -5
fi

# etrace has no record for them: NOTE lines, as dump prints them.
"$QTRACE" convert --to etrace "$WORK/t.qtr" "$WORK/t.etrace" 2>/dev/null ||
    fail "convert --to etrace failed"
python3 "$HERE/etrace-peer.py" decode "$WORK/t.etrace" > "$WORK/et" ||
    fail "etrace-peer.py decode failed"
check_eq "etrace: one NOTE per library event" "$((BLOCKS + 1))" \
    "$(grep -c '^N [0-9]* [0-9]* sampler:' "$WORK/et")"
# last_text FIELD FILE: the last sample's line from field FIELD on.
last_text() {
    awk -v f="$1" '$f == "sampler:sample" { l = $0; n = f }
        END { for (i = 1; i < n; i++) sub(/^[^ ]* /, "", l); print l }' "$2"
}
check_eq "etrace: NOTE text of the last sample" \
    "$(last_text 3 "$WORK/dump")" "$(last_text 4 "$WORK/et")"

# backend=log prints them as QEMU's log backend would.
"$QTRACE" record -q -O backend=log -O "backend-log=$WORK/log" \
    -o "$WORK/b.qtr" --instr "$SAMPLER" --instr-arg every=1 \
    -- "$GUEST" > /dev/null 2>&1
check_eq "backend=log: sampler:sample lines" "$BLOCKS" \
    "$(grep -c ':sampler:sample pc ' "$WORK/log")"

# backend=simple names them in its mapping records; dump -t decodes them
# with a trace-events file that declares them (the library's file with
# each name under "sampler:").
"$QTRACE" record -q -O backend=simple -O "backend-file=$WORK/t.st" \
    -o "$WORK/s.qtr" --instr "$SAMPLER" --instr-arg every=1 \
    -- "$GUEST" > /dev/null 2>&1
{ cat "$TRACE_EVENTS"
  grep -Ev '^[[:space:]]*(#|$)' \
      "$(dirname "$TRACE_EVENTS")/examples/instrument/sampler.trace-events" |
      sed 's/^/sampler:/'; } > "$WORK/events"
"$QTRACE" dump -t "$WORK/events" "$WORK/t.st" |
    awk '$1 == "sampler:sample" { split($4, p, "="); split($5, i, "=");
        split($6, b, "="); printf "%s %d %d\n", p[2], i[2], b[2] }' \
    > "$WORK/got-st"
if cmp -s "$WORK/want1" "$WORK/got-st"; then
    pass "backend=simple: the same $BLOCKS samples"
else
    fail "backend=simple: samples differ from the construction"
    diff "$WORK/want1" "$WORK/got-st" | head -5
fi

# events= without user_event: not recorded, each call refused.
"$QTRACE" record -q -e exec_tb -o "$WORK/off.qtr" --instr "$SAMPLER" \
    --instr-arg every=1 -- "$GUEST" > /dev/null 2> "$WORK/err"
check_eq "unselected: no sampler:sample" 0 \
    "$(info_count "$WORK/off.qtr" sampler:sample)"
check_grep "unselected: the library saw each refused" \
    "^sampler: $((BLOCKS + 1)) records refused" "$WORK/err"
finish
