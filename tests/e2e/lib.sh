# SPDX-License-Identifier: GPL-2.0-or-later
# Shared helpers of the end-to-end tests (sourced, POSIX sh). Environment
# from tests/e2e/meson.build: QTRACE (the CLI), QTRACE_PLUGIN (the plugin),
# GUESTS (directory of built guests). Each check prints PASS or FAIL; the
# script ends with finish, which prints "N passed, N failed" and exits 1
# on any failure. skip exits 77 with "SKIP name: reason".

n_pass=0
n_fail=0
TEST_NAME=$(basename "$0" .sh)${ARCH:+-$ARCH}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/qtrace-e2e.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

pass() { n_pass=$((n_pass + 1)); echo "PASS $*"; }
fail() { n_fail=$((n_fail + 1)); echo "FAIL $*"; }

skip() {
    echo "SKIP $TEST_NAME: $*"
    exit 77
}

# check_eq WHAT EXPECTED ACTUAL
check_eq() {
    if [ "$2" = "$3" ]; then
        pass "$1 = $2"
    else
        fail "$1: expected '$2', got '$3'"
    fi
}

# check_grep WHAT PATTERN FILE: an extended regex must match a line.
check_grep() {
    if grep -Eq -- "$2" "$3"; then
        pass "$1"
    else
        fail "$1: no line matches '$2' in $(basename "$3"):"
        head -5 "$3" | sed 's/^/    /'
    fi
}

finish() {
    echo "$n_pass passed, $n_fail failed"
    [ "$n_fail" -eq 0 ]
    exit $?
}

# expect_get KEY: a value from the guest's .expect file.
expect_get() {
    sed -n "s/^$1=//p" "$EXPECT"
}

# need_qemu ARCH: skip unless qemu-ARCH exists.
need_qemu() {
    command -v "qemu-$1" >/dev/null 2>&1 ||
        skip "qemu-$1 not installed (Debian package qemu-user)"
}

# info_count TRACE EVENT: count of EVENT from 'qtrace info' (0 if absent).
info_count() {
    "$QTRACE" info "$1" | awk -v ev="$2" '$1 == ev { n = $2 } END { print n + 0 }'
}

# use_guest NAME ARCH: set GUEST (and EXPECT for asm guests) or skip.
use_guest() {
    need_qemu "$2"
    GUEST="$GUESTS/$1-$2"
    EXPECT="$GUESTS/$1-$2.expect"
    [ -x "$GUEST" ] || skip "guest $1-$2 not built (no cross compiler or static libc)"
}
