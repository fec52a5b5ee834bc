# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=sh
# Helpers of the etrace tests (sourced after lib.sh, POSIX sh + awk):
# the test peer (etrace-peer.py, an etrace reader apart from qtrace's)
# and the translation of `qtrace dump` lines of an etrace file into the
# peer's line format, so that the two readers can be compared line by
# line.

PEER="$(cd "$(dirname "$0")" && pwd)/etrace-peer.py"
command -v python3 > /dev/null 2>&1 ||
    skip "python3 not installed (the etrace test peer is a Python script)"

peer() {
    python3 "$PEER" "$@"
}

# AWK_HEX: hex(s) turns "0x..." into a number (mawk has no strtonum).
AWK_HEX='
function hex(s,    i, v) {
    v = 0
    s = tolower(s)
    sub(/^0x/, "", s)
    for (i = 1; i <= length(s); i++) {
        v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
    }
    return v
}'

# mem_fields: stdin `qtrace dump` mem_access lines, whose flags are words
# and whose paddr, dev and value appear only when valid; stdout the same
# records with every field in a fixed place, absent ones 0 or '':
# "VCPU TIME mem_access pc P vaddr V paddr A size N flags 0xF dev 'D'
# value X" (flags as in docs/format.md: 1 store, 2 sext, 4 be, 8 paddr,
# 16 io, 32 value).
mem_fields() {
    awk '$3 == "mem_access" {
        pa = "0x0"; val = "0x0"; dev = "\047\047"; f = 0
        for (i = 4; i <= NF; i++) {
            if ($i == "pc") pc = $(i + 1)
            if ($i == "vaddr") va = $(i + 1)
            if ($i == "paddr") { pa = $(i + 1); f += 8 }
            if ($i == "size") sz = $(i + 1)
            if ($i == "store") f += 1
            if ($i == "sext") f += 2
            if ($i == "be") f += 4
            if ($i == "io") f += 16
            if ($i == "dev") dev = $(i + 1)
            if ($i == "value") { val = $(i + 1); f += 32 }
        }
        printf "%s %s mem_access pc %s vaddr %s paddr %s size %s flags 0x%x " \
               "dev %s value %s\n", $1, $2, pc, va, pa, sz, f, dev, val
    }'
}

# dump_as_peer FILE: `qtrace dump` of an etrace FILE in the peer's lines.
dump_as_peer() {
    "$QTRACE" dump "$1" | awk '
    function en(b) { return b ? "be" : "le" }
    $3 == "info" { printf "INFO attr=%s version=%s\n", $5, $7 }
    $3 == "arch" {
        printf "ARCH guest=%s/%s/%s host=%s/%s/%s\n", $5, $7, en($9),
               $11, $13, en($15)
    }
    $3 == "exec" { print "E", $1, $5, $7, $9, $2 }
    $3 == "barrier" { print "B", $1 }
    $3 == "tb" { print "T", $1, $5, $7, $11, $13 }
    $3 == "note" {
        line = $0
        sub(/^[^ ]+ [^ ]+ note /, "", line)
        print "N", $1, $2, line
    }
    $3 == "mem" {
        print "M", $1, $2, ($11 ~ /[13579bdf]$/ ? "w" : "r"), $5, $7, $9, $13
    }
    $3 == "event_u64" { print "V", $1, $2, $5, $7, $9, $11, $13 }'
}
