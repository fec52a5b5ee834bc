#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# qtrace coverage refuses what it cannot use with one line and status 1
# (the trace) or 2 (the command line), and leaves no output behind:
# a trace with neither exec_tb nor tb_count, tb_count without tb_trans,
# a missing trace, an unknown --format, an --elf that is missing or not
# an ELF file or has a bad @ADDR, --drcov-text without drcov, no TRACE.
# Also: -o replaces an older OUT only once the new one is whole, and
# drcov's binary table is not written to a terminal.
. "$(dirname "$0")/lib.sh"
use_guest asm x86_64
cd "$WORK" || exit 1

"$QTRACE" record -q -e vcpu_init,image_map -o none.qtr -- "$GUEST" \
    > /dev/null 2>&1
"$QTRACE" record -q -e tb_count -o count.qtr -- "$GUEST" > /dev/null 2>&1
"$QTRACE" record -q -e exec_tb,tb_trans,image_map -o t.qtr -- "$GUEST" \
    > /dev/null 2>&1
echo 'not an ELF file' > notelf

# refused STATUS MESSAGE ARGS...: status, one line on stderr matching
# MESSAGE (an extended regex), nothing on stdout, no out.file.
refused() {
    want=$1 msg=$2
    shift 2
    "$QTRACE" coverage "$@" > out 2> err
    st=$?
    lines=$(grep -vc "^try 'qtrace coverage --help'" err)
    if [ "$st" = "$want" ] && [ "$lines" = 1 ] && [ ! -s out ] &&
       grep -Eq "^qtrace coverage: $msg" err && [ ! -e out.file ]; then
        pass "coverage $*: status $want, one line"
    else
        fail "coverage $*: status $st, stderr:"
        sed 's/^/    /' err
    fi
}

refused 1 'none.qtr: no exec_tb or tb_count records \(record them with' \
    -o out.file none.qtr
refused 1 'count.qtr: no tb_trans records: the blocks. addresses and sizes are unknown' \
    -o out.file count.qtr
refused 1 'missing.qtr: No such file or directory$' missing.qtr
refused 2 '--format html: unknown format \(drcov, lcov or text\)$' \
    --format html t.qtr
refused 2 '--elf nope.elf: No such file or directory$' \
    --elf nope.elf t.qtr
refused 2 '--elf notelf: not an ELF file$' --elf notelf t.qtr
refused 2 "--elf $GUEST@xyz: 'xyz' after @ is not a hexadecimal address\$" \
    --elf "$GUEST@xyz" t.qtr
refused 2 '--drcov-text: only with --format drcov$' --drcov-text t.qtr
refused 2 'expected one TRACE$'

# An older OUT stays as it was when the new one cannot be made.
echo old > out.file
"$QTRACE" coverage --format drcov -o out.file none.qtr 2> /dev/null
check_eq "failed run: OUT kept" "old" "$(cat out.file)"
"$QTRACE" coverage --format drcov -o out.file t.qtr
check_eq "a good run replaces it" "DRCOV VERSION: 2" "$(head -1 out.file)"
check_eq "no temporary left" "" "$(ls -A | grep qtrace- || true)"

if command -v script > /dev/null 2>&1; then
    script -qec "$QTRACE coverage --format drcov t.qtr" /dev/null \
        > tty.out 2>&1
    check_grep "binary drcov refused on a terminal" \
        'binary output, not written to a terminal' tty.out
fi
finish
