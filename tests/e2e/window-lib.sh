# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=sh
# Shell functions of the tracing window tests (t997-window-*), sourced
# after lib.sh: what a window should hold, cut out of a full trace of
# the same deterministic run, and what it holds, in one normal form
# (translation ids and symbol names dropped: the window's run
# translates anew).

# window_block_at DUMP STREAM N: the start time of the block of STREAM
# (in a full trace's dump) that holds its instruction N (from 0): the
# exec_tb at time t whose tb_trans says n instructions, t <= N < t + n.
window_block_at() {
    awk -v s="$2" -v n="$3" '
        $3 == "tb_trans" { len[$7] = $11 }
        $1 == s && $3 == "exec_tb" && $2 <= n && n < $2 + len[$7] {
            print $2; exit
        }' "$1"
}

# window_first_block DUMP STREAM PC: the start time of STREAM's first
# block at PC.
window_first_block() {
    awk -v s="$2" -v pc="$3" '
        $1 == s && $3 == "exec_tb" && $5 == pc { print $2; exit }' "$1"
}

# window_block_from DUMP STREAM T: the start time of STREAM's first block
# starting at T or later (empty if none).
window_block_from() {
    awk -v s="$2" -v t="$3" '
        $1 == s && $3 == "exec_tb" && $2 >= t { print $2; exit }' "$1"
}

# window_cut DUMP STREAM OPEN CLOSE: STREAM's blocks, instructions and
# accesses from its block at OPEN to the last before its block at CLOSE
# (CLOSE empty: to the end), in normal form.
window_cut() {
    awk -v s="$2" -v open="$3" -v upto="$4" '
        $1 != s { next }
        $3 == "exec_tb" && $2 == open { on = 1 }
        $3 == "exec_tb" && upto != "" && $2 >= upto { exit }
        on && ($3 == "exec_tb" || $3 == "exec_insn" || $3 == "mem_access")
    ' "$1" | window_normal
}

# window_records DUMP STREAM: the same kinds of records of STREAM in a
# window's trace, in normal form.
window_records() {
    awk -v s="$2" '$1 == s && ($3 == "exec_tb" || $3 == "exec_insn" ||
                               $3 == "mem_access")' "$1" | window_normal
}

window_normal() {
    sed -E 's/ tb [0-9]+//; s/ \|.*//'
}

# window_switch DUMP STREAM ON: the time of STREAM's trace_switch record
# with on ON after time 0 (the window's edges), empty if none.
window_switch() {
    awk -v s="$2" -v on="$3" '
        $1 == s && $3 == "trace_switch" && $NF == on && $2 > 0 {
            print $2; exit
        }' "$1"
}

# window_compare WHAT CUT_FILE WINDOW_FILE: the same records, and some.
window_compare() {
    if [ ! -s "$2" ]; then
        fail "$1: nothing to compare (empty cut of the full trace)"
    elif cmp -s "$2" "$3"; then
        pass "$1: $(wc -l < "$3") records as in the full trace"
    else
        fail "$1: records differ from the full trace's (- full, + window)"
        diff "$2" "$3" | head -6 | sed 's/^/    /'
    fi
}
