#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# qtrace record --system: the firmware guest boot-x86 recorded by qtrace
# itself under qemu-system-x86_64 7.2 (QEMU_ARGS after --): QEMU's exit
# status comes back (41, boot-x86.expect), the trace is a system-mode
# one with the blocks executed by construction, and --symbols names its
# start as nm does. The command line for a kernel, with a stand-in QEMU
# that writes its arguments down: a bzImage (x86 boot header) runs
# qemu-system-x86_64, an aarch64 ELF kernel qemu-system-aarch64, with
# -machine, -kernel, -initrd, -append, then -plugin, then QEMU_ARGS.
# A bzImage given as PROGRAM is recognised; misuse is status 2.
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=tests/e2e/boot-lib.sh
. "$(dirname "$0")/boot-lib.sh"
use_boot_x86 7.2

# A bzImage as far as its header goes: "HdrS" at 0x202.
head -c 1024 /dev/zero > "$WORK/bzImage"
printf 'HdrS' | dd of="$WORK/bzImage" bs=1 seek=514 conv=notrunc 2> /dev/null

"$QTRACE" record "$WORK/bzImage" > /dev/null 2> "$WORK/err"
check_eq "record bzImage: status" 1 $?
check_eq "record bzImage: the message" "qtrace record: $WORK/bzImage: a \
Linux kernel image (bzImage), not a program: trace it with 'qtrace record \
--system --kernel $WORK/bzImage'" "$(cat "$WORK/err")"

# Misuse: status 2.
"$QTRACE" record --system "$WORK/bzImage" > /dev/null 2>&1
check_eq "--system with a PROGRAM: status" 2 $?
"$QTRACE" record --kernel "$WORK/bzImage" /bin/true > /dev/null 2>&1
check_eq "--kernel without --system: status" 2 $?
"$QTRACE" record --system --arch nosuch > /dev/null 2>&1
check_eq "--arch nosuch: status" 2 $?

# The stand-in QEMUs: their name and arguments, one per line.
mkdir "$WORK/bin"
for q in qemu-system-x86_64 qemu-system-aarch64; do
    # shellcheck disable=SC2016  # $0 and $@ are the stand-in's own
    printf '#!/bin/sh\nbasename "$0" > "%s"\nprintf "%%s\\n" "$@" >> "%s"\n' \
        "$WORK/args" "$WORK/args" > "$WORK/bin/$q"
    chmod +x "$WORK/bin/$q"
done
# args_of KERNEL: the stand-in's lines for a run with that kernel.
args_of() {
    rm -f "$WORK/args"
    PATH="$WORK/bin:$PATH" "$QTRACE" record --system -q -M virt \
        --kernel "$1" --initrd "$WORK/initrd" --append 'console=ttyS0 quiet' \
        -o "$WORK/k.qtr" -- -nographic -m 64 > /dev/null 2>&1
    tr '\n' ' ' < "$WORK/args" | sed "s|file=[^ ]*|PLUGIN|"
}
want="-machine virt -kernel KERNEL -initrd $WORK/initrd -append \
console=ttyS0 quiet -plugin PLUGIN -nographic -m 64 "
check_eq "bzImage: the command line" "qemu-system-x86_64 $(echo "$want" |
    sed "s|KERNEL|$WORK/bzImage|")" "$(args_of "$WORK/bzImage")"
if [ -f "$GUESTS/asm-aarch64" ]; then
    check_eq "aarch64 ELF kernel: the command line" "qemu-system-aarch64 \
$(echo "$want" | sed "s|KERNEL|$GUESTS/asm-aarch64|")" \
        "$(args_of "$GUESTS/asm-aarch64")"
fi

# The real run: boot-x86 on 7.2.
T="$WORK/t.qtr"
"$QTRACE" record --system -M pc -q -o "$T" -e 'vcpu_*;tb_trans;exec_tb' \
    -- -display none -nodefaults -accel tcg -m 16 -no-reboot \
    -bios "$GUEST" -device isa-debug-exit,iobase=0xf4,iosize=0x04 \
    > /dev/null 2> "$WORK/err"
check_eq "record --system: QEMU's status" "$(expect_get exit)" $?
"$QTRACE" info "$T" > "$WORK/info"
check_grep "the trace is a system-mode one" "^mode: system" "$WORK/info"
check_eq "blocks executed" "$(expect_get blocks_executed)" \
    "$(info_count "$T" exec_tb)"
start=$(nm "$GUESTS/boot-x86.elf" | awk '$3 == "_start" { print "0x" $1 }' |
        sed 's/0x0*/0x/')
check_eq "dump --symbols names _start" "_start+0x0" \
    "$("$QTRACE" dump -e exec_tb --symbols "$GUESTS/boot-x86.elf" "$T" |
       awk -v pc="$start" '$5 == pc { print $NF; exit }')"
finish
