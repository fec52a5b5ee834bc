#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# A dynamically linked program of a foreign ARCH, built here with the
# cross gcc, runs under qtrace record with QEMU_LD_PREFIX unset: qtrace
# passes QEMU the sysroot that holds the program's loader (the directory
# the cross gcc itself names, /usr/<gcc -dumpmachine>). A program whose
# loader is in no sysroot fails before QEMU runs, naming the Debian
# package that ships that loader's sysroot (as dpkg -S reports it).
# QEMU_LD_PREFIX, or -Q -L, stay the user's choice.
ARCH=$1
. "$(dirname "$0")/lib.sh"
need_qemu "$ARCH"
case "$ARCH" in
aarch64) CC=aarch64-linux-gnu-gcc ;;
arm) CC=arm-linux-gnueabihf-gcc ;;
riscv64) CC=riscv64-linux-gnu-gcc ;;
*) skip "no cross compiler known for $ARCH" ;;
esac
command -v "$CC" >/dev/null 2>&1 || skip "$CC not installed"
[ "$(uname -m)" != "$ARCH" ] || skip "$ARCH is the host's architecture"
command -v readelf >/dev/null 2>&1 || skip "readelf not installed (binutils)"

cat > "$WORK/hello.c" <<'C'
#include <stdio.h>
int main(int argc, char **argv)
{
    printf("hello %d %s\n", argc, argv[1]);
    return 7;
}
C
"$CC" -O1 -o "$WORK/hello" "$WORK/hello.c" 2> "$WORK/cc.err" ||
    skip "$CC cannot link a dynamic program (no cross libc)"
interp=$(readelf -lW "$WORK/hello" |
         sed -n 's/.*Requesting program interpreter: \(.*\)]/\1/p')
sysroot=/usr/$("$CC" -dumpmachine)
[ -e "$sysroot$interp" ] || skip "$sysroot$interp missing"

T="$WORK/t.qtr"
env -u QEMU_LD_PREFIX "$QTRACE" record -v -q -e exec_tb -o "$T" \
    "$WORK/hello" world > "$WORK/out" 2> "$WORK/err"
check_eq "dynamic $ARCH program: exit status" 7 "$?"
check_eq "dynamic $ARCH program: output" "hello 2 world" "$(cat "$WORK/out")"
check_grep "QEMU given -L $sysroot" " -L $sysroot " "$WORK/err"
check_eq "blocks recorded" yes \
    "$([ "$(info_count "$T" exec_tb)" -gt 0 ] && echo yes || echo no)"

# QEMU_LD_PREFIX set, or -Q -L given: qtrace adds no -L of its own.
QEMU_LD_PREFIX=$sysroot "$QTRACE" record -v -q -o "$T" "$WORK/hello" x \
    > "$WORK/out" 2> "$WORK/err"
check_eq "with QEMU_LD_PREFIX: exit status" 7 "$?"
check_eq "with QEMU_LD_PREFIX: no -L added" 0 \
    "$(grep -c -- ' -L ' "$WORK/err")"
env -u QEMU_LD_PREFIX "$QTRACE" record -v -q -o "$T" -Q "-L $sysroot" \
    "$WORK/hello" x > "$WORK/out" 2> "$WORK/err"
check_eq "with -Q -L: exit status" 7 "$?"
check_eq "with -Q -L: one -L" 1 "$(grep -o -- ' -L ' "$WORK/err" | wc -l)"

# The same loader name in a directory no sysroot has: one line naming
# the package that ships the real one, and QEMU does not run.
command -v dpkg >/dev/null 2>&1 || skip "dpkg not installed"
package=$(dpkg -S "$sysroot$interp" 2>/dev/null | sed -n '1s/:.*//p')
[ -n "$package" ] || skip "$sysroot$interp belongs to no package"
lost_interp=/qtrace-nowhere/$(basename "$interp")
"$CC" -O1 -Wl,--dynamic-linker="$lost_interp" -o "$WORK/lost" \
    "$WORK/hello.c" || skip "$CC: no --dynamic-linker"
rm -f "$T"
env -u QEMU_LD_PREFIX "$QTRACE" record -o "$T" "$WORK/lost" \
    > "$WORK/out" 2> "$WORK/err"
check_eq "loader nowhere: status" 1 "$?"
check_eq "loader nowhere: one line" 1 "$(wc -l < "$WORK/err")"
check_grep "loader nowhere: names the loader and $package" \
    "^qtrace record: $WORK/lost: .*$lost_interp .*install the Debian package $package" \
    "$WORK/err"
check_eq "loader nowhere: no trace" no \
    "$([ -e "$T" ] && echo yes || echo no)"

finish
