#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# exec_insn and exec_tb bring tb_trans along unless -tb_trans removes it:
# with -e exec_insn alone every instruction of the asm guest of ARCH is
# disassembled (no '?'), each block's code recorded once per distinct
# block of the guest's construction; -e exec_insn,-tb_trans keeps the
# trace without them, as asked.
ARCH=$1
. "$(dirname "$0")/lib.sh"
use_guest asm "$ARCH"
n_blocks=$(expect_get blocks | tr ',' '\n' | wc -l)

T="$WORK/t.qtr"
"$QTRACE" record -e exec_insn -o "$T" -- "$GUEST" > /dev/null
check_eq "guest exit status" "$(expect_get exit)" "$?"
check_eq "exec_insn records" "$(expect_get insns)" \
    "$(info_count "$T" exec_insn)"
n=$(info_count "$T" tb_trans)
if [ "$n" -ge "$n_blocks" ]; then
    pass "tb_trans recorded with exec_insn ($n for $n_blocks blocks)"
else
    fail "tb_trans with exec_insn: $n records for $n_blocks blocks"
fi
"$QTRACE" dump -e exec_insn "$T" > "$WORK/dump"
check_eq "instructions shown as '?'" 0 "$(grep -c '| ?$' "$WORK/dump")"

"$QTRACE" record -e exec_tb -O encoding=raw -o "$T" -- "$GUEST" > /dev/null
n=$(info_count "$T" tb_trans)
if [ "$n" -ge "$n_blocks" ]; then
    pass "tb_trans recorded with exec_tb (raw encoding; $n records)"
else
    fail "tb_trans with exec_tb (raw encoding): $n records"
fi

"$QTRACE" record -e exec_insn,-tb_trans -o "$T" -- "$GUEST" > /dev/null
check_eq "-tb_trans given: tb_trans records" 0 "$(info_count "$T" tb_trans)"
check_eq "-tb_trans given: exec_insn records" "$(expect_get insns)" \
    "$(info_count "$T" exec_insn)"
finish
