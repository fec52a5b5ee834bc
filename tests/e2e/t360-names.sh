#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# How Debian's gzip (stripped, dynamically linked) is named under QEMU:
# - -e 'func_*' alone records image_map too; -e 'func_*,-image_map' not;
# - a function of gzip that no symbol covers is "gzip+0xELF" in dump,
#   where ELF is the entered address minus gzip's load bias (the start of
#   its offset-0 image_map record), and the same name is in report,
#   replay and uftrace replay (run on the converted trace);
# - report --functions folds name@plt into name: its calls per name are
#   the sums, per name without "@plt", of report --keep-plt.
ARCH=$1
. "$(dirname "$0")/lib.sh"
need_qemu "$ARCH"
unset DEBUGINFOD_URLS
prog=/usr/bin/gzip
[ -x "$prog" ] || skip "$prog absent"
head -c 20000 "$0" > "$WORK/in"

T="$WORK/gzip.qtr"
"$QTRACE" record -e 'func_*' -o "$T" -- "$prog" -c "$WORK/in" > /dev/null
[ "$(info_count "$T" image_map)" -gt 0 ] &&
    pass "-e 'func_*' records image_map" ||
    fail "-e 'func_*' recorded no image_map"
"$QTRACE" record -e 'func_*,-image_map' -o "$WORK/no-map.qtr" -- "$prog" \
    -c "$WORK/in" > /dev/null
check_eq "-e 'func_*,-image_map' records no image_map" 0 \
    "$(info_count "$WORK/no-map.qtr" image_map)"

path=$(readlink -f "$prog")
bias=$("$QTRACE" dump -e image_map "$T" |
       awk -v p="$path" '$11 == p && $9 == "0x0" { print $5; exit }')
[ -n "$bias" ] || fail "no offset-0 image_map record of $path"
"$QTRACE" dump -e func_entry "$T" > "$WORK/dump"
# Every "gzip+0xN" entry: N must be pc - bias.
awk '$NF ~ /^gzip\+0x/ { print $5, $NF }' "$WORK/dump" | sort -u \
    > "$WORK/named"
n=$(wc -l < "$WORK/named")
bad=$(while read -r pc name; do
          want=$(printf 'gzip+0x%x' "$((pc - bias))")
          [ "$want" = "$name" ] || { echo "$pc: $name, want $want"; break; }
      done < "$WORK/named")
if [ "$n" -gt 0 ] && [ -z "$bad" ]; then
    pass "dump: $n unnamed gzip functions as gzip+ELF address"
else
    fail "dump: gzip+ names ($n): ${bad:-none}"
fi
first=$(awk 'NR == 1 { print $2 }' "$WORK/named")
re=$(echo "$first" | sed 's/+/\\+/')     # as an extended regex
"$QTRACE" report --functions "$T" > "$WORK/report"
check_grep "report names $first" " $re\$" "$WORK/report"
"$QTRACE" replay "$T" > "$WORK/replay"
check_grep "replay names $first" " $re\(\)" "$WORK/replay"
if command -v uftrace >/dev/null 2>&1; then
    "$QTRACE" convert --to uftrace "$T" "$WORK/u" &&
        uftrace replay -d "$WORK/u" > "$WORK/ureplay" 2>&1
    check_grep "uftrace replay names $first" " $re\(\)" "$WORK/ureplay"
    check_eq "uftrace replay: no address without a name" 0 \
        "$(grep -c '<[0-9a-f]*>' "$WORK/ureplay")"
fi

check_eq "report: no name@plt by default" 0 \
    "$(awk '$4 ~ /@plt$/' "$WORK/report" | wc -l)"
"$QTRACE" report --functions --keep-plt "$T" > "$WORK/keep"
[ "$(awk '$4 ~ /@plt$/' "$WORK/keep" | wc -l)" -gt 0 ] &&
    pass "report --keep-plt shows name@plt" ||
    fail "report --keep-plt shows no name@plt"
# A stub's call goes on in the function its jump reaches (a tail call):
# folded, the stub counts no call of its own, so every function keeps
# the calls it has with --keep-plt, and the stubs' rows are gone.
awk 'NR > 2 && $4 !~ /@plt$/ { print $4, $3 }' "$WORK/keep" | sort \
    > "$WORK/functions"
awk 'NR > 2 { print $4, $3 }' "$WORK/report" | sort > "$WORK/folded"
check_eq "report: folded calls per function are its calls without stubs" "" \
    "$(diff "$WORK/functions" "$WORK/folded" | head -3)"
finish
