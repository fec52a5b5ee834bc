#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Symbols of stripped programs from their separate debug files, found the
# way the elfutils tools find them. The calls-ARCH guest is stripped (its
# own binutils), its debug part kept apart (objcopy --only-keep-debug):
# once under a debug root in the build-id layout (.build-id/xx/yyyy.debug,
# named by QTRACE_DEBUGINFO_PATH), once beside it in .debug/ through a
# .gnu_debuglink. fact must then be named at the address readelf gives in
# the unstripped guest, and must stay unnamed with no debug file. On
# x86_64, the host's libc.so.6 (stripped by Debian) gets the local names
# of libc6-dbg's build-id file: __libc_start_call_main, absent from libc's
# dynamic symbols, is entered where nm puts it in the debug file.
ARCH=$1
. "$(dirname "$0")/lib.sh"
use_guest calls "$ARCH"
unset DEBUGINFOD_URLS             # the search stays on this machine

case $ARCH in
x86_64) BU= ;;
arm) BU=arm-linux-gnueabihf- ;;
*) BU=$ARCH-linux-gnu- ;;
esac
command -v "${BU}objcopy" >/dev/null 2>&1 ||
    skip "${BU}objcopy not installed (binutils for $ARCH)"
command -v readelf >/dev/null 2>&1 || skip "readelf not installed (binutils)"

# value FILE NAME: the symbol's address as 0x..., without a Thumb bit.
value() {
    readelf -sW "$1" | awk -v n="$2" '$8 == n { print $2; exit }' |
        { read -r v; printf '0x%x\n' "$((0x$v & ~1))"; }
}
fact=$(value "$GUEST" fact)
[ "$fact" != 0x0 ] || fail "fact: no symbol in the guest"
# build_id FILE: the hex of its NT_GNU_BUILD_ID note.
build_id() {
    readelf -nW "$1" | sed -n 's/.*Build ID: *//p' | head -1
}
id=$(build_id "$GUEST")
[ -n "$id" ] || skip "calls-$ARCH has no build-id note"

mkdir -p "$WORK/bin/.debug" "$WORK/root/.build-id/$(echo "$id" | cut -c1-2)"
"${BU}objcopy" --only-keep-debug "$GUEST" \
    "$WORK/root/.build-id/$(echo "$id" | cut -c1-2)/$(echo "$id" | cut -c3-).debug"
"${BU}objcopy" --strip-all "$GUEST" "$WORK/bin/by-id"
"${BU}objcopy" --only-keep-debug "$GUEST" "$WORK/bin/.debug/by-link.debug"
"${BU}objcopy" --strip-all \
    --add-gnu-debuglink="$WORK/bin/.debug/by-link.debug" "$GUEST" \
    "$WORK/bin/by-link"
check_eq "stripped: no symbol table" 0 \
    "$(readelf -SW "$WORK/bin/by-id" | grep -c '\.symtab')"

# fact_calls SEARCH TRACE: calls of fact in 'report --functions' with
# the debug file search path SEARCH, 0 if unnamed.
fact_calls() {
    QTRACE_DEBUGINFO_PATH=$1 "$QTRACE" report --functions "$2" 2>/dev/null |
        awk '$4 == "fact" { print $3; exit }' | { read -r n; echo "${n:-0}"; }
}
# entries TRACE PC: func_entry records entering PC.
entries() {
    "$QTRACE" dump -e func_entry "$1" |
        awk -v pc="$2" '$5 == pc { n++ } END { print n + 0 }'
}

for how in by-id by-link; do
    T="$WORK/$how.qtr"
    "$QTRACE" record -e 'func_*' -o "$T" -- "$WORK/bin/$how" > /dev/null
    n=$(entries "$T" "$fact")
    [ "$n" -gt 0 ] || fail "$how: fact at $fact never entered"
    check_eq "$how: no debug file, fact unnamed" 0 \
        "$(fact_calls /nonexistent "$T")"
    check_eq "$how: fact named from the debug file ($n calls at $fact)" \
        "$n" "$(fact_calls ":.debug:$WORK/root" "$T")"
done

if [ "$ARCH" = x86_64 ] && [ -x "$GUESTS/calls-dyn-x86_64" ]; then
    libc=$(ldd "$GUESTS/calls-dyn-x86_64" |
           awk '$1 == "libc.so.6" { print $3 }')
    libc=$(readlink -f "$libc")
    lid=$(build_id "$libc")
    dbg=/usr/lib/debug/.build-id/$(echo "$lid" | cut -c1-2)/$(echo "$lid" | cut -c3-).debug
    if [ ! -r "$dbg" ]; then
        echo "SKIP libc part: $dbg absent (Debian package libc6-dbg)"
    else
        check_eq "libc's dynamic symbols lack __libc_start_call_main" 0 \
            "$(nm -D "$libc" | grep -c ' __libc_start_call_main$')"
        T="$WORK/libc.qtr"
        "$QTRACE" record -e 'func_*' -o "$T" -- \
            "$GUESTS/calls-dyn-x86_64" > /dev/null
        bias=$("$QTRACE" dump -e image_map "$T" |
               awk -v p="$libc" '$11 == p && $9 == "0x0" { print $5; exit }')
        v=$(nm "$dbg" | awk '$3 == "__libc_start_call_main" { print $1 }')
        pc=$(printf '0x%x' "$((bias + 0x$v))")
        check_eq "__libc_start_call_main named at $pc" \
            "__libc_start_call_main" \
            "$("$QTRACE" dump -e func_entry "$T" |
               awk -v pc="$pc" '$5 == pc { print $NF; exit }')"
    fi
fi
finish
