#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Fetch qemu-system-x86_64 10.0 (plugin API 4) from Debian
# bookworm-backports and unpack it under DESTDIR/root, so the plugin can be
# tested on it beside bookworm's 7.2. apt runs with its own sources list,
# lists and cache under DESTDIR: /etc/apt and the dpkg database stay
# untouched, and a normal user can run it. Usage: fetch-qemu10.sh DESTDIR.
#
# Run the result as DESTDIR/root/usr/bin/qemu-system-x86_64
#   -L DESTDIR/root/usr/share/qemu -L DESTDIR/root/usr/share/seabios
# or it looks for its ROMs and BIOS in the system's (7.2) directories,
# which it has compiled in. Its shared libraries are bookworm's own.
set -u

SUITE=bookworm-backports
MIRROR=http://deb.debian.org/debian
KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg
# The binary, its common files, its ROMs, and the BIOS it depends on
# (seabios >> 1.16.3, newer than bookworm's 1.16.2).
PACKAGES="qemu-system-x86 qemu-system-common qemu-system-data seabios"

die() {
    echo "fetch-qemu10: $*" >&2
    exit 1
}

if [ $# -ne 1 ] || [ -z "$1" ]; then
    die "usage: fetch-qemu10.sh DESTDIR"
fi
mkdir -p "$1" 2>/dev/null || die "cannot create $1 (permission?)"
DEST=$(cd "$1" && pwd) || die "cannot enter $1"
BIN=$DEST/root/usr/bin/qemu-system-x86_64

# is_qemu10 FILE: FILE runs and says it is QEMU 10.0.x.
is_qemu10() {
    [ -x "$1" ] && "$1" --version 2>/dev/null |
        grep -q '^QEMU emulator version 10\.0\.'
}

if is_qemu10 "$BIN"; then
    echo "fetch-qemu10: $("$BIN" --version | head -1) already in $DEST/root"
    exit 0
fi

for tool in apt-get dpkg-deb ldd; do
    command -v "$tool" >/dev/null 2>&1 || die "$tool not found (Debian only)"
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
echo "deb [signed-by=$KEYRING] $MIRROR $SUITE main" > "$APT/etc/sources.list"

# Every apt path that could point into the system is redirected here;
# /etc/apt/apt.conf.d still applies (proxies and the like).
set -- \
    -o "Dir::Etc::sourcelist=$APT/etc/sources.list" \
    -o "Dir::Etc::sourceparts=$APT/etc/sources.list.d" \
    -o "Dir::Etc::preferences=$APT/etc/preferences" \
    -o "Dir::Etc::preferencesparts=$APT/etc/preferences.d" \
    -o "Dir::State=$APT/state" \
    -o "Dir::State::lists=$APT/lists" \
    -o "Dir::State::status=/dev/null" \
    -o "Dir::Cache=$APT/cache" \
    -o "Acquire::Retries=2" \
    -o "Acquire::http::Timeout=30" \
    -o "APT::Get::List-Cleanup=false"

# last_error: the first error of the apt log (the cause; later ones are
# consequences), for the one-line report.
last_error() {
    grep -E '^(E|W):' "$LOG" | head -1 | tr -s ' '
}

echo "fetch-qemu10: fetching $PACKAGES from $SUITE into $DEST"
: > "$LOG"
# --error-on=any: an unreachable mirror is an error, not a warning.
apt-get -q "$@" --error-on=any update >> "$LOG" 2>&1 ||
    die "apt-get update of $SUITE failed (no network?): $(last_error)" \
        "(log: $LOG)"

# As root, apt downloads as user _apt: let it write the download dir.
if [ "$(id -u)" -eq 0 ] && id _apt >/dev/null 2>&1; then
    chown _apt "$APT/debs" 2>/dev/null
fi
rm -f "$APT/debs"/*.deb
# shellcheck disable=SC2086  # PACKAGES is a word list
(cd "$APT/debs" && apt-get -q "$@" download $PACKAGES) >> "$LOG" 2>&1 ||
    die "apt-get download failed: $(last_error) (log: $LOG)"

# Unpack beside the final tree, then swap it in, so an interrupted run
# never leaves a half tree that looks complete.
rm -rf "$DEST/root.new"
mkdir -p "$DEST/root.new" || die "cannot create $DEST/root.new"
for deb in "$APT/debs"/*.deb; do
    dpkg-deb -x "$deb" "$DEST/root.new" ||
        die "cannot unpack $(basename "$deb")"
done

missing=$(ldd "$DEST/root.new/usr/bin/qemu-system-x86_64" 2>&1 |
          sed -n 's/^[[:space:]]*\([^ ]*\) => not found.*/\1/p' |
          tr '\n' ' ')
[ -z "$missing" ] ||
    die "host libraries missing for QEMU 10.0: $missing(install them" \
        "from bookworm; its qemu-system-x86 pulls them in)"
is_qemu10 "$DEST/root.new/usr/bin/qemu-system-x86_64" ||
    die "unpacked qemu-system-x86_64 does not run or is not 10.0.x:" \
        "$("$DEST/root.new/usr/bin/qemu-system-x86_64" --version 2>&1 |
           head -1)"

rm -rf "$DEST/root"
mv "$DEST/root.new" "$DEST/root" ||
    die "cannot move $DEST/root.new to $DEST/root"
echo "fetch-qemu10: $("$BIN" --version | head -1) in $DEST/root" \
     "(use -L $DEST/root/usr/share/qemu -L $DEST/root/usr/share/seabios)"
