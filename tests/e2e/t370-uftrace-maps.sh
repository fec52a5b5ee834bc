#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The uftrace export's sid-0.map lists each module once, at its real base
# (the start of its offset-0 image_map record), and the real uftrace
# names the calls: main in the PIE guest calls-dyn-ARCH, and every call
# of Debian's /usr/bin/ls (stripped: module+offset names) has a name.
ARCH=$1
. "$(dirname "$0")/lib.sh"
use_guest calls-dyn "$ARCH"
command -v uftrace >/dev/null 2>&1 || skip "uftrace not installed"
unset DEBUGINFOD_URLS

# check_maps NAME TRACE DIR: one map line per path, at its record's base.
check_maps() {
    "$QTRACE" dump -e image_map "$2" |
        awk '$9 == "0x0" && !seen[$11]++ { print $11, $5 }' > "$WORK/bases"
    awk '$6 != "[stack]" { sub(/#[0-9]+$/, "", $6); print $6 }' \
        "$3/sid-0.map" | sort | uniq -d \
        > "$WORK/dups"
    check_eq "$1: modules listed twice in sid-0.map" "" \
        "$(tr '\n' ' ' < "$WORK/dups")"
    bad=$(awk '$6 != "[stack]" { split($1, r, "-"); print $6, r[1] }' \
              "$3/sid-0.map" |
          while read -r p start; do
              want=$(awk -v p="$p" '$1 == p { print $2 }' "$WORK/bases")
              [ -z "$want" ] && continue
              [ "$((0x$start))" = "$((want))" ] ||
                  { echo "$p at 0x$start, want $want"; break; }
          done)
    check_eq "$1: every module at its base" "" "$bad"
}

T="$WORK/guest.qtr"
"$QTRACE" record -e 'func_*,image_map' -o "$T" -- "$GUEST" > /dev/null
"$QTRACE" convert --to uftrace "$T" "$WORK/g"
check_maps calls-dyn "$T" "$WORK/g"
uftrace replay -d "$WORK/g" > "$WORK/g.replay" 2>&1
check_grep "uftrace replay shows main" "\| +main\(\) \{" "$WORK/g.replay"
check_grep "uftrace replay shows fact under main" "\| +fact\(\)" \
    "$WORK/g.replay"

if [ -x /usr/bin/ls ]; then
    T="$WORK/ls.qtr"
    "$QTRACE" record -e 'func_*,image_map' -o "$T" -- /usr/bin/ls / > /dev/null
    "$QTRACE" convert --to uftrace "$T" "$WORK/l"
    check_maps ls "$T" "$WORK/l"
    uftrace replay -d "$WORK/l" > "$WORK/l.replay" 2>&1
    check_eq "ls: uftrace replay lines without a name" 0 \
        "$(grep -c '<[0-9a-f]*>' "$WORK/l.replay")"
    check_grep "ls: uftrace replay names unnamed code ls+0x..." \
        "\| +ls\+0x[0-9a-f]+\(\)" "$WORK/l.replay"
fi
finish
