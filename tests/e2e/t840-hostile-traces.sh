#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Traces with valid checksums whose content must not be trusted, crafted
# by tests/tools/hostile-trace.py from docs/format.md: every reading
# command refuses them with one line and a non-zero status, or reads the
# valid ones, fast and in bounded memory. Runs with the build it belongs
# to, the ASan build too (no guests needed). Environment: QTRACE and
# HOSTILE_TRACE (the generator).
. "$(dirname "$0")/lib.sh"

MAX_KB=102400           # resident memory a command may reach
MAX_SECONDS=5           # wall time, loose on a loaded machine

[ -x /usr/bin/time ] || skip "/usr/bin/time not installed (Debian package time)"
command -v python3 >/dev/null 2>&1 || skip "python3 not installed"
command -v timeout >/dev/null 2>&1 || skip "timeout not installed"
command -v zstd >/dev/null 2>&1 || skip "zstd not installed (Debian package zstd)"

gen() {
    python3 "$HOSTILE_TRACE" "$1" "$WORK/$1.qtr" ||
        fail "generator: class $1"
}

# run TRACE CMD...: qtrace CMD with TRACE in place of the argument "@",
# its status in $st, the stderr lines in $WORK/err, wall time and peak
# memory checked. Output files of convert go to $WORK/out, removed after.
run() {
    trace=$1
    shift
    for a in "$@"; do
        shift
        if [ "$a" = @ ]; then
            set -- "$@" "$trace"
        else
            set -- "$@" "$a"
        fi
    done
    rm -rf "$WORK/out"
    timeout 60 /usr/bin/time -o "$WORK/time" -f "%e %M" \
        "$QTRACE" "$@" >"$WORK/stdout" 2>"$WORK/err"
    st=$?
    rm -rf "$WORK/out"
    # time says "Command exited with non-zero status N" first then.
    read -r secs kb <<EOT
$(tail -n 1 "$WORK/time")
EOT
    what="qtrace $*"
    if [ "$st" -eq 124 ]; then
        fail "$what: still running after 60 s"
        return
    fi
    if [ "${kb:-0}" -gt "$MAX_KB" ]; then
        fail "$what: $kb KB resident, over $MAX_KB"
    fi
    if awk -v s="$secs" -v m="$MAX_SECONDS" 'BEGIN { exit !(s > m) }'; then
        fail "$what: $secs s, over $MAX_SECONDS"
    fi
}

# refused CLASS REGEX CMD...: non-zero status and one stderr line that
# names the problem.
refused() {
    class=$1 regex=$2
    shift 2
    run "$WORK/$class.qtr" "$@"
    lines=$(wc -l <"$WORK/err")
    if [ "$st" -ne 0 ] && [ "$lines" -eq 1 ] &&
        grep -Eq -- "$regex" "$WORK/err"; then
        pass "$class: qtrace $1 refuses it"
    else
        fail "$class: qtrace $1: status $st, $lines stderr lines:"
        head -3 "$WORK/err" | cut -c1-200 | sed 's/^/    /'
    fi
}

# readable CLASS CMD...: status 0, nothing on stderr.
readable() {
    class=$1
    shift
    run "$WORK/$class.qtr" "$@"
    if [ "$st" -eq 0 ] && [ ! -s "$WORK/err" ]; then
        pass "$class: qtrace $1 reads it"
    else
        fail "$class: qtrace $1: status $st:"
        head -3 "$WORK/err" | cut -c1-200 | sed 's/^/    /'
    fi
}

# The commands that read every record of a trace ("@": the trace).
readers() {
    "$@" info @
    "$@" dump @
    "$@" replay @
    "$@" convert --to etrace @ "$WORK/out"
    [ -n "${NO_DIFF:-}" ] || "$@" diff @ @
}

# A catalog whose field the reader uses is declared uint8_t at offset
# 63: refused at open, by every command.
need64='the reader needs a 64-bit field inside the record'
need32='the reader needs a 32-bit field inside the record'
for c in "cat-exec-tb-u8pc exec_tb pc $need64" \
         "cat-func-entry-u8pc func_entry pc $need64" \
         "cat-mem-u8pc mem_access pc $need64" \
         "cat-tb-trans-u8tb-raw tb_trans tb $need32" \
         "cat-tb-trans-u8tb-zstd tb_trans tb $need32"; do
    set -- $c
    class=$1 ev=$2 field=$3
    shift 3
    gen "$class"
    regex="catalog: event $ev field $field is uint8_t at offset 63, $*\$"
    readers refused "$class" "$regex"
    refused "$class" "$regex" report @
    refused "$class" "$regex" convert --to uftrace @ "$WORK/out"
done

# An instruction count over the block's bytes.
gen huge-ninsns
NO_DIFF=1 readers refused huge-ninsns \
    'record at offset 0x[0-9a-f]+: tb_trans of block 1 has 4294967295 instructions in 1 bytes$'
# (No block of it runs: diff has nothing to compare.)
refused huge-ninsns '^qtrace diff: nothing to compare' diff @ @

# A lost record cut after its header, at the end of a decompressed
# payload: nothing is read past it.
gen cut-lost
readers refused cut-lost \
    'record at decompressed byte 0x8: size 32, past the end of the chunk \(16 bytes left\)$'

# Packets standing for 2^32 blocks in a trace whose END counts 1 record.
gen packed-bomb
readers refused packed-bomb 'over the records=1 of the END chunk$'
refused packed-bomb 'over the records=1 of the END chunk$' report @

# More records than END counts: refused at the first one over.
gen over-records
readers refused over-records \
    'record at offset 0x[0-9a-f]+: the chunks hold more records than the records=1 of the END chunk$'

# Ids over the highest ones END declares (the plugin's streams= and
# translations=): refused where they appear.
gen big-stream-declared
readers refused big-stream-declared \
    'chunk 2 at offset 0x[0-9a-f]+: stream 67108865, over the streams=1 of the END chunk$'
gen big-tb-declared
readers refused big-tb-declared \
    'tb_trans of block 67108865, over the translations=1 of the END chunk$'

# Without those keys (an older writer), ids far apart take no table as
# large as the id: read as valid (replay and report find no calls
# there, which is their status 1).
for class in big-stream big-tb; do
    gen "$class"
    readable "$class" info @
    readable "$class" dump @
    readable "$class" convert --to etrace @ "$WORK/out"
done
run "$WORK/big-tb.qtr" dump @
check_eq "big-tb: its block" "0 0 exec_tb pc 4194304 tb 67108865" \
    "$(grep exec_tb "$WORK/stdout")"

# 400 streams of a 64 KiB predictor each: over an 8 MiB limit.
gen many-streams
readable many-streams info @
QTRACE_READER_MEMORY_LIMIT=8M
export QTRACE_READER_MEMORY_LIMIT
NO_DIFF=1 readers refused many-streams \
    "the reader's memory limit of 8 MiB is reached \\(QTRACE_READER_MEMORY_LIMIT=SIZE raises it\\)\$"
# diff reads one stream at a time: one predictor, under the limit.
readable many-streams diff @ @
# 2000 translations of 1000 bytes: dump keeps their code for exec_insn,
# counted against the limit too; info keeps nothing.
gen many-translations
readable many-translations info @
refused many-translations \
    "chunk 1: the reader's memory limit of 8 MiB is reached" dump @
QTRACE_READER_MEMORY_LIMIT=64M
run "$WORK/many-translations.qtr" dump -e exec_insn @
check_eq "many-translations: under 64M, its instruction" \
    "0 0 exec_insn pc 4195304 tb 1 idx 0 | nop" "$(cat "$WORK/stdout")"
QTRACE_READER_MEMORY_LIMIT=lots
refused many-streams \
    'QTRACE_READER_MEMORY_LIMIT=lots: expected a size such as 512M or 4G' \
    info @
unset QTRACE_READER_MEMORY_LIMIT

# Without END nothing bounds a run: info counts it without expanding
# (1 tb_trans, 3 blocks and a run of 2^32 - 1), dump streams it.
gen packed-long-run
run "$WORK/packed-long-run.qtr" info @
check_eq "packed-long-run: info's total" "total: 4294967299" \
    "$(grep '^total:' "$WORK/stdout")"
lines=$(timeout 20 "$QTRACE" dump "$WORK/packed-long-run.qtr" | head -n 5 |
        wc -l)
check_eq "packed-long-run: dump | head -n 5 ends at once" 5 "$lines"

finish
