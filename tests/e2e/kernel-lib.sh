# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=sh
# Debian's own Linux kernels booting the test initramfs (tests/kernel/init,
# scripts/mkinitramfs.sh) to poweroff, recorded by `qtrace record
# --system`: KERNELS_DIR holds them (scripts/fetch-kernels.sh), QEMU 7.2
# is Debian's, 10.0 the one in QEMU10_DIR (scripts/fetch-qemu10.sh).
# Sourced after lib.sh.

KERNEL_TIMEOUT=${KERNEL_TIMEOUT:-300}   # seconds a traced boot may take
# Only the kernel's own code (the upper 2 GiB of x86-64 and the upper half
# of arm64's address space), not the firmware or the decompressor.
KERNEL_RANGE_x86_64=0xffffffff80000000-0xffffffffffffffff
KERNEL_RANGE_aarch64=0xffff000000000000-0xffffffffffffffff

# use_kernel_arg NAME ARCH-VERSION: a test that runs on every kernel and
# QEMU pair (x86_64-7.2, x86_64-10.0, aarch64-7.2) checks its argument,
# names itself NAME-ARCH-VERSION (TEST_NAME) and calls use_kernel.
use_kernel_arg() {
    case ${2:-} in
        x86_64-7.2|x86_64-10.0|aarch64-7.2) ;;
        *) echo "usage: $1.sh x86_64-7.2|x86_64-10.0|aarch64-7.2" >&2
           exit 2 ;;
    esac
    TEST_NAME=$1-$2
    use_kernel "${2%-*}" "${2##*-}"
}

# use_kernel ARCH VERSION: set KARCH, KERNEL, INITRD, KQEMU (the binary),
# KQEMU_ARGS (its firmware and machine options, a word list), KCONSOLE and
# KSYMS_DEV (the initramfs's console and the device it writes kallsyms
# to: a second serial port where the machine has one), KRANGE; or skip,
# saying what is missing and how to get it.
use_kernel() {
    KARCH=$1
    kdir=${KERNELS_DIR:-}/$1
    case $1 in
        x86_64) kpkg=amd64 ;;
        aarch64) kpkg=arm64 ;;
        *) echo "use_kernel: x86_64 or aarch64, not '$1'" >&2; exit 2 ;;
    esac
    if [ -z "${KERNELS_DIR:-}" ] || [ ! -s "$kdir/kernel" ] ||
       [ ! -s "$kdir/initramfs.gz" ]; then
        skip "no Debian kernel for $1 in KERNELS_DIR=${KERNELS_DIR:-}" \
             "(make kernels, or scripts/fetch-kernels.sh build/kernels:" \
             "linux-image-$kpkg and busybox-static from Debian)"
    fi
    KERNEL=$kdir/kernel
    INITRD=$kdir/initramfs.gz
    case $1-$2 in
        x86_64-7.2)
            KQEMU=$(command -v qemu-system-x86_64) ||
                skip "qemu-system-x86_64 not installed (Debian package" \
                     "qemu-system-x86)"
            KQEMU_ARGS="-machine pc" ;;
        x86_64-10.0)
            KQEMU=${QEMU10_DIR:+$QEMU10_DIR/root/usr/bin/qemu-system-x86_64}
            [ -n "$KQEMU" ] && [ -x "$KQEMU" ] ||
                skip "no QEMU 10.0 in QEMU10_DIR (scripts/fetch-qemu10.sh)"
            KQEMU_ARGS="-L $QEMU10_DIR/root/usr/share/qemu"
            KQEMU_ARGS="$KQEMU_ARGS -L $QEMU10_DIR/root/usr/share/seabios"
            KQEMU_ARGS="$KQEMU_ARGS -machine pc" ;;
        aarch64-7.2)
            KQEMU=$(command -v qemu-system-aarch64) ||
                skip "qemu-system-aarch64 not installed (Debian package" \
                     "qemu-system-arm)"
            # cortex-a57: -cpu max's pointer authentication, emulated,
            # makes the boot several times slower.
            KQEMU_ARGS="-machine virt -cpu cortex-a57" ;;
        *) echo "use_kernel: no QEMU $2 for $1" >&2; exit 2 ;;
    esac
    case $1 in
        x86_64) KCONSOLE=ttyS0; KSYMS_DEV=ttyS1
                KRANGE=$KERNEL_RANGE_x86_64 ;;
        aarch64) KCONSOLE=ttyAMA0; KSYMS_DEV=console
                 KRANGE=$KERNEL_RANGE_aarch64 ;;
    esac
}

# boot_kernel TRACE SMP APPEND [RECORD_OPTIONS...] [-- QEMU_ARGS...]: boot
# the kernel on SMP vCPUs (MTTCG) under `qtrace record --system`, the
# kernel command line ending with APPEND, writing TRACE. Sets rc (record's
# status: QEMU's, or 1 if records were lost) and BOOT_SECONDS; the
# console is $WORK/console, the second serial port $WORK/serial1, record's
# standard error $WORK/err. Killed after KERNEL_TIMEOUT seconds (rc 137).
boot_kernel() {
    b_trace=$1
    b_smp=$2
    b_append=$3
    shift 3
    b_extra=""
    while [ $# -gt 0 ] && [ "$1" != -- ]; do
        b_extra="$b_extra $1"
        shift
    done
    [ "${1:-}" = -- ] && shift
    rm -f "$WORK/console" "$WORK/serial1" "$b_trace"
    b_serial="-serial file:$WORK/console"
    if [ "$KSYMS_DEV" != console ]; then
        b_serial="$b_serial -serial file:$WORK/serial1"
    fi
    b_start=$(date +%s.%N)
    # The option lists are word lists: split on purpose. No -q: the
    # summary line tells what was lost.
    # shellcheck disable=SC2086
    timeout -s KILL "$KERNEL_TIMEOUT" "$QTRACE" record --system \
        --qemu "$KQEMU" --arch "$KARCH" --kernel "$KERNEL" --initrd "$INITRD" \
        --append "console=$KCONSOLE quiet panic=-1 $b_append" \
        -o "$b_trace" $b_extra -- $KQEMU_ARGS -display none -nodefaults \
        -accel tcg,thread=multi -smp "$b_smp" -m 256 -no-reboot $b_serial \
        "$@" < /dev/null > "$WORK/out" 2> "$WORK/err"
    rc=$?
    BOOT_SECONDS=$(echo "$b_start $(date +%s.%N)" |
                   awk '{ printf "%.1f", $2 - $1 }')
    echo "INFO boot ($b_smp vCPUs,$b_extra): ${BOOT_SECONDS} s, status $rc"
    if [ "$rc" -ne 0 ]; then
        sed 's/^/    err: /' "$WORK/err" | tail -5
        tail -5 "$WORK/console" 2> /dev/null | sed 's/^/    console: /'
    fi
}

# kallsyms_of FILE OUT: the table the initramfs wrote to FILE (a serial
# port's output) between its marker lines, gzipped in base64, as text.
kallsyms_of() {
    tr -d '\r' < "$1" |
        sed -n '/^qtrace-kallsyms: begin$/,/^qtrace-kallsyms: end$/p' |
        sed '1d;$d' | base64 -d 2> /dev/null | gzip -dc > "$2" 2> /dev/null
}

# check_poweroff SMP: the initramfs reached its end on SMP CPUs and QEMU
# exited by itself (status 0: powered off, nothing lost).
check_poweroff() {
    check_eq "QEMU's status (poweroff, nothing lost)" 0 "$rc"
    check_grep "the console's last word: $1 CPUs up, poweroff" \
        "^qtrace-boot: $1 cpus online, poweroff" "$WORK/console"
}

# check_complete TRACE STREAMS: the trace is whole (END, nothing lost)
# and has STREAMS vCPU streams, vCPUs 0 to STREAMS - 1, each with
# instructions (STREAMS 0: no vCPU stream is expected).
check_complete() {
    "$QTRACE" info "$1" > "$WORK/info" 2> "$WORK/info.err"
    check_eq "info: status" 0 $?
    check_grep "the trace is complete" "^end: complete" "$WORK/info"
    check_eq "nothing lost" "lost: 0" "$(grep '^lost:' "$WORK/info")"
    check_eq "vCPU streams" "streams: $2" \
        "$(grep '^streams:' "$WORK/info")"
    if [ "$2" -gt 0 ]; then
        check_eq "one stream per vCPU, each with instructions" \
            "$(seq 0 $(($2 - 1)) | tr '\n' ' ')" \
            "$(awk '$1 == "vcpu" && $4 > 0 { print $2 }' "$WORK/info" |
               sort -n | tr '\n' ' ')"
    fi
}
