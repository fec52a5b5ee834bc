#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# --symbols in system mode, where the trace names no file: the firmware
# guest boot-x86 (its flat image is what QEMU runs, copied from
# boot-x86.elf) under qemu-system-x86_64 7.2 or 10.0, then `qtrace dump`
# must name every executed block as nm says (the text symbol at or below
# it, name+0xOFF, computed by nm-names.py from nm's listing), given as
# - the ELF file itself (symbols at its link addresses);
# - a System.map written by nm from the same ELF;
# - a kallsyms-style table moved to kernel addresses (with _text, a data
#   symbol and a module's symbol) and placed back by @ADDR;
# - the ELF relinked at 0 (objcopy) and placed by @ADDR;
# and without --symbols no block has a name. Usage: t560-symbols-system.sh
# 7.2|10.0.
PART=${1:?usage: t560-symbols-system.sh 7.2|10.0}
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"
TEST_NAME=t560-symbols-system-$PART
# shellcheck source=tests/e2e/boot-lib.sh
. "$(dirname "$0")/boot-lib.sh"

use_boot_x86 "$PART"
ELF="$GUESTS/boot-x86.elf"
NAMES="$(dirname "$0")/nm-names.py"
[ -f "$ELF" ] || skip "boot-x86.elf not built"
command -v nm > /dev/null 2>&1 || skip "nm not installed (binutils)"
command -v objcopy > /dev/null 2>&1 || skip "objcopy not installed (binutils)"
command -v python3 > /dev/null 2>&1 || skip "python3 not installed"
T="$WORK/t.qtr"
BASE=0xffff0000                 # where the image runs (boot-x86.S)
KERNEL=ffffffff81000000         # where the kallsyms copy puts it

objcopy -O binary -j .text "$ELF" "$WORK/flat"
cmp -s "$WORK/flat" "$GUEST" && pass "boot-x86 is boot-x86.elf's code" ||
    fail "boot-x86 differs from boot-x86.elf's .text"

run_boot_x86 "out=$T,events=vcpu_*;tb_trans;exec_tb"
check_eq "QEMU exit status" "$(expect_get exit)" "$rc"

# Every executed block's address, then its name as nm says it.
"$QTRACE" dump -e exec_tb "$T" | awk '{ print $5 }' | sort -u > "$WORK/pcs"
nm "$ELF" > "$WORK/nm"
python3 "$NAMES" "$WORK/nm" < "$WORK/pcs" > "$WORK/want"
n=$(wc -l < "$WORK/want")
if [ "$n" -ge 4 ] && ! grep -q ' ?$' "$WORK/want"; then
    pass "nm names the $n blocks"
else
    fail "nm names $n blocks:"; sed 's/^/    /' "$WORK/want"
fi

# names WHAT DUMP_OPTIONS...: the blocks' names from dump must be nm's.
names() {
    what=$1
    shift
    "$QTRACE" dump -e exec_tb "$@" "$T" > "$WORK/dump" 2> "$WORK/err"
    st=$?
    awk '{ print $5, $NF }' "$WORK/dump" | sort -u > "$WORK/got"
    if [ "$st" -eq 0 ] && cmp -s "$WORK/want" "$WORK/got" &&
       [ ! -s "$WORK/err" ]; then
        pass "$what: every block named as nm says"
    else
        fail "$what: status $st, names (want | got):"
        paste -d'|' "$WORK/want" "$WORK/got" | sed 's/^/    /'
        sed 's/^/    /' "$WORK/err"
    fi
}

# named DUMP_OPTIONS...: how many exec_tb lines end in a name, not hex.
named() {
    "$QTRACE" dump -e exec_tb "$@" "$T" |
        awk '$(NF - 1) == "|" && $NF !~ /^0x/ { n++ } END { print n + 0 }'
}

check_eq "without --symbols: no block named" 0 "$(named)"

names "--symbols boot-x86.elf" --symbols "$ELF"

cp "$WORK/nm" "$WORK/System.map"
names "--symbols System.map (nm's)" --symbols "$WORK/System.map"

# The kallsyms copy: every symbol moved from BASE to KERNEL, 16 digits,
# plus _text at the image's start, a data symbol inside the code (not
# text: must not name it) and a module's function far above.
python3 - "$WORK/nm" "$BASE" "$KERNEL" > "$WORK/kallsyms" <<'PY'
import sys
nm, base, kernel = sys.argv[1], int(sys.argv[2], 16), int(sys.argv[3], 16)
print('%016x T _text' % kernel)
print('%016x D boot_data' % (kernel + 0xc))
for line in open(nm):
    addr, kind, name = line.split()
    print('%016x %s %s' % (int(addr, 16) - base + kernel, kind, name))
print('%016x t mod_init\t[mod]' % (kernel + 0x40000000))
PY
names "--symbols kallsyms@$KERNEL's _text at $BASE" \
    --symbols "$WORK/kallsyms@$BASE"
check_eq "--symbols kallsyms without @: no block named" 0 \
    "$(named --symbols "$WORK/kallsyms")"

objcopy --change-addresses -$BASE "$ELF" "$WORK/at0.elf" 2> /dev/null
names "--symbols ELF linked at 0 @$BASE" --symbols "$WORK/at0.elf@$BASE"
finish
