#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Build the tiny initramfs of the kernel tests: a gzipped newc cpio
# archive holding a static busybox as /bin/busybox (and /bin/sh) and INIT
# as /init. /dev/console comes from the kernel's own built-in initramfs,
# which this one is unpacked over. Usage: mkinitramfs.sh BUSYBOX INIT OUT
set -u

die() {
    echo "mkinitramfs: $*" >&2
    exit 1
}

[ $# -eq 3 ] || die "usage: mkinitramfs.sh BUSYBOX INIT OUT"
[ -x "$1" ] || die "$1: not an executable busybox"
[ -r "$2" ] || die "$2: cannot read the init script"
command -v cpio >/dev/null 2>&1 ||
    die "cpio not found (Debian package cpio; scripts/install-deps.sh)"

tree=$(mktemp -d "${TMPDIR:-/tmp}/mkinitramfs.XXXXXX") || die "mktemp"
trap 'rm -rf "$tree"' EXIT
mkdir -p "$tree/bin" "$tree/dev" "$tree/proc" "$tree/sys" || die "mkdir"
cp "$1" "$tree/bin/busybox" && cp "$2" "$tree/init" || die "cp"
chmod 755 "$tree/bin/busybox" "$tree/init"
ln -s busybox "$tree/bin/sh"

# Sorted names, root ownership, one date: the same inputs give the same
# archive.
find "$tree" -exec touch -h -d @0 {} + || die "touch"
(cd "$tree" && find . -mindepth 1 | LC_ALL=C sort |
    cpio -o -H newc -R 0:0 --reproducible --quiet) | gzip -9n > "$3.tmp" ||
    { rm -f "$3.tmp"; die "cannot write $3"; }
mv "$3.tmp" "$3" || die "cannot write $3"
