#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The flame graph of ARCH's calls guest in a real browser: headless
# Chromium (Debian packages chromium and chromium-driver) opens the SVG
# over a file:// URL; a click on main zooms (widths change as the
# folded counts say), Reset Zoom puts them back, a search for fact
# through the page's prompt highlights the five fact frames and gives
# their share; see flame-browser.py.
ARCH=$1
. "$(dirname "$0")/lib.sh"
use_guest calls "$ARCH"
command -v python3 > /dev/null 2>&1 || skip "python3 not installed"
command -v chromium > /dev/null 2>&1 ||
    skip "chromium not installed (Debian packages chromium and chromium-driver)"
command -v chromedriver > /dev/null 2>&1 ||
    skip "chromedriver not installed (Debian package chromium-driver)"
HERE=$(cd "$(dirname "$0")" && pwd)
cd "$WORK" || exit 1

"$QTRACE" record -e 'vcpu_*,func_*' -o calls.qtr -- "$GUEST" \
    > /dev/null 2>&1
check_eq "record status" 0 "$?"
"$QTRACE" report --folded calls.qtr > calls.folded
"$QTRACE" flamegraph --min-width=0 -o calls.svg calls.qtr
check_eq "flamegraph status" 0 "$?"
python3 "$HERE/flame-browser.py" calls.svg calls.folded main \
    '^fact$' "$WORK" > browser.out 2>&1
st=$?
cat browser.out
[ $st -eq 77 ] && skip "$(sed -n 's/^SKIP flame-browser: //p' browser.out)"
check_eq "browser checks status" 0 "$st"
finish
