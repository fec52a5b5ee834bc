#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Run every test of every build directory given, then print one closing
# line "N passed, N failed, N skipped". A skip (exit 77) is never a pass.
# Usage: run-tests.sh BUILD_DIR [BUILD_DIR...]
set -u

status=0
for dir in "$@"; do
    echo "== tests in $dir"
    meson test -C "$dir" --print-errorlogs --num-processes 2 || status=1
done

python3 - "$@" <<'PY'
import json, sys
passed = failed = skipped = 0
for d in sys.argv[1:]:
    try:
        with open(f"{d}/meson-logs/testlog.json") as f:
            for line in f:
                r = json.loads(line)
                res = r.get("result")
                name = f"{d}: {r.get('name')}"
                if res == "OK":
                    passed += 1
                elif res == "SKIP":
                    skipped += 1
                    out = (r.get("stdout") or "").strip().splitlines()
                    why = [l for l in out if l.startswith("SKIP")]
                    print(f"SKIP {name}: {why[-1] if why else 'no reason given'}")
                else:
                    failed += 1
                    print(f"FAIL {name} ({res})")
    except FileNotFoundError:
        failed += 1
        print(f"FAIL {d}: no test log")
print(f"{passed} passed, {failed} failed, {skipped} skipped")
sys.exit(1 if failed else 0)
PY
[ $? -eq 0 ] || status=1
exit $status
