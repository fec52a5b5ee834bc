#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Bad --symbols files: dump, report, replay and convert each refuse them
# while reading their options, with status 2, nothing on stdout and one
# line on stderr naming the file (and the line of a text table): a
# missing file, a file that is neither ELF nor a symbol table, a bad line
# after good ones, a kallsyms read without the right to see addresses
# (every address 0), a table without text symbols, and an ADDR that is
# not hexadecimal. No QEMU needed: the trace is never opened.
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"

W=$WORK
printf 'hello world\n' > "$W/prose"
printf '\001\002\003\004\000\377garbage' > "$W/binary"
printf 'ffffffff81000000 T _text\nffffffff81000010 t foo\n' > "$W/bad3"
printf 'ffffffff81000020 T\nffffffff81000030 T bar\n' >> "$W/bad3"
printf '0000000000000000 T _text\n0000000000000000 T startup_64\n' \
    > "$W/kptr"
printf '0000000000000000 t foo\t[mod]\n' >> "$W/kptr"
printf 'ffffffff82000000 D jiffies\nffffffff82000008 b counter\n' > "$W/data"
printf 'ffffffff81000000 T _text\n' > "$W/good"

# refused CMD WHAT SPEC MESSAGE: CMD with --symbols SPEC must print
# "qtrace CMD: MESSAGE" alone on stderr, nothing on stdout, status 2.
refused() {
    case $1 in
        convert) set -- "$@" --to uftrace "$W/none.qtr" "$W/out" ;;
        *) set -- "$@" "$W/none.qtr" ;;
    esac
    cmd=$1 what=$2 spec=$3 msg=$4
    shift 4
    "$QTRACE" "$cmd" --symbols "$spec" "$@" > "$W/out.txt" 2> "$W/err.txt"
    st=$?
    if [ "$st" -eq 2 ] && [ ! -s "$W/out.txt" ] &&
       [ "$(cat "$W/err.txt")" = "qtrace $cmd: $msg" ]; then
        pass "$cmd: $what refused"
    else
        fail "$cmd: $what: status $st, stderr:"
        sed 's/^/    /' "$W/err.txt"
        echo "    wanted: qtrace $cmd: $msg"
    fi
}

for cmd in dump report replay convert; do
    refused "$cmd" "missing file" "$W/missing" \
        "--symbols $W/missing: No such file or directory"
done
refused dump "prose" "$W/prose" "--symbols $W/prose: line 1: not a symbol \
line (ADDR TYPE NAME [MODULE]), and not an ELF file"
refused report "binary data" "$W/binary" "--symbols $W/binary: line 1: \
not a symbol line (ADDR TYPE NAME [MODULE]), and not an ELF file"
refused replay "a bad line 3" "$W/bad3" "--symbols $W/bad3: line 3: not a \
symbol line (ADDR TYPE NAME [MODULE])"
refused convert "kallsyms of zeros" "$W/kptr" "--symbols $W/kptr: every \
address is 0 (kallsyms read without the right to see addresses, see \
kptr_restrict: read it as root)"
refused dump "no text symbols" "$W/data" "--symbols $W/data: no text \
symbols (types t, T, w, W)"
refused dump "ADDR not hex" "$W/good@xyz" "--symbols $W/good@xyz: 'xyz' \
after @ is not a hexadecimal address"
refused dump "a directory" "$W" "--symbols $W: Is a directory"

# A good file passes the option: the error is then the missing trace's.
"$QTRACE" dump --symbols "$W/good@0xffff0000" "$W/none.qtr" 2> "$W/err.txt"
check_eq "a good table is accepted (status of the missing trace)" 1 $?
check_grep "... and the error names the trace" "none.qtr" "$W/err.txt"
finish
