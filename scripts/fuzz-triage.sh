#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# One line per finding of `make fuzz`: the input replayed by its target,
# what the sanitizer or libFuzzer said, and the first two frames in the
# project's code (where to look). Findings with the same frames are
# usually one bug.
# Usage: fuzz-triage.sh BUILD_DIR [TARGET...]   (default: every target)
set -u

BUILD=${1:?usage: fuzz-triage.sh BUILD_DIR [TARGET...]}
shift
[ -d "$BUILD/findings" ] || exit 0
TARGETS=${*:-$(ls "$BUILD/findings")}
export TMPDIR="$BUILD/fuzz-tmp"
mkdir -p "$TMPDIR"

for t in $TARGETS; do
    for f in "$BUILD/findings/$t"/*; do
        [ -f "$f" ] || continue
        out=$(ASAN_OPTIONS=detect_leaks=1 \
              UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
              timeout 120 "$BUILD/tests/fuzz/fuzz-$t" -rss_limit_mb=2048 \
              -timeout=30 "$f" 2>&1)
        what=$(echo "$out" | grep -E 'ERROR: |runtime error' | head -1 |
               sed 's/^==[0-9]*== *//; s/ (pc 0x.*//' | cut -c1-100)
        where=$(echo "$out" |
                grep -E '^ +#[0-9]+ .* in [A-Za-z_0-9]+ [^ ]*/src/[^ ]*\.c:' |
                head -2 | sed -E 's/.* in ([A-Za-z_0-9]+) .*\/(src\/[^ ]*)/\1 \2/' |
                paste -sd ';' -)
        echo "$t ${f##*/}: ${what:-no longer fails}${where:+ | $where}"
    done
done
