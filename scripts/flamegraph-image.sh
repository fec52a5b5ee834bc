#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Regenerate the README's flame graph (docs/images/flamegraph.svg): the
# demo guest (tests/guests/demo.c, the program `make demo` records) for
# aarch64, its function calls recorded, drawn by qtrace flamegraph.
# With --png, also a screenshot of it by headless Chromium.
# Usage: flamegraph-image.sh [--png] [BUILD_DIR] [OUT.svg]
set -eu
png=false
if [ "${1:-}" = --png ]; then
    png=true
    shift
fi
build=${1:-build}
out=${2:-docs/images/flamegraph.svg}
qtrace="$build/src/cli/qtrace"
guest="$build/tests/guests/demo-aarch64"

if [ ! -x "$guest" ]; then
    echo "flamegraph-image: $guest was not built (aarch64 cross compiler missing?)" >&2
    exit 1
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/qtrace-flamegraph.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# The graph names the program by its base name only.
"$qtrace" record -q -e 'func_*' -o "$tmp/demo.qtr" -- "$guest" > /dev/null
mkdir -p "$(dirname "$out")"
"$qtrace" flamegraph --title 'Flame graph: the demo guest (aarch64)' \
    -o "$out" "$tmp/demo.qtr"
echo "flamegraph-image: wrote $out"

if $png; then
    chromium --headless --no-sandbox --disable-gpu \
        --disable-background-networking --disable-component-update \
        --disable-sync --no-first-run --user-data-dir="$tmp/profile" \
        --hide-scrollbars --window-size=1200,"$(sed -n \
        's/.* height="\([0-9]*\)" viewBox.*/\1/p' "$out" | head -n 1)" \
        --screenshot="${out%.svg}.png" "file://$(cd "$(dirname "$out")" &&
        pwd)/$(basename "$out")" > /dev/null 2>&1
    echo "flamegraph-image: wrote ${out%.svg}.png"
fi
