#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Fetch Debian bookworm's own Linux kernels (linux-image-amd64 and
# linux-image-arm64, 6.1) and busybox-static for both architectures, and
# build a tiny initramfs for each (scripts/mkinitramfs.sh), for the tests
# that boot a real kernel. Nothing is installed: apt runs with its own
# sources list, lists and cache under DESTDIR, the packages are unpacked
# there, /boot, /etc/apt and the dpkg database stay untouched, and a
# normal user can run it. Usage: fetch-kernels.sh DESTDIR
#
# The result, per QEMU target name (x86_64, aarch64):
#   DESTDIR/ARCH/kernel         the kernel image (a bzImage, an arm64 Image)
#   DESTDIR/ARCH/busybox        the static busybox of that architecture
#   DESTDIR/ARCH/initramfs.gz   busybox and tests/kernel/init as /init
#   DESTDIR/ARCH/release        the kernel release ("6.1.0-50-amd64")
# The kernels are fetched once; the initramfs images are rebuilt on every
# run whose init script or busybox is newer than them.
set -u

SUITE=bookworm
MIRROR=http://deb.debian.org/debian
KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg
HERE=$(cd "$(dirname "$0")" && pwd)
INIT=$HERE/../tests/kernel/init

die() {
    echo "fetch-kernels: $*" >&2
    exit 1
}

if [ $# -ne 1 ] || [ -z "$1" ]; then
    die "usage: fetch-kernels.sh DESTDIR"
fi
mkdir -p "$1" 2>/dev/null || die "cannot create $1 (permission?)"
DEST=$(cd "$1" && pwd) || die "cannot enter $1"

# deb_arch ARCH: Debian's name of the QEMU target ARCH.
deb_arch() {
    case $1 in
        x86_64) echo amd64 ;;
        aarch64) echo arm64 ;;
    esac
}

# have_kernel ARCH: the kernel and busybox of ARCH are unpacked.
have_kernel() {
    [ -s "$DEST/$1/kernel" ] && [ -x "$DEST/$1/busybox" ] &&
        [ -s "$DEST/$1/release" ]
}

# newer A B: file A was modified after file B (POSIX test has no -nt).
newer() {
    [ -n "$(find "$1" -prune -newer "$2" 2>/dev/null)" ]
}

# initramfs ARCH: (re)build ARCH's initramfs when it is older than its
# inputs.
initramfs() {
    out=$DEST/$1/initramfs.gz
    if [ -s "$out" ] && ! newer "$INIT" "$out" &&
       ! newer "$DEST/$1/busybox" "$out" &&
       ! newer "$HERE/mkinitramfs.sh" "$out"; then
        return 0
    fi
    "$HERE/mkinitramfs.sh" "$DEST/$1/busybox" "$INIT" "$out" ||
        die "cannot build $out"
    echo "fetch-kernels: $1: initramfs $out"
}

if have_kernel x86_64 && have_kernel aarch64; then
    initramfs x86_64
    initramfs aarch64
    echo "fetch-kernels: Linux $(cat "$DEST/x86_64/release")," \
         "$(cat "$DEST/aarch64/release") already in $DEST"
    exit 0
fi

for tool in apt-get apt-cache dpkg-deb tar cpio gzip; do
    command -v "$tool" >/dev/null 2>&1 ||
        die "$tool not found (Debian only; scripts/install-deps.sh)"
done
[ -r "$KEYRING" ] ||
    die "$KEYRING missing (install debian-archive-keyring)"

APT=$DEST/apt
LOG=$APT/log
if ! mkdir -p "$APT/etc/sources.list.d" "$APT/etc/preferences.d" \
        "$APT/lists/partial" "$APT/cache/archives/partial" "$APT/state" \
        "$APT/debs" 2>/dev/null || [ ! -w "$APT/lists" ]; then
    die "$APT is not writable by $(id -un): choose a DESTDIR you own"
fi
echo "deb [signed-by=$KEYRING arch=amd64,arm64] $MIRROR $SUITE main" \
    > "$APT/etc/sources.list"

# apt sees only the files here, and both architectures whatever dpkg is
# configured for (no foreign architecture needs adding to the system).
set -- \
    -o "Dir::Etc::sourcelist=$APT/etc/sources.list" \
    -o "Dir::Etc::sourceparts=$APT/etc/sources.list.d" \
    -o "Dir::Etc::preferences=$APT/etc/preferences" \
    -o "Dir::Etc::preferencesparts=$APT/etc/preferences.d" \
    -o "Dir::State=$APT/state" \
    -o "Dir::State::lists=$APT/lists" \
    -o "Dir::State::status=/dev/null" \
    -o "Dir::Cache=$APT/cache" \
    -o "APT::Architectures::=amd64" \
    -o "APT::Architectures::=arm64" \
    -o "Acquire::Retries=2" \
    -o "Acquire::http::Timeout=30" \
    -o "APT::Get::List-Cleanup=false"

# first_error: the apt log's first error, the cause of the others.
first_error() {
    grep -E '^(E|W):' "$LOG" | head -1 | tr -s ' '
}

echo "fetch-kernels: fetching Debian's linux-image-amd64, linux-image-arm64" \
     "and busybox-static from $SUITE into $DEST"
: > "$LOG"
apt-get -q "$@" --error-on=any update >> "$LOG" 2>&1 ||
    die "apt-get update of $SUITE failed (no network?): $(first_error)" \
        "(log: $LOG)"

# The metapackages name the kernel of the day: linux-image-6.1.0-N-ARCH.
image_of() {
    apt-cache "$@" depends "linux-image-$ARCHD:$ARCHD" 2>> "$LOG" |
        sed -n 's/^ *Depends: \(linux-image-[0-9][^ :]*\).*/\1/p' | head -1
}

if [ "$(id -u)" -eq 0 ] && id _apt >/dev/null 2>&1; then
    chown _apt "$APT/debs" 2>/dev/null   # apt downloads as _apt
fi
for ARCH in x86_64 aarch64; do
    ARCHD=$(deb_arch "$ARCH")
    image=$(image_of "$@")
    [ -n "$image" ] ||
        die "linux-image-$ARCHD: no linux-image-6.1... among its" \
            "dependencies in $SUITE (log: $LOG)"
    rm -f "$APT/debs"/*.deb
    (cd "$APT/debs" &&
     apt-get -q "$@" download "$image:$ARCHD" "busybox-static:$ARCHD") \
        >> "$LOG" 2>&1 ||
        die "apt-get download of $image:$ARCHD failed: $(first_error)" \
            "(log: $LOG)"

    # Only the kernel image and busybox are kept (the modules would be
    # 400 MB); unpacked beside, then moved in whole.
    rm -rf "$DEST/$ARCH.new"
    mkdir -p "$DEST/$ARCH.new/x" || die "cannot create $DEST/$ARCH.new"
    for deb in "$APT/debs"/*.deb; do
        dpkg-deb --fsys-tarfile "$deb" |
            tar -x -C "$DEST/$ARCH.new/x" --wildcards \
                './boot/vmlinuz-*' './bin/busybox' 2>/dev/null
    done
    vmlinuz=
    for f in "$DEST/$ARCH.new/x/boot/"vmlinuz-*; do
        [ -f "$f" ] && vmlinuz=$f
    done
    [ -n "$vmlinuz" ] && [ -x "$DEST/$ARCH.new/x/bin/busybox" ] ||
        die "$image or busybox-static ($ARCHD) did not hold" \
            "/boot/vmlinuz-* and /bin/busybox"
    mv "$vmlinuz" "$DEST/$ARCH.new/kernel"
    mv "$DEST/$ARCH.new/x/bin/busybox" "$DEST/$ARCH.new/busybox"
    basename "$vmlinuz" | sed 's/^vmlinuz-//' > "$DEST/$ARCH.new/release"
    rm -rf "${DEST:?}/$ARCH.new/x" "${DEST:?}/$ARCH"
    mv "$DEST/$ARCH.new" "$DEST/$ARCH" ||
        die "cannot move $DEST/$ARCH.new to $DEST/$ARCH"
    rm -f "$APT/debs"/*.deb
    initramfs "$ARCH"
    echo "fetch-kernels: $ARCH: Linux $(cat "$DEST/$ARCH/release") in" \
         "$DEST/$ARCH"
done
