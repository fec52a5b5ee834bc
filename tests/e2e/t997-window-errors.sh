#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Bad window values are refused before the guest runs, with one line
# naming the option: by the plugin (QEMU does not start the guest) and
# by qtrace record (usage status 2, before QEMU starts). record's
# --stop-at and --snapshot-at reach the plugin, and its summary line
# says what the ring left out.
. "$(dirname "$0")/lib.sh"
use_guest asm x86_64

# refuse OPTIONS EXPECTED_LINE: the plugin refuses, saying EXPECTED_LINE.
refuse() {
    "qemu-x86_64" -plugin "$QTRACE_PLUGIN,out=$WORK/t.qtr,$1" "$GUEST" \
        > /dev/null 2> "$WORK/err"
    st=$?
    if [ $st -eq 0 ]; then
        fail "$1: accepted"
        return
    fi
    check_eq "$1: one qtrace line" "$2" "$(grep '^qtrace:' "$WORK/err")"
    check_eq "$1: no trace" no "$([ -e "$WORK/t.qtr" ] && echo yes || echo no)"
    rm -f "$WORK/t.qtr"
}

refuse "start-at=" "qtrace: start-at=: expected a count, 0xADDRESS, a symbol or marker"
refuse "start-at=12ab" \
    "qtrace: start-at=12ab: expected a count, 0xADDRESS, a symbol or marker"
refuse "start-at=0xfoo" \
    "qtrace: start-at=0xfoo: expected a count, 0xADDRESS, a symbol or marker"
refuse "start-at=-3" "qtrace: start-at=-3: expected a count, 0xADDRESS, a symbol or marker"
refuse "stop-after=0" \
    "qtrace: stop-after=0: expected a count of instructions (1 or more)"
refuse "stop-after=-5" \
    "qtrace: stop-after=-5: expected a count of instructions (1 or more)"
refuse "stop-after=1k" \
    "qtrace: stop-after=1k: expected a count of instructions (1 or more)"
refuse "stop-after=99999999999999999999999" \
    "qtrace: stop-after=99999999999999999999999: expected a count of instructions (1 or more)"
refuse "events=tb_count,start-at=10" \
    "qtrace: tb_count: cannot be recorded with start-at= (its counters are QEMU's, for the whole run)"
refuse "events=tb_count,stop-at=marker" \
    "qtrace: tb_count: cannot be recorded with stop-at= (its counters are QEMU's, for the whole run)"
refuse "stop-at=1000" "qtrace: stop-at=1000: expected 0xADDRESS, a symbol or marker"
refuse "snapshot-at=main()" \
    "qtrace: snapshot-at=main(): expected 0xADDRESS, a symbol or marker"
refuse "snapshot-at=marker" \
    "qtrace: snapshot-at=marker: needs the flight recorder (ring=SIZE): a snapshot writes its rings"

"$QTRACE" record --start-at=1x -o "$WORK/t.qtr" -- "$GUEST" \
    > /dev/null 2> "$WORK/err"
check_eq "record --start-at=1x: usage status" 2 "$?"
check_eq "record --start-at=1x: the line" \
    "qtrace record: --start-at=1x: expected a count, 0xADDRESS, a symbol or marker" \
    "$(head -1 "$WORK/err")"
check_eq "record --start-at=1x: no trace" no \
    "$([ -e "$WORK/t.qtr" ] && echo yes || echo no)"
"$QTRACE" record --stop-after=0 -o "$WORK/t.qtr" -- "$GUEST" \
    > /dev/null 2> "$WORK/err"
check_eq "record --stop-after=0: usage status" 2 "$?"
check_eq "record --stop-after=0: the line" \
    "qtrace record: --stop-after=0: expected a count of instructions (1 or more)" \
    "$(head -1 "$WORK/err")"
"$QTRACE" record --stop-at=1000 -o "$WORK/t.qtr" -- "$GUEST" \
    > /dev/null 2> "$WORK/err"
check_eq "record --stop-at=1000: usage status" 2 "$?"
check_eq "record --stop-at=1000: the line" \
    "qtrace record: --stop-at=1000: expected 0xADDRESS, a symbol or marker" \
    "$(head -1 "$WORK/err")"

# record --snapshot-at with --ring: two snapshots, and the summary says
# how many records the ring left out, as END does.
use_guest markers x86_64
"$QTRACE" record -e exec_tb --ring=128k -O chunk=64k --snapshot-at=marker \
    --stop-at=exit -o "$WORK/r.qtr" -- "$GUEST" 30 > /dev/null 2> "$WORK/err"
check_eq "record --snapshot-at: status" 0 "$?"
"$QTRACE" info "$WORK/r.qtr" > "$WORK/info"
check_grep "record --snapshot-at: two snapshots" "^snapshots: 2\$" "$WORK/info"
dropped=$(sed -n 's/^ring_dropped: //p' "$WORK/info")
check_grep "record --snapshot-at: the summary says what the ring left out" \
    "^qtrace record: [0-9]+ instructions, [0-9]+ records, .*, 0 lost, $dropped left out by the ring -> " \
    "$WORK/err"
finish
