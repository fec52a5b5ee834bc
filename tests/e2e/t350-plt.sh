#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# PLT stubs named after the GOT slot they jump through, against binutils.
# For Debian's own files of ARCH (on x86_64 ls, gzip and libc.so.6, and a
# program linked here with -z ibtplt; else the cross libc.so.6 and
# libm.so.6), every stub that objdump -d names must carry the same name in
# qtrace's symbols (symlist); a stub objdump calls "*ABS*+0xT@plt" (an
# IRELATIVE slot) must be named after an IFUNC symbol nm -D shows at T. On x86_64, ls then runs under QEMU: every
# function entered in libc's PLT is named as objdump names that stub
# (relocation order would call memchr's stub _dl_allocate_tls@plt).
ARCH=$1
. "$(dirname "$0")/lib.sh"

case $ARCH in
x86_64) BU=; files="/usr/bin/ls /usr/bin/gzip" ;;
arm) BU=arm-linux-gnueabihf-; files= ;;
*) BU=$ARCH-linux-gnu-; files= ;;
esac
command -v "${BU}objdump" >/dev/null 2>&1 ||
    skip "${BU}objdump not installed (binutils for $ARCH)"
if [ "$ARCH" = x86_64 ]; then
    libc=$(readlink -f "$(ldd /usr/bin/ls | awk '$1 == "libc.so.6" { print $3 }')")
    files="$files $libc"
    # An IBT layout: endbr64 stubs in .plt.sec and .plt.got.
    printf '#include <stdio.h>\nint main(void) { printf("%%d\\n", 1); return 0; }\n' \
        > "$WORK/ibt.c"
    if gcc -O1 -fcf-protection=full -Wl,-z,ibtplt -o "$WORK/ibt" \
           "$WORK/ibt.c" 2>/dev/null; then
        files="$files $WORK/ibt"
    fi
else
    dir=/usr/${BU%-}/lib
    [ -r "$dir/libc.so.6" ] || skip "$dir/libc.so.6 absent (cross libc)"
    files="$dir/libc.so.6 $dir/libm.so.6"
fi

# expected FILE: "0xADDR NAME@plt" per stub objdump names, IRELATIVE
# stubs by the IFUNC symbols at their resolver ("A|B" when several).
expected() {
    "${BU}nm" -D --defined-only "$1" | awk '$2 == "i" { print $1, $3 }' \
        > "$WORK/ifuncs"
    "${BU}objdump" -d "$1" |
        sed -n 's/^0*\([0-9a-f]*\) <\(.*@plt\)>:$/\1 \2/p' |
        awk -v ifuncs="$WORK/ifuncs" '
            BEGIN { while ((getline l < ifuncs) > 0) {
                        split(l, f, " "); sub(/^0+/, "", f[1]); sub(/@.*/, "", f[2])
                        alts = f[2] "@plt"
                        if (f[1] in i) alts = i[f[1]] "|" alts
                        i[f[1]] = alts } }
            { name = $2
              if (name ~ /^\*ABS\*\+0x/) {
                  t = substr(name, 9); sub(/@plt$/, "", t)
                  if (t in i) name = i[t] }
              print "0x" $1, name }'
}

for f in $files; do
    b=$(basename "$f")
    expected "$f" > "$WORK/$b.want"
    "$SYMLIST" "$f" | awk '{ print $1, $3 }' > "$WORK/$b.got"
    bad=$(awk -v got="$WORK/$b.got" '
            BEGIN { while ((getline l < got) > 0) { split(l, f, " "); g[f[1]] = f[2] } }
            { n = split($2, alt, "|"); ok = 0
              for (k = 1; k <= n; k++) ok = ok || g[$1] == alt[k]
              if (!ok) { print $1, "want", $2, "got", g[$1]; exit } }' \
          "$WORK/$b.want")
    n=$(wc -l < "$WORK/$b.want")
    if [ "$n" -gt 0 ] && [ -z "$bad" ]; then
        pass "$b: the $n PLT stubs objdump names"
    else
        fail "$b: PLT stubs ($n from objdump): ${bad:-none found}"
    fi
done

# A static x86_64 program's .plt of IRELATIVE stubs, which objdump leaves
# unnamed: each stub (the slot from objdump's "jmp *...(%rip) # SLOT")
# must be named after an IFUNC symbol nm shows at the addend readelf
# gives that slot's relocation.
static=$GUESTS/calls-$ARCH
if [ "$ARCH" = x86_64 ] && [ -x "$static" ]; then
    objdump -d -j .plt "$static" |
        awk '/jmp +\*.*\(%rip\) +# / { a = $1; sub(":", "", a)
                 for (k = 1; k <= NF; k++) if ($k == "#") s = $(k + 1)
                 print a, s }' > "$WORK/stubs"
    readelf -rW "$static" | awk '$3 ~ /IRELATIV/ { print $1, $4 }' \
        > "$WORK/irel"
    nm "$static" | awk '$2 == "i" { print $1, $3 }' > "$WORK/ifuncs"
    "$SYMLIST" "$static" | awk '{ print $1, $3 }' > "$WORK/static.got"
    bad=$(awk -v irel="$WORK/irel" -v ifn="$WORK/ifuncs" \
              -v got="$WORK/static.got" '
            function norm(x) { sub(/^0x/, "", x); sub(/^0+/, "", x); return x }
            BEGIN { while ((getline l < irel) > 0) { split(l, f, " "); t[norm(f[1])] = norm(f[2]) }
                    while ((getline l < ifn) > 0) { split(l, f, " "); i[norm(f[1]) " " f[2] "@plt"] = 1 }
                    while ((getline l < got) > 0) { split(l, f, " "); g[norm(f[1])] = f[2] } }
            { stub = norm($1); slot = norm($2)
              if (!(slot in t)) next
              n++
              if (!((t[slot] " " g[stub]) in i)) { print stub, "got", g[stub]; exit } }
            END { if (!n) print "no IRELATIVE stub" }' "$WORK/stubs")
    check_eq "static calls-$ARCH: IRELATIVE stubs named after their IFUNC" \
        "" "$bad"
fi

if [ "$ARCH" = x86_64 ] && command -v qemu-x86_64 >/dev/null 2>&1; then
    T="$WORK/ls.qtr"
    "$QTRACE" record -e 'func_*,image_map' -o "$T" -- /usr/bin/ls / > /dev/null
    bias=$("$QTRACE" dump -e image_map "$T" |
           awk -v p="$libc" '$11 == p && $9 == "0x0" { print $5; exit }')
    plt=$(readelf -SW "$libc" | awk '$2 == ".plt" { print $4, $6 }')
    # Entered stubs of libc's PLT: "0xELF-ADDR NAME", from the dump.
    "$QTRACE" dump -e func_entry "$T" |
        awk -v b="$((bias))" -v lo="$((0x${plt% *}))" \
            -v n="$((0x${plt#* }))" '
            function hex(s,  v, k) {
                v = 0
                for (k = 3; k <= length(s); k++)
                    v = v * 16 + index("0123456789abcdef", substr(s, k, 1)) - 1
                return v }
            { pc = hex($5) - b
              if (pc >= lo && pc < lo + n) printf "0x%x %s\n", pc, $NF }' |
        sort -u > "$WORK/entered"
    bad=$(awk -v want="$WORK/$(basename "$libc").want" '
            BEGIN { while ((getline l < want) > 0) { split(l, f, " "); w[f[1]] = f[2] } }
            { n = split(w[$1], alt, "|"); ok = 0
              for (k = 1; k <= n; k++) ok = ok || $2 == alt[k]
              if (!ok) { print $1, "want", w[$1], "got", $2; exit } }' \
          "$WORK/entered")
    n=$(wc -l < "$WORK/entered")
    if [ "$n" -gt 0 ] && [ -z "$bad" ]; then
        pass "ls under QEMU: the $n libc PLT stubs entered named as objdump does"
    else
        fail "ls under QEMU: libc PLT stubs entered ($n): ${bad:-none}"
    fi
fi
finish
