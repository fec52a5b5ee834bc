#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Record the assembly guest of ARCH with every execution event and check
# the numbers known by construction (tests/guests/asm-ARCH.expect): exit
# status, instruction, load and store counts, accessed addresses and sizes,
# block counts, and that exec_insn agrees with exec_tb and tb_trans.
ARCH=$1
. "$(dirname "$0")/lib.sh"
use_guest asm "$ARCH"

T="$WORK/t.qtr"
"$QTRACE" record -e 'vcpu_*,tb_trans,exec_tb,exec_insn,mem_access' \
    -o "$T" -- "$GUEST" > "$WORK/out" 2> "$WORK/err"
check_eq "exit status passed through" "$(expect_get exit)" "$?"

"$QTRACE" info "$T" > "$WORK/info"
check_grep "info names the arch" "^arch: *$ARCH\$" "$WORK/info"
check_grep "info says the trace is complete" "^end: *complete" "$WORK/info"
check_eq "exec_insn count" "$(expect_get insns)" "$(info_count "$T" exec_insn)"

"$QTRACE" dump "$T" > "$WORK/dump"
check_eq "dump exit status" 0 "$?"

# Loads and stores: dump decodes the flags into "load" or "store".
awk '$3 == "mem_access" {
        kind = ""
        for (i = 4; i <= NF; i++) {
            if ($i == "vaddr") va = $(i + 1)
            if ($i == "size") sz = $(i + 1)
            if ($i == "load" || $i == "store") kind = $i
        }
        print kind, va, sz
    }' "$WORK/dump" > "$WORK/mem"
check_eq "loads" "$(expect_get loads)" "$(grep -c '^load ' "$WORK/mem")"
check_eq "stores" "$(expect_get stores)" "$(grep -c '^store ' "$WORK/mem")"

# Every expected addr:size:count, for loads and for stores, exactly.
for kind in load store; do
    for spec in $(expect_get ${kind}_addrs | tr ',' ' '); do
        addr=${spec%%:*}; rest=${spec#*:}; size=${rest%%:*}; count=${rest#*:}
        got=$(awk -v k="$kind" -v a="$addr" -v s="$size" \
              '$1 == k && $2 == a && $3 == s { n++ } END { print n + 0 }' \
              "$WORK/mem")
        check_eq "$kind $addr size $size count" "$count" "$got"
    done
done

# Block executions per start address.
for spec in $(expect_get blocks | tr ',' ' '); do
    addr=${spec%%:*}; count=${spec#*:}
    got=$(awk -v a="$addr" '$3 == "exec_tb" && $5 == a { n++ } END { print n + 0 }' \
          "$WORK/dump")
    check_eq "exec_tb at $addr" "$count" "$got"
done

# exec_insn agrees with exec_tb: the sum of n_insns of the executed blocks
# (from their tb_trans records) equals the number of exec_insn records.
sum=$(awk '$3 == "tb_trans" { n[$7] = $11 }
           $3 == "exec_tb" { s += n[$7] }
           END { print s + 0 }' "$WORK/dump")
check_eq "sum of block sizes over exec_tb" "$(expect_get insns)" "$sum"

# Every exec_insn of the loop head is disassembled (not "?").
check_eq "undisassembled instructions" 0 \
    "$(awk '$3 == "exec_insn" && $NF == "?"' "$WORK/dump" | wc -l)"

# Timestamps: the vCPU's instruction count, so the last exec_insn of the
# run has time insns - 1.
last=$(awk '$3 == "exec_insn" { t = $2 } END { print t }' "$WORK/dump")
check_eq "time of the last instruction" "$(($(expect_get insns) - 1))" "$last"
finish
