#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The hostile traces of tests/tools/hostile-trace.py (crafted traces with
# valid checksums: catalogs that lie about record layouts, huge stream and
# block numbers, packed runs that expand without end), written to a
# temporary directory and replayed by a trace fuzz target's driver build.
# Usage: run-hostile.sh GENERATOR TARGET_EXE
set -u

GEN=${1:?usage: run-hostile.sh GENERATOR TARGET_EXE}
EXE=${2:?usage: run-hostile.sh GENERATOR TARGET_EXE}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/qtrace-hostile.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

# One trace per class the generator lists.
if ! classes=$(python3 "$GEN" --list 2> "$WORK/gen.log"); then
    echo "run-hostile: $GEN --list failed:" >&2
    cat "$WORK/gen.log" >&2
    exit 1
fi
for class in $classes; do
    # A valid run of 2^32 blocks without END: the targets walk every
    # record, so it would take hours; t840 checks that dump streams it.
    [ "$class" = packed-long-run ] && continue
    if ! python3 "$GEN" "$class" "$WORK/$class.qtr" > "$WORK/gen.log" 2>&1
    then
        echo "run-hostile: $GEN $class failed:" >&2
        cat "$WORK/gen.log" >&2
        exit 1
    fi
done
rm -f "$WORK/gen.log"
if [ -z "$(ls "$WORK")" ]; then
    echo "run-hostile: $GEN wrote no trace into $WORK" >&2
    exit 1
fi
exec "$EXE" "$WORK"
