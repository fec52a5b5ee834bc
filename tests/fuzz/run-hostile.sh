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

if ! python3 "$GEN" "$WORK" > "$WORK/gen.log" 2>&1; then
    echo "run-hostile: $GEN failed:" >&2
    cat "$WORK/gen.log" >&2
    exit 1
fi
rm -f "$WORK/gen.log"
if [ -z "$(ls "$WORK")" ]; then
    echo "run-hostile: $GEN wrote no trace into $WORK" >&2
    exit 1
fi
exec "$EXE" "$WORK"
