#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# --symbols names the calls of a system-mode guest: the bare-metal guest
# bare-x86_64 calls leaf 3 times (bare-x86_64.expect); traced with
# func_entry and func_exit under qemu-system-x86_64 7.2 or 10.0, the
# called address must be named as nm names it in bare-x86_64.elf by
# `report --functions`, `replay` and, through `convert --to uftrace`,
# by uftrace's own replay; without --symbols report shows it in hex.
# Usage: t561-symbols-calls-system.sh 7.2|10.0.
PART=${1:?usage: t561-symbols-calls-system.sh 7.2|10.0}
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"
TEST_NAME=t561-symbols-calls-system-$PART
# shellcheck source=tests/e2e/bare-lib.sh
. "$(dirname "$0")/bare-lib.sh"

[ -f "$BARE_BIN" ] && [ -f "$BARE_ELF" ] || skip "guest bare-x86_64 not built"
command -v nm > /dev/null 2>&1 || skip "nm not installed (binutils)"
command -v python3 > /dev/null 2>&1 || skip "python3 not installed"
qemu=$(bare_qemus | awk -v p="$PART" '$1 == p { print $2, $3 }')
[ -n "$qemu" ] || skip "no QEMU $PART (qemu-system-x86 or QEMU10_DIR)"
T="$WORK/t.qtr"
calls=$(expect_get leaf_calls)

# shellcheck disable=SC2086
run_bare $qemu "out=$T,events=vcpu_*;tb_trans;exec_tb;func_*"
check_eq "QEMU exit status" "$(expect_get exit)" "$status"

# The one function entered, and its name as nm says (name+0x0: a start).
"$QTRACE" dump -e func_entry "$T" | awk '{ print $5 }' | sort -u \
    > "$WORK/pcs"
nm "$BARE_ELF" > "$WORK/nm"
want=$(python3 "$(dirname "$0")/nm-names.py" "$WORK/nm" < "$WORK/pcs")
case $want in
    *"+0x0") name=${want##* }; name=${name%+0x0}
             pass "nm: the entered address $want" ;;
    *) name=none; fail "nm: entered addresses: $want" ;;
esac

"$QTRACE" report --functions "$T" > "$WORK/plain"
check_eq "report without --symbols: the call in hex" \
    "$calls $(cat "$WORK/pcs")" \
    "$(awk '$3 ~ /^[0-9]+$/ { print $3, $4 }' "$WORK/plain")"
"$QTRACE" report --functions --symbols "$BARE_ELF" "$T" > "$WORK/report"
check_eq "report --functions --symbols: calls of $name" "$calls $name" \
    "$(awk '$3 ~ /^[0-9]+$/ { print $3, $4 }' "$WORK/report")"

"$QTRACE" replay --symbols "$BARE_ELF" "$T" > "$WORK/replay"
check_eq "replay --symbols: $name() lines" "$calls" \
    "$(grep -c "| $name();\$" "$WORK/replay")"

command -v uftrace > /dev/null 2>&1 || {
    echo "(uftrace not installed: convert --to uftrace not checked)"
    finish
}
"$QTRACE" convert --symbols "$BARE_ELF" --to uftrace "$T" "$WORK/u"
check_eq "convert --to uftrace --symbols status" 0 $?
uftrace replay -d "$WORK/u" > "$WORK/ureplay" 2>&1
check_eq "uftrace replay: $name() lines" "$calls" \
    "$(grep -c "| $name();\$" "$WORK/ureplay")"
finish
