#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# dump prints a mem_access record's flags as words and its paddr and
# value only when its flags say they are valid: on the asm guest of ARCH
# (user mode: no physical addresses), every line says load or store, the
# counts are the guest's by construction, and a QEMU whose plugin API
# gives no values (7.2, API 1) shows no "value" at all.
ARCH=$1
. "$(dirname "$0")/lib.sh"
use_guest asm "$ARCH"

T="$WORK/t.qtr"
"$QTRACE" record -e mem_access -o "$T" -- "$GUEST" > /dev/null
check_eq "guest exit status" "$(expect_get exit)" "$?"
"$QTRACE" dump -e mem_access "$T" > "$WORK/dump"
check_eq "dump status" 0 "$?"
check_eq "mem_access lines" \
    "$(($(expect_get loads) + $(expect_get stores)))" \
    "$(grep -c ' mem_access ' "$WORK/dump")"
check_eq "loads (the word load)" "$(expect_get loads)" \
    "$(grep -c ' size [0-9]* load' "$WORK/dump")"
check_eq "stores (the word store)" "$(expect_get stores)" \
    "$(grep -c ' size [0-9]* store' "$WORK/dump")"
check_eq "lines with raw flags" 0 "$(grep -c ' flags 0x' "$WORK/dump")"
check_eq "lines with a paddr (user mode has none)" 0 \
    "$(grep -c ' paddr ' "$WORK/dump")"
check_eq "lines with an empty dev" 0 "$(grep -c "dev ''" "$WORK/dump")"
api=$("$QTRACE" info "$T" | sed -n 's/^plugin_api: //p')
if [ "${api:-0}" -lt 4 ]; then
    check_eq "plugin API $api gives no values: lines with a value" 0 \
        "$(grep -c ' value ' "$WORK/dump")"
else
    check_eq "plugin API $api gives values: lines without one" 0 \
        "$(grep -vc ' value 0x' "$WORK/dump")"
fi
finish
