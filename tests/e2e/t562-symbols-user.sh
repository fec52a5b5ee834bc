#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# --symbols in user mode: the calls-ARCH guest stripped (its own
# binutils), traced with func_entry and func_exit. Without its debug
# file its own functions are "prog+0xADDR"; `--symbols` with the
# unstripped original names them as nm says in the original, at the
# addresses nm gives: in dump (each function's entries), report
# --functions (fact: 5 calls, by construction in calls.c), replay and
# uftrace's replay of `convert --to uftrace`. The option's names win
# over the stripped program's own image at the same addresses.
ARCH=$1
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"
use_guest calls "$ARCH"
export QTRACE_DEBUGINFO_PATH=/nonexistent   # no debug file is found

case $ARCH in
x86_64) BU= ;;
*) BU=$ARCH-linux-gnu- ;;
esac
command -v "${BU}objcopy" > /dev/null 2>&1 && command -v "${BU}nm" \
    > /dev/null 2>&1 || skip "${BU}objcopy or ${BU}nm not installed"
"${BU}objcopy" --strip-all "$GUEST" "$WORK/prog"
T="$WORK/t.qtr"
"$QTRACE" record -e 'func_*' -o "$T" -- "$WORK/prog" > /dev/null 2>&1
"$QTRACE" dump -e func_entry "$T" > "$WORK/plain"

# The guest's own functions (calls.c) that the run enters by a call
# (aarch64's glibc reaches main by a jump).
FUNCS="fact apply add_one twice jump_outer jump_middle jump_inner
after_jump raise_signal in_handler run_threads worker work_item"
"${BU}nm" "$GUEST" > "$WORK/nm"

# name_at DUMP ADDR: the names dump gives func_entry at ADDR, one line.
name_at() {
    awk -v pc="$2" '$5 == pc { print $NF }' "$1" | sort -u | tr '\n' ' '
}

"$QTRACE" dump -e func_entry --symbols "$GUEST" "$T" > "$WORK/named"
bad_plain='' bad_named='' n=0
for f in $FUNCS; do
    addr=$(awk -v f="$f" '$3 == f && $2 ~ /^[tT]$/ { print "0x" $1 }' \
           "$WORK/nm" | sed 's/0x0*/0x/')
    [ -n "$addr" ] || { fail "nm: no $f"; continue; }
    n=$((n + 1))
    case $(name_at "$WORK/plain" "$addr") in
        "prog+$addr ") ;;
        *) bad_plain="$bad_plain $f:$(name_at "$WORK/plain" "$addr")" ;;
    esac
    [ "$(name_at "$WORK/named" "$addr")" = "$f " ] ||
        bad_named="$bad_named $f@$addr:$(name_at "$WORK/named" "$addr")"
done
check_eq "without --symbols: the $n functions as prog+ADDR" "" "$bad_plain"
check_eq "dump --symbols: the $n functions named as nm says" "" \
    "$bad_named"

"$QTRACE" report --functions --symbols "$GUEST" "$T" > "$WORK/report"
check_eq "report --functions --symbols: fact's calls" 5 \
    "$(awk '$4 == "fact" { print $3 }' "$WORK/report")"
"$QTRACE" replay --symbols "$GUEST" "$T" > "$WORK/replay"
check_eq "replay --symbols: fact() lines" 5 \
    "$(grep -c '| *fact()' "$WORK/replay")"
if command -v uftrace > /dev/null 2>&1; then
    "$QTRACE" convert --symbols "$GUEST" --to uftrace "$T" "$WORK/u"
    uftrace replay -d "$WORK/u" > "$WORK/ureplay" 2>&1
    check_eq "uftrace replay of convert --symbols: fact() lines" 5 \
        "$(grep -c '| *fact()' "$WORK/ureplay")"
fi

# A PIE (calls-dyn-ARCH) stripped: its file holds no load address, so
# --symbols ORIGINAL@START_CODE places it (qtrace info's start_code).
PIE="$GUESTS/calls-dyn-$ARCH"
if [ -x "$PIE" ]; then
    "${BU}objcopy" --strip-all "$PIE" "$WORK/pie"
    "$QTRACE" record -q -e 'func_*' -o "$WORK/pie.qtr" -- "$WORK/pie" \
        > /dev/null 2>&1
    sc=$("$QTRACE" info "$WORK/pie.qtr" | awk '$1 == "start_code:" { print $2 }')
    check_eq "PIE without --symbols: fact unnamed" "" \
        "$("$QTRACE" report --functions "$WORK/pie.qtr" |
           awk '$4 == "fact" { print $3 }')"
    check_eq "PIE --symbols ORIGINAL@$sc: fact's calls" 5 \
        "$("$QTRACE" report --functions --symbols "$PIE@$sc" \
               "$WORK/pie.qtr" | awk '$4 == "fact" { print $3 }')"
fi
finish
