# SPDX-License-Identifier: GPL-2.0-or-later
# What the tests of `qtrace convert --to chrome/perfetto` share, sourced
# after lib.sh and calls.sh: a recording of the calls guest with
# function, system call and lifecycle records, what qtrace itself says
# about it (info, dump), and the checks of a timeline summary printed by
# timeline-check.py against those and against calls.sh.

E2E_DIR=${E2E_DIR:-$(dirname "$0")}

# convert_record TRACE: the calls guest with the events converted.
convert_record() {
    "$QTRACE" record -e 'func_*,image_map,vcpu_*,syscall*,exec_tb' \
        -o "$1" -- "$GUEST" > "$WORK/guest.out" 2> "$WORK/guest.err"
    check_eq "guest exit status" 0 "$?"
    check_eq "guest output" "calls: ok" "$(cat "$WORK/guest.out")"
}

# expected_tracks TRACE: "S:vCPU V (stream S)" of each stream, by stream.
expected_tracks() {
    "$QTRACE" info --per-cpu "$1" |
        awk '$1 == "vcpu" && $3 == "stream" && NF == 5 {
                 printf "%s:vCPU %s (stream %s)\n", $4, $2, $4 }' |
        sort -n | tr '\n' ' ' | sed 's/ $//'
}

# expected_syscalls TRACE: "name=N" of the syscall records, sorted by
# name, as qtrace dump names them.
expected_syscalls() {
    "$QTRACE" dump -e syscall "$1" | awk '{ n[$NF]++ }
        END { for (k in n) print k "=" n[k] }' | LC_ALL=C sort -t= -k1,1 |
        tr '\n' ' ' | sed 's/ $//'
}

# check_summary WHAT SUMMARY TRACE: a timeline-check.py summary of the
# calls guest's trace TRACE holds the guest's call tree and counts, one
# track per stream, every system call and the lifecycle instants.
check_summary() {
    what=$1
    sum=$2
    check_eq "$what: structure (nesting, times, interning)" ok \
        "$(sed -n 1p "$sum")"
    check_eq "$what: one named track per stream" \
        "tracks $(expected_tracks "$3")" "$(grep '^tracks ' "$sum")"
    grep '^tree ' "$sum" | cut -d' ' -f3 | LC_ALL=C sort > "$sum.tree"
    calls_expected_tree > "$sum.expect"
    if cmp -s "$sum.tree" "$sum.expect"; then
        pass "$what: call tree of the guest's functions"
    else
        fail "$what: call tree differs (expected, then got):"
        sed 's/^/    /' "$sum.expect" "$sum.tree"
    fi
    check_eq "$what: calls per guest function" "calls $CALLS_COUNTS" \
        "$(grep '^calls ' "$sum")"
    check_eq "$what: system call slices by name (dump's names)" \
        "syscalls $(expected_syscalls "$3")" "$(grep '^syscalls ' "$sum")"
    check_eq "$what: instants" \
        "instants image_map=$(info_count "$3" image_map) vcpu_exit=$(info_count "$3" vcpu_exit) vcpu_init=$(info_count "$3" vcpu_init)" \
        "$(grep '^instants ' "$sum")"
}

# first_syscall_args TRACE: "num=N a1=0x.. ... a6=0x.. ret=R" of the
# first system call of the first stream dump shows, from dump.
first_syscall_args() {
    "$QTRACE" dump -e 'syscall*' "$1" | awk '
        $3 == "syscall" && !done { v = $1; n = $5
            printf "num=%s a1=%s a2=%s a3=%s a4=%s a5=%s a6=%s", $5, $7,
                   $8, $9, $10, $11, $12; done = 1; next }
        done == 1 && $1 == v && $3 == "syscall_ret" { printf " ret=%s\n",
                   $7; done = 2 }'
}
