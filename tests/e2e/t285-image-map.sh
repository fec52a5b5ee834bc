#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# image_map on a dynamically linked PIE guest (calls-dyn-ARCH, the host's
# own architecture, run with the host's loader and libc): the program, its
# ELF interpreter and libc.so.6 appear with their host paths, and the
# addresses they give agree with what QEMU executed: the first block is
# the interpreter's entry point, the program's entry point runs once, and
# libc's __libc_start_main and the program's main are
# entered as functions at the addresses the records predict.
ARCH=$1
. "$(dirname "$0")/lib.sh"
use_guest calls-dyn "$ARCH"
command -v readelf >/dev/null 2>&1 || skip "readelf not installed (binutils)"

T="$WORK/t.qtr"
"$QTRACE" record -e 'image_map,exec_tb,func_entry' -o "$T" -- "$GUEST" \
    > "$WORK/out" 2> "$WORK/err"
check_eq "guest exit status" 0 "$?"
"$QTRACE" dump "$T" > "$WORK/dump"
awk '$3 == "image_map" { print $5, $7, $9, $11 }' "$WORK/dump" > "$WORK/maps"

# elf_value FILE REGEX: the value of the first symbol named REGEX.
elf_value() {
    readelf -sW "$1" | awk -v re="^$2(@.*)?\$" '$8 ~ re { print "0x" $2; exit }'
}

# bias PATH: where the file's offset 0 is mapped (its first PT_LOAD has
# vaddr 0: a PIE program or a shared object), or nothing.
bias() {
    awk -v p="$1" '$4 == p && $3 == "0x0" { print $1; exit }' "$WORK/maps"
}

prog=$(readlink -f "$GUEST")
interp=$(readelf -lW "$GUEST" |
         sed -n 's/.*Requesting program interpreter: \(.*\)]/\1/p')
interp=$(readlink -f "$interp")
libc=$(awk '$4 ~ /\/libc\.so\.6$/ { print $4; exit }' "$WORK/maps")

check_grep "program mapped" " $prog\$" "$WORK/maps"
check_grep "interpreter mapped" " $interp\$" "$WORK/maps"
[ -n "$libc" ] && pass "libc.so.6 mapped ($libc)" ||
    fail "no image_map for libc.so.6"

# hex A: A as 0x... (shell arithmetic accepts the 0x form).
hex() {
    printf '0x%x' "$(($1))"
}

p_bias=$(bias "$prog")
i_bias=$(bias "$interp")
l_bias=$(bias "$libc")
p_entry=$(readelf -hW "$GUEST" | awk '/Entry point/ { print $NF }')
i_entry=$(readelf -hW "$interp" | awk '/Entry point/ { print $NF }')

check_eq "first block: the interpreter's entry" \
    "$(hex "$i_bias + $i_entry")" \
    "$(awk '$1 == 0 && $3 == "exec_tb" { print $5; exit }' "$WORK/dump")"

# _start runs once, at the program's entry point moved by its bias.
check_eq "blocks at the program's entry point" 1 \
    "$(awk -v pc="$(hex "$p_bias + $p_entry")" \
           '$3 == "exec_tb" && $5 == pc { n++ } END { print n + 0 }' \
           "$WORK/dump")"

# entered PC: how many func_entry records enter PC.
entered() {
    awk -v pc="$1" '$3 == "func_entry" && $5 == pc { n++ }
                    END { print n + 0 }' "$WORK/dump"
}
check_eq "main entered where the program's record puts it" 1 \
    "$(entered "$(hex "$p_bias + $(elf_value "$GUEST" main)")")"
check_eq "__libc_start_main entered where libc's record puts it" 1 \
    "$(entered "$(hex "$l_bias + $(elf_value "$libc" __libc_start_main)")")"
finish
