#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# start-at=SYMBOL and start-at=0xADDR on the calls guest of ARCH (three
# threads): vCPU 0 opens its window at its first block holding the
# function's first instruction (address from nm, not from qtrace), and
# its records for stop-after=M instructions are those of a full trace of
# the same run; the worker threads never run the function and record no
# block; with start-at=work_item each worker thread opens its own
# window there. A symbol the program lacks is said on one line and nothing is
# recorded.
ARCH=$1
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/window-lib.sh"
use_guest calls "$ARCH"
command -v nm > /dev/null || skip "nm not installed (binutils)"

FN=jump_outer
M=300
EV='exec_tb;exec_insn;mem_access;tb_trans;vcpu_init'
addr=$(nm "$GUEST" | awk -v f="$FN" '$3 == f { print "0x" $1; exit }' |
       sed -E 's/0x0+/0x/')
[ -n "$addr" ] || skip "no $FN in $GUEST"

"qemu-$ARCH" -plugin "$QTRACE_PLUGIN,out=$WORK/full.qtr,events=$EV" \
    "$GUEST" > /dev/null 2> "$WORK/err"
check_eq "full run status" 0 "$?"
"$QTRACE" dump "$WORK/full.qtr" > "$WORK/full"
open=$(awk -v pc=$((addr)) '
    $3 == "tb_trans" { len[$7] = $9 }
    $1 == 0 && $3 == "exec_tb" {
        start = strtonum($5)
        if (start <= pc && pc < start + len[$7]) { print $2; exit }
    }' "$WORK/full" 2> /dev/null)
if [ -z "$open" ]; then
    # mawk has no strtonum: compare in the shell instead.
    open=$(awk '$3 == "tb_trans" { print "T", $7, $5, $9 }
                $1 == 0 && $3 == "exec_tb" { print "E", $7, $5, $2 }' \
               "$WORK/full" | while read -r k tb pc x; do
        if [ "$k" = T ]; then
            eval "len_$tb=$x"
        elif [ $((pc)) -le $((addr)) ] &&
             [ $((addr)) -lt $((pc + $(eval echo "\$len_$tb"))) ]; then
            echo "$x"; break
        fi
    done)
fi
close=$(window_block_from "$WORK/full" 0 $((open + M)))
window_cut "$WORK/full" 0 "$open" "$close" > "$WORK/cut"

for how in "$FN" "$addr"; do
    rm -f "$WORK/w.qtr"
    "qemu-$ARCH" -plugin \
        "$QTRACE_PLUGIN,out=$WORK/w.qtr,events=$EV,start-at=$how,stop-after=$M" \
        "$GUEST" > /dev/null 2> "$WORK/err"
    check_eq "start-at=$how: status" 0 "$?"
    "$QTRACE" dump "$WORK/w.qtr" > "$WORK/w"
    check_eq "start-at=$how: opens at the block holding $addr" "$open" \
        "$(window_switch "$WORK/w" 0 1)"
    check_eq "start-at=$how: closes at the first block from $((open + M))" \
        "$close" "$(window_switch "$WORK/w" 0 0)"
    window_records "$WORK/w" 0 > "$WORK/win"
    window_compare "start-at=$how stop-after=$M" "$WORK/cut" "$WORK/win"
    check_eq "start-at=$how: blocks of other vCPUs" 0 \
        "$(awk '$1 != 0 && $3 == "exec_tb"' "$WORK/w" | wc -l)"
done

# Per thread: each worker opens its own window at its first work_item
# (a function entry: the block starts there), main never runs it.
wi=$(nm "$GUEST" | awk '$3 == "work_item" { print "0x" $1; exit }' |
     sed -E 's/0x0+/0x/')
"qemu-$ARCH" -plugin \
    "$QTRACE_PLUGIN,out=$WORK/t.qtr,events=$EV,start-at=work_item,stop-after=50" \
    "$GUEST" > /dev/null 2> "$WORK/err"
check_eq "start-at=work_item: status" 0 "$?"
"$QTRACE" dump "$WORK/t.qtr" > "$WORK/t"
check_eq "start-at=work_item: main's blocks" 0 \
    "$(awk '$1 == 0 && $3 == "exec_tb"' "$WORK/t" | wc -l)"
for v in 1 2; do
    open=$(window_switch "$WORK/t" $v 1)
    off=$(window_switch "$WORK/t" $v 0)
    check_eq "start-at=work_item: vCPU $v's first block" "$wi" \
        "$(awk -v s=$v '$1 == s && $3 == "exec_tb" { print $5; exit }' "$WORK/t")"
    if [ -n "$open" ] && [ -n "$off" ] && [ "$off" -ge $((open + 50)) ] &&
       [ "$off" -lt $((open + 50 + 512)) ]; then
        pass "start-at=work_item: vCPU $v's window $open-$off"
    else
        fail "start-at=work_item: vCPU $v's window '$open'-'$off'"
    fi
done

"qemu-$ARCH" -plugin \
    "$QTRACE_PLUGIN,out=$WORK/n.qtr,events=$EV,start-at=no_such_function" \
    "$GUEST" > /dev/null 2> "$WORK/err"
check_eq "unknown symbol: the guest runs" 0 "$?"
check_eq "unknown symbol: one line" 1 "$(wc -l < "$WORK/err")"
check_grep "unknown symbol: named" \
    "^qtrace: start-at=no_such_function: no such symbol in .*calls-$ARCH; nothing is recorded\$" \
    "$WORK/err"
"$QTRACE" dump "$WORK/n.qtr" > "$WORK/n"
check_eq "unknown symbol: no block recorded" 0 \
    "$(awk '$3 == "exec_tb"' "$WORK/n" | wc -l)"
finish
