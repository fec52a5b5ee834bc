#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The execlog-style text log (log=FILE) of the assembly guest of ARCH: one
# line per executed instruction in execlog's layout, and the same
# instructions and accesses, in the same order, as the native trace
# recorded in the same run.
ARCH=$1
. "$(dirname "$0")/lib.sh"
use_guest asm "$ARCH"

T="$WORK/t.qtr"
LOG="$WORK/exec.log"
"$QTRACE" record -e 'tb_trans,exec_insn,mem_access' -O "log=$LOG" \
    -o "$T" -- "$GUEST" > /dev/null 2>&1
check_eq "exit status" "$(expect_get exit)" "$?"

check_eq "log lines" "$(expect_get insns)" "$(wc -l < "$LOG")"
bad=$(grep -Evc '^0, 0x[0-9a-f]+, 0x[0-9a-f]+, "[^"]+"(, (load|store), 0x[0-9a-f]{8,})*$' "$LOG")
check_eq "lines not in execlog layout" 0 "$bad"
check_eq "log loads" "$(expect_get loads)" "$(grep -o ', load, ' "$LOG" | wc -l)"
check_eq "log stores" "$(expect_get stores)" "$(grep -o ', store, ' "$LOG" | wc -l)"

# Same sequence: "pc [kind addr]..." per instruction, hex without leading
# zeros, from the log and from the trace.
sed -e 's/^0, //' -e 's/, 0x[0-9a-f]*, "[^"]*"//' -e 's/, / /g' "$LOG" |
    awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^0x/) sub(/^0x0*/, "0x", $i);
           print }' > "$WORK/from-log"
"$QTRACE" dump -e 'exec_insn,mem_access' "$T" |
    awk '$3 == "exec_insn" { if (line != "") print line; line = $5 }
         $3 == "mem_access" {
             for (i = 4; i <= NF; i++) {
                 if ($i == "vaddr") va = $(i + 1)
                 if ($i == "load" || $i == "store") kind = $i
             }
             line = line " " kind " " va
         }
         END { if (line != "") print line }' |
    awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^0x/) sub(/^0x0*/, "0x", $i);
           print }' > "$WORK/from-trace"
if cmp -s "$WORK/from-log" "$WORK/from-trace"; then
    pass "log and trace list the same instructions and accesses"
else
    fail "log and trace differ:"
    diff "$WORK/from-log" "$WORK/from-trace" | head -5
fi
finish
