#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Install the Debian packages qtrace needs to build and test, if any is
# missing. Runs apt-get as root, or through sudo. Usage: install-deps.sh
set -eu

PACKAGES="
build-essential meson ninja-build pkg-config
libglib2.0-dev libcapstone-dev zlib1g-dev libzstd-dev libisal-dev libelf-dev
libdw-dev
libcmocka-dev
qemu-user qemu-system-x86 qemu-system-arm
gcc-aarch64-linux-gnu libc6-dev-arm64-cross
gcc-riscv64-linux-gnu libc6-dev-riscv64-cross
gcc-arm-linux-gnueabihf libc6-dev-armhf-cross
binutils-aarch64-linux-gnu
ca-certificates
python3 strace uftrace zstd time sqlite3 cpio
valgrind libc6-dbg lcov
liblttng-ust-dev lttng-tools babeltrace2 systemtap-sdt-dev bpftrace
protobuf-compiler
clang libclang-rt-14-dev
chromium chromium-driver
"

missing=""
for p in $PACKAGES; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed'; then
        missing="$missing $p"
    fi
done

if [ -z "$missing" ]; then
    exit 0
fi

if [ "$(id -u)" -eq 0 ]; then
    SUDO=""
elif command -v sudo >/dev/null 2>&1; then
    SUDO="sudo"
else
    echo "install-deps: missing packages:$missing (run as root or install sudo)" >&2
    exit 1
fi

echo "install-deps: installing:$missing"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $missing
