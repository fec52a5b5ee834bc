# SPDX-License-Identifier: GPL-2.0-or-later
# Shared by the tests of the plugin's backend= option (t95x), sourced
# after lib.sh.

# run_plugin OPTIONS ARGS...: QEMU for $ARCH with the plugin and OPTIONS
# (its comma-separated options) running ARGS in $WORK; stdout to
# $WORK/out, stderr to $WORK/err. Sets RC and QEMU_PID (QEMU's process,
# which is the guest's in user mode).
run_plugin() {
    opts=$1
    shift
    (cd "$WORK" && exec "qemu-$ARCH" -plugin "$QTRACE_PLUGIN,$opts" "$@") \
        > "$WORK/out" 2> "$WORK/err" &
    QEMU_PID=$!
    wait "$QEMU_PID"
    RC=$?
}

# The construction's blocks as "pc count" lines, pc in hex without
# leading zeros, sorted: from the asm guest's .expect "blocks=".
expect_blocks() {
    expect_get blocks | tr ',' '\n' | tr ':' ' ' |
        while read -r pc n; do printf '0x%x %d\n' "$pc" "$n"; done | sort
}

# Lines "exec_tb pc 0xPC tb N" of stdin as "pc count", sorted.
count_blocks() {
    awk '{ for (i = 1; i < NF; i++) if ($i == "exec_tb") print $(i + 2) }' |
        sort | uniq -c | awk '{ print $2, $1 }' | sort
}

# The getpid and getppid numbers of $ARCH (the syscalls guest makes 7
# and 3 of them).
syscall_numbers() {
    case $ARCH in
    x86_64) GETPID=39 GETPPID=110 ;;
    aarch64|riscv64) GETPID=172 GETPPID=173 ;;
    arm) GETPID=20 GETPPID=64 ;;
    esac
}

# check_same WHAT EXPECTED_FILE ACTUAL_FILE: equal files (lines counted
# in the PASS line; the first differences shown on failure).
check_same() {
    if cmp -s "$2" "$3"; then
        pass "$1 ($(wc -l < "$2") lines)"
    else
        fail "$1:"
        diff "$2" "$3" | head -6 | sed 's/^/    /'
    fi
}
