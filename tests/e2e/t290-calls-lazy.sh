#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Lazy binding on the dynamically linked calls guest (calls-dyn-ARCH, with
# the host's loader and libc, or for another architecture Debian's cross
# ones under /usr/TRIPLET), run with LD_BIND_NOT=1 so that ld.so's
# resolver runs at every call through the PLT, not only the first: each
# call to a PLT stub NAME@plt, followed through its tail calls (the stub,
# the resolver, the resolved function) at the same depth, enters the
# function NAME itself (which may then tail-call another: sigaction jumps
# to __libc_sigaction), whose calls then count as many as the stub's.
# Checked for libc functions of calls.c that are not IFUNCs (an IFUNC
# resolves to a variant of another name). The resolver's last jump is a
# tail call instruction on aarch64, riscv64 and arm; on x86_64 it is
# found by its epilogue (docs/calls.md, "Lazy binding").
ARCH=$1
. "$(dirname "$0")/lib.sh"
use_guest calls-dyn "$ARCH"
command -v readelf >/dev/null 2>&1 || skip "readelf not installed (binutils)"
if [ "$ARCH" != "$(uname -m)" ]; then
    case $ARCH in
    arm) triplet=arm-linux-gnueabihf ;;
    *) triplet=$ARCH-linux-gnu ;;
    esac
    [ -d "/usr/$triplet/lib" ] ||
        skip "no $ARCH loader and libc in /usr/$triplet (libc6-$ARCH-cross)"
    QEMU_LD_PREFIX=/usr/$triplet
    export QEMU_LD_PREFIX
fi

FUNCS="printf sigaction raise pthread_create pthread_join"
FUNCS="$FUNCS pthread_barrier_wait"

T="$WORK/t.qtr"
LD_BIND_NOT=1 "$QTRACE" record -e 'func_*,image_map' -o "$T" -- "$GUEST" \
    > "$WORK/out" 2> "$WORK/err"
check_eq "guest exit status" 0 "$?"
check_grep "guest output" '^calls: ok$' "$WORK/out"
"$QTRACE" dump -e 'func_*' "$T" > "$WORK/dump" 2> /dev/null

# The PLT stubs of those functions exist (readelf: relocations naming
# them), so the guest does call them through the PLT.
for f in $FUNCS; do
    readelf -rW "$GUEST" | grep -q "JUMP_SLOT.* $f@" ||
        skip "calls-dyn-$ARCH calls $f without a PLT slot"
done

# "STUB NAMES" per call to a stub: the functions its frame ran, in
# order, the stub and those that replaced it at its depth (comma-joined).
awk '$3 == "func_entry" || $3 == "func_exit" {
        v = $1; d = $9 + 0; k = $11 + 0; name = $13
        if ($3 == "func_entry" && k == 0 && name ~ /@plt$/) {
            stub[v, d] = name; seq[v, d] = name
        } else if ($3 == "func_entry" && k == 1 && ((v, d) in stub)) {
            seq[v, d] = seq[v, d] "," name
        } else if ($3 == "func_exit" && k != 2 && ((v, d) in stub)) {
            print stub[v, d], seq[v, d]
            delete stub[v, d]
        }
    }' "$WORK/dump" > "$WORK/chains"

for f in $FUNCS; do
    calls=$(awk -v s="$f@plt" '$1 == s' "$WORK/chains" | wc -l)
    ended=$(awk -v s="$f@plt" -v f="$f" '$1 == s && ("," $2 ",") ~ ("," f ",")' \
                "$WORK/chains" | wc -l)
    if [ "$calls" -gt 0 ] && [ "$calls" -eq "$ended" ]; then
        pass "$f: $calls calls through $f@plt enter $f"
    else
        fail "$f: $ended of $calls calls through $f@plt enter $f; got:"
        awk -v s="$f@plt" '$1 == s' "$WORK/chains" | sort | uniq -c |
            sed 's/^/    /'
    fi
done

# The report counts such a function once per call of its stub.
"$QTRACE" report --functions "$T" > "$WORK/report" 2> /dev/null
for f in printf raise; do
    stubs=$(awk -v s="$f@plt" '$1 == s' "$WORK/chains" | wc -l)
    check_eq "report: calls of $f" "$stubs" \
        "$(awk -v f="$f" '$NF == f { print $(NF - 1) }' "$WORK/report")"
done
finish
